"""`recall setup mcp`: every agent's config gets recall's entry in the shape that agent documents,
idempotently, with a backup, as a diff; `--remove` takes it out again; a file that cannot be
parsed is never touched. All on homes under tmp_path, never the real one."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import tomllib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from api.settings import SETTINGS, Settings
from api.setup import (
    AGENTS,
    ConfigError,
    Place,
    ServerSpec,
    files,
    find_recall,
    jsonc,
    server_spec,
    setup_mcp,
    tomlconf,
)
from api.setup.server import PASSED_SETTINGS

NOW = datetime(2026, 5, 1, 12, 0, 0, tzinfo=UTC)
COMMAND = "/opt/recall/bin/recall"
SPEC = ServerSpec(command=COMMAND, args=["mcp"], env={"RECALL_HOME": "/data/recall"})
OLD = ServerSpec(command="/old/recall", args=["mcp"], env={})
ENV = {"RECALL_HOME": "/data/recall"}

# each agent's user-wide file on Linux and recall's entry in it, as the agents document them
# (docs/mcp-setup.md): written out here, not taken from the code under test
DOCUMENTED: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "claude-code": (".claude.json", ("mcpServers",),
                    {"type": "stdio", "command": COMMAND, "args": ["mcp"], "env": ENV}),
    "codex": (".codex/config.toml", ("mcp_servers",),
              {"command": COMMAND, "args": ["mcp"], "env": ENV}),
    "gemini": (".gemini/settings.json", ("mcpServers",),
               {"command": COMMAND, "args": ["mcp"], "env": ENV}),
    "cursor": (".cursor/mcp.json", ("mcpServers",),
               {"command": COMMAND, "args": ["mcp"], "env": ENV}),
    "vscode": (".config/Code/User/mcp.json", ("servers",),
               {"type": "stdio", "command": COMMAND, "args": ["mcp"], "env": ENV}),
    "opencode": (".config/opencode/opencode.json", ("mcp",),
                 {"type": "local", "command": [COMMAND, "mcp"], "enabled": True,
                  "environment": ENV}),
}

# a config each agent could have: settings, another server, comments where the agent reads them
OTHER = {
    "claude-code": '{\n  "numStartups": 3,\n  "mcpServers": {\n    "other": {\n      "type": '
                   '"stdio",\n      "command": "npx",\n      "args": []\n    }\n  },\n'
                   '  "projects": {}\n}\n',
    "codex": '# my codex\nmodel = "o3"  # fast\n\n[mcp_servers.other]\ncommand = "npx"\n'
             'args = ["-y", "other"]  # pinned\n\n[profiles.slow]\nmodel = "o3-pro"\n',
    "gemini": '{\n  // the look\n  "theme": "dark",\n  "mcpServers": {\n    "other": '
              '{"command": "npx"} // mine\n  }\n}\n',
    "cursor": '{\n    "mcpServers": {\n        "other": {\n            "command": "npx"\n'
              '        }\n    }\n}',
    "vscode": '{\r\n\t// servers\r\n\t"servers": {\r\n\t\t"other": {"type": "stdio", '
              '"command": "npx"},\r\n\t},\r\n\t"inputs": [],\r\n}\r\n',
    "opencode": '{\n  "$schema": "https://opencode.ai/config.json",\n  /* tools */\n  "mcp": {\n'
                '    "other": {"type": "local", "command": ["npx"]},\n  },\n}\n',
}
BROKEN = {"json": '{\n  "mcpServers": {\n    "other": {"command": "npx"\n',
          "toml": "[mcp_servers\n"}


@pytest.fixture
def place(tmp_path: Path) -> Place:
    """A home of its own with an empty PATH: nothing real is found or touched."""
    (tmp_path / "bin").mkdir()
    return Place(home=tmp_path / "user", env={"PATH": str(tmp_path / "bin")}, platform="linux")


def run(place: Place, name: str, spec: ServerSpec = SPEC, **options: Any) -> Any:
    """setup_mcp for one agent chosen by name; its result."""
    report = setup_mcp([AGENTS[name]], place, spec, chosen=True, now=NOW,
                       remove=options.get("remove", False), dry_run=options.get("dry_run", False))
    [result] = report.results
    return result


def config(place: Place, name: str) -> Path:
    return place.home / DOCUMENTED[name][0]


def read_config(path: Path) -> dict[str, Any]:
    """The file's values, read without the code under test: tomllib, or json after taking out
    the comments and trailing commas the fixtures use."""
    text = path.read_text("utf-8")
    if path.suffix == ".toml":
        return tomllib.loads(text)
    text = re.sub(r'"(?:[^"\\]|\\.)*"|/\*.*?\*/|//[^\n]*',  # comments, not in strings
                  lambda m: m.group() if m.group()[0] == '"' else "", text, flags=re.DOTALL)
    values: dict[str, Any] = json.loads(re.sub(r",(\s*[}\]])", r"\1", text))
    return values


def entry(place: Place, name: str) -> Any:
    values = read_config(config(place, name))
    for key in (*DOCUMENTED[name][1], "recall"):
        values = values[key]
    return values


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".recall-backup-*"))


def put(path: Path, text: str, mode: int = 0o644) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    path.chmod(mode)
    return path.read_bytes()


every_agent = pytest.mark.parametrize("name", list(DOCUMENTED))


@every_agent
def test_a_new_file_gets_the_documented_entry(place: Place, name: str) -> None:
    result = run(place, name)
    path = config(place, name)
    assert (result.action, result.file, result.backup) == ("added", str(path), None)
    assert entry(place, name) == DOCUMENTED[name][2]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # a new config is its owner's only
    assert result.diff.startswith(f"--- /dev/null\n+++ {path}\n")


@every_agent
def test_a_second_run_changes_nothing(place: Place, name: str) -> None:
    path = config(place, name)
    put(path, OTHER[name])
    assert run(place, name).action == "added"
    written, made = path.read_bytes(), backups(path)
    again = run(place, name)
    assert (again.action, again.reason, again.diff, again.backup) == (
        "unchanged", "already set up", None, None)
    assert path.read_bytes() == written and backups(path) == made


@every_agent
def test_an_outdated_entry_is_updated_and_backed_up(place: Place, name: str) -> None:
    path = config(place, name)
    put(path, OTHER[name])
    run(place, name, OLD)
    before = path.read_bytes()
    result = run(place, name, SPEC)
    assert result.action == "updated"
    assert "/old/recall" in "".join(line for line in result.diff.splitlines() if line[0] == "-")
    assert COMMAND in "".join(line for line in result.diff.splitlines() if line[0] == "+")
    assert entry(place, name) == DOCUMENTED[name][2]
    assert Path(result.backup).read_bytes() == before


@every_agent
def test_remove_undoes_the_setup_byte_for_byte(place: Place, name: str) -> None:
    path = config(place, name)
    original = put(path, OTHER[name])
    run(place, name)
    assert "recall" in path.read_text("utf-8")
    removed = run(place, name, remove=True)
    assert removed.action == "removed" and Path(removed.backup).exists()
    assert path.read_bytes() == original  # the other server, settings and comments as they were
    assert (run(place, name, remove=True).action, path.read_bytes()) == ("unchanged", original)


@every_agent
def test_a_dry_run_shows_the_diff_and_writes_nothing(place: Place, name: str) -> None:
    path = config(place, name)
    original = put(path, OTHER[name])
    result = run(place, name, dry_run=True)
    assert result.action == "added" and result.backup is None
    assert any(COMMAND in line for line in result.diff.splitlines() if line.startswith("+"))
    assert path.read_bytes() == original and not backups(path)
    run(place, name)
    written = path.read_bytes()
    undo = run(place, name, remove=True, dry_run=True)
    assert undo.action == "removed" and any(line.startswith("-") for line in undo.diff.splitlines())
    assert path.read_bytes() == written


@every_agent
def test_a_file_that_cannot_be_parsed_is_left_untouched(place: Place, name: str) -> None:
    path = config(place, name)
    original = put(path, BROKEN[AGENTS[name].format])
    for remove in (False, True):
        report = setup_mcp([AGENTS[name]], place, SPEC, chosen=True, remove=remove,
                           dry_run=False, now=NOW)
        [result] = report.results
        assert result.action == "skipped" and result.reason.startswith(f"cannot edit {path.name}")
        assert report.failed
    assert path.read_bytes() == original and not backups(path)


@pytest.mark.parametrize("name", ["claude-code", "cursor"])
def test_comments_are_refused_where_the_agent_reads_plain_json(place: Place, name: str) -> None:
    path = config(place, name)
    original = put(path, '{\n  // mine\n  "mcpServers": {}\n}\n')
    result = run(place, name)
    assert result.action == "skipped" and "comments or trailing commas" in result.reason
    assert path.read_bytes() == original


def test_the_backup_and_the_new_file_keep_the_permissions(place: Place) -> None:
    path = config(place, "cursor")
    original = put(path, OTHER["cursor"], mode=0o640)
    result = run(place, "cursor")
    backup = Path(result.backup)
    assert backup.read_bytes() == original
    assert backup.name == "mcp.json.recall-backup-20260501T120000Z"
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(backup.stat().st_mode) == 0o640
    result = run(place, "cursor", remove=True)  # the same second: a backup of its own
    assert Path(result.backup).name.endswith("-1") and len(backups(path)) == 2


def test_codex_keeps_its_comments_tables_and_order(place: Place) -> None:
    path = config(place, "codex")
    put(path, OTHER["codex"])
    run(place, "codex")
    assert path.read_text("utf-8") == (
        '# my codex\nmodel = "o3"  # fast\n\n[mcp_servers.other]\ncommand = "npx"\n'
        'args = ["-y", "other"]  # pinned\n\n'
        f'[mcp_servers.recall]\ncommand = "{COMMAND}"\nargs = ["mcp"]\n\n'
        '[mcp_servers.recall.env]\nRECALL_HOME = "/data/recall"\n\n'
        '[profiles.slow]\nmodel = "o3-pro"\n')


def test_vscode_keeps_comments_trailing_commas_tabs_and_crlf(place: Place) -> None:
    path = config(place, "vscode")
    put(path, OTHER["vscode"])
    run(place, "vscode")
    assert path.read_bytes().decode("utf-8") == (
        '{\r\n\t// servers\r\n\t"servers": {\r\n\t\t"other": {"type": "stdio", "command": "npx"},'
        '\r\n\t\t"recall": {\r\n\t\t\t"type": "stdio",\r\n\t\t\t'
        '"command": "/opt/recall/bin/recall",'
        '\r\n\t\t\t"args": [\r\n\t\t\t\t"mcp"\r\n\t\t\t],\r\n\t\t\t"env": {\r\n\t\t\t\t'
        '"RECALL_HOME": "/data/recall"\r\n\t\t\t}\r\n\t\t},\r\n\t},\r\n\t"inputs": [],\r\n}\r\n')


def test_what_a_user_added_to_the_entry_is_kept(place: Place) -> None:
    path = config(place, "gemini")
    put(path, json.dumps({"mcpServers": {"recall": {
        "command": "/old/recall", "args": ["mcp"], "trust": True,
        "env": {"RECALL_HOME": "/elsewhere", "HTTPS_PROXY": "http://proxy:3128"}}}}))
    assert run(place, "gemini").action == "updated"
    assert entry(place, "gemini") == {"command": COMMAND, "args": ["mcp"], "trust": True,
                                      "env": {"RECALL_HOME": "/data/recall",
                                              "HTTPS_PROXY": "http://proxy:3128"}}


def test_a_symlinked_config_is_edited_through_the_link(place: Place, tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "mcp.json"
    original = put(target, OTHER["cursor"])
    link = config(place, "cursor")
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    result = run(place, "cursor")
    assert link.is_symlink() and "recall" in target.read_text("utf-8")
    assert Path(result.backup).parent == target.parent
    assert Path(result.backup).read_bytes() == original


def test_a_file_changed_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    put(path, '{"theirs": 2}')
    with pytest.raises(ConfigError, match="changed while recall was editing it"):
        files.write(path, b'{"theirs": 1}', b'{"ours": 1}', NOW)
    assert path.read_text() == '{"theirs": 2}' and not backups(path)


def test_agents_are_detected_by_their_folder_or_their_program(place: Place) -> None:
    assert [name for name, agent in AGENTS.items() if agent.detect(place)] == []
    (place.home / ".codex").mkdir(parents=True)
    program = Path(place.env["PATH"]) / "opencode"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    found = {name: agent.detect(place) for name, agent in AGENTS.items() if agent.detect(place)}
    assert found == {"codex": f"{place.home / '.codex'} exists", "opencode": "opencode on PATH"}
    report = setup_mcp(list(AGENTS.values()), place, SPEC, chosen=False, remove=False,
                       dry_run=False, now=NOW)
    actions = {r.agent: r.action for r in report.results}
    assert actions == {"claude-code": "skipped", "codex": "added", "gemini": "skipped",
                       "cursor": "skipped", "vscode": "skipped", "opencode": "added"}
    assert not report.failed and not (place.home / ".cursor").exists()


@every_agent
def test_linux_defaults_are_the_documented_paths(place: Place, name: str) -> None:
    assert AGENTS[name].file(place) == place.home / DOCUMENTED[name][0]


def test_paths_follow_the_agents_own_variables(place: Place, tmp_path: Path) -> None:
    def where(name: str, platform: str = "linux", **env: str) -> Path:
        return AGENTS[name].file(Place(place.home, {**place.env, **env}, platform))

    home = place.home
    assert where("claude-code", CLAUDE_CONFIG_DIR="/c") == Path("/c/.claude.json")
    assert where("codex", CODEX_HOME="/x") == Path("/x/config.toml")
    assert where("codex", CODEX_HOME="") == home / ".codex/config.toml"  # empty counts as unset
    assert where("gemini", GEMINI_CLI_HOME="/g") == Path("/g/.gemini/settings.json")
    assert where("opencode", XDG_CONFIG_HOME="/xdg") == Path("/xdg/opencode/opencode.json")
    assert where("vscode", XDG_CONFIG_HOME="/xdg") == Path("/xdg/Code/User/mcp.json")
    assert where("vscode", VSCODE_APPDATA="/app") == Path("/app/Code/User/mcp.json")
    assert where("vscode", VSCODE_PORTABLE="/p") == Path("/p/user-data/User/mcp.json")
    assert where("vscode", "darwin") == home / "Library/Application Support/Code/User/mcp.json"
    assert where("vscode", "win32", APPDATA="/roaming") == Path("/roaming/Code/User/mcp.json")
    assert where("vscode", "win32") == home / "AppData/Roaming/Code/User/mcp.json"
    put(home / ".config/opencode/opencode.jsonc", "{}")  # the file opencode reads last wins
    assert where("opencode") == home / ".config/opencode/opencode.jsonc"


def test_only_the_archive_settings_reach_a_config_and_never_a_secret(tmp_path: Path,
                                                                     monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"RECALL_HOME": "data", "RECALL_API_TOKEN": "s3cret", "RECALL_LLM_API_KEY": "k3y",
           "RECALL_MAX_FILE_MB": "9"}
    spec = server_spec(["/bin/recall"], Settings.from_env(env), env, {})
    assert spec == ServerSpec("/bin/recall", ["mcp"], {"RECALL_HOME": str(Path.cwd() / "data")})
    given = server_spec(["/py", "-m", "api.cli"], Settings.from_env({}, embedder="minilm"), {},
                        {"RECALL_EMBEDDER": True})
    assert given == ServerSpec("/py", ["-m", "api.cli", "mcp"], {"RECALL_EMBEDDER": "minilm"})
    assert not {s.env for s in SETTINGS if s.secret} & set(PASSED_SETTINGS)


def test_the_recall_command_is_found_absolute(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    script = Path.cwd() / "venv/bin/recall"
    put(script, "#!/bin/sh\n")
    python = script.parent / "python"
    assert find_recall("venv/bin/recall", "/usr/bin/python3", "") == [str(script)]
    assert find_recall("/usr/bin/pytest", str(python), "") == [str(script)]
    script.chmod(0o755)
    elsewhere = str(Path.cwd() / "nothing/python")
    assert find_recall("pytest", elsewhere, str(script.parent)) == [str(script)]
    assert find_recall("pytest", elsewhere, str(Path.cwd())) == [elsewhere, "-m", "api.cli"]


def test_the_command_written_starts_recalls_mcp_server() -> None:
    """The entry found for this checkout runs: `<command> mcp --help` as an agent would."""
    spec = server_spec(find_recall(sys.argv[0], sys.executable, os.environ.get("PATH")),
                       Settings.from_env({}), {}, {})
    ran = subprocess.run([spec.command, *spec.args, "--help"], capture_output=True, text=True,
                         timeout=60, check=False)
    assert ran.returncode == 0 and "MCP tools over stdio" in ran.stdout, ran.stderr


# --- the JSON-with-comments editor on its own

@pytest.mark.parametrize(("text", "message"), [
    ('{"a": 1,\n  "b": }', "line 2, column 8: a value expected"),
    ("{'a': 1}", "line 1, column 2: unexpected \"'\""),
    ('{"a": NaN}', "unexpected 'N'"),
    ("{a: 1}", "unexpected 'a'"),
    ('{"a": 1} /* open', "an unclosed comment"),
    ('{"a": 1} {}', "the end of the file expected"),
    ('{"a": "\\x"}', "a valid string expected"),
    ("[1, 2]", "the top level is not an object"),
    ('{"a": [1, 2', 'the file ends where "," or "]" should be'),
    ("[" * 300 + "]" * 300, "nested more than 200 levels deep"),
])
def test_what_is_not_json_is_refused_with_where(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        jsonc.set_entry(text, ("s",), "recall", {})


def test_a_key_twice_on_the_path_is_refused() -> None:
    with pytest.raises(ConfigError, match='"servers" appears 2 times'):
        jsonc.set_entry('{"servers": {}, "servers": {"a": 1}}', ("servers",), "recall", {})
    with pytest.raises(ConfigError, match=r'"servers\.recall" appears 2 times'):
        jsonc.remove_entry('{"servers": {"recall": 1, "recall": 2}}', ("servers",), "recall")


@pytest.mark.parametrize(("before", "after"), [
    ('{"a":1}', '{"a":1,"s":{"recall":{"x":[1]}}}'),
    ('{"a": 1}', '{"a": 1, "s": {"recall": {"x": [1]}}}'),
    ("\ufeff{}", ('\ufeff{\n  "s": {\n    "recall": {\n      "x": [\n        1\n      ]\n'
                 '    }\n  }\n}')),
    ('{\n  "s": {\n    // none yet\n  }\n}',
     ('{\n  "s": {\n    // none yet\n    "recall": {\n      "x": [\n        1\n      ]\n    }\n'
     '  }\n}')),
])
def test_one_line_files_stay_on_one_line_and_the_rest_is_kept(before: str, after: str) -> None:
    assert jsonc.set_entry(before, ("s",), "recall", {"x": [1]}) == after
    assert jsonc.remove_entry(after, ("s",), "recall") == before


def test_a_container_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ConfigError, match='"mcpServers" is not an object'):
        jsonc.set_entry('{"mcpServers": []}', ("mcpServers",), "recall", {})
    with pytest.raises(ConfigError, match='"mcp_servers" is not a table'):
        tomlconf.set_entry("mcp_servers = 1\n", ("mcp_servers",), "recall", {})


# --- the command

@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME at tmp_path/user with no agent variables and an empty PATH."""
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME",
                 "VSCODE_APPDATA", "VSCODE_PORTABLE", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    (tmp_path / "bin").mkdir()
    (tmp_path / "user").mkdir()
    return tmp_path / "user"


def test_the_command_sets_up_the_detected_agents(recall: Callable[..., Any], user: Path,
                                                 tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("RECALL_API_TOKEN", "never-in-a-config")
    (user / ".codex").mkdir()
    (user / ".gemini").mkdir()
    report = json.loads(recall("setup", "mcp", "--json").stdout)
    server = report["server"]
    assert server["args"] == ["mcp"] and Path(server["command"]).is_absolute()
    assert server["env"] == {"RECALL_HOME": str(tmp_path / "home"), "RECALL_EMBEDDER": "hash"}
    actions = {r["agent"]: r["action"] for r in report["results"]}
    assert actions == {"claude-code": "skipped", "codex": "added", "gemini": "added",
                       "cursor": "skipped", "vscode": "skipped", "opencode": "skipped"}
    codex = tomllib.loads((user / ".codex/config.toml").read_text())["mcp_servers"]["recall"]
    assert codex == {"command": server["command"], "args": ["mcp"], "env": server["env"]}
    for path in (user / ".codex/config.toml", user / ".gemini/settings.json"):
        assert "never-in-a-config" not in path.read_text()

    again = recall("setup", "mcp")
    assert again.stdout.count("unchanged: already set up") == 2
    assert "not found: claude-code, cursor, vscode, opencode" in again.stdout

    removed = recall("setup", "mcp", "--remove", "--agent", "codex", "gemini")
    assert removed.stdout.count("removed") == 2 and "restart the agents" in removed.stdout
    assert "recall" not in (user / ".gemini/settings.json").read_text()


def test_the_command_with_nothing_found_says_what_to_do(recall: Callable[..., Any],
                                                        user: Path) -> None:
    ran = recall("setup", "mcp", ok=False)
    assert ran.returncode == 1 and ran.stdout == ""
    assert "no coding agent found" in ran.stderr and "--agent {claude-code," in ran.stderr
    assert not list(user.iterdir())


def test_the_command_dry_run_and_a_broken_file(recall: Callable[..., Any], user: Path) -> None:
    ran = recall("setup", "mcp", "--agent", "cursor", "--dry-run")
    assert "cursor       would be added" in ran.stdout and "+    \"recall\": {" in ran.stdout
    assert ran.stdout.endswith("dry run: nothing written\n") and not (user / ".cursor").exists()
    original = put(user / ".claude.json", BROKEN["json"])
    broken = recall("setup", "mcp", "--agent", "claude-code", ok=False)
    assert broken.returncode == 1 and "skipped: cannot edit .claude.json: line 4" in broken.stdout
    assert (user / ".claude.json").read_bytes() == original
    assert recall("setup", "mcp", "--agent", "nobody", ok=False).returncode == 2
