"""A home holding every agent recall reads, each where the agent keeps its sessions:
`recall sources` finds them all, `recall import --all` imports every session once with a report
per agent, and a second run imports nothing again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from indexer.formats import FORMAT_NAMES

from .helpers import AGENT_LOCATION_VARIABLES, FORMATS

# Each agent's fixture (tests/data/formats/<name>/...) and where in the home the agent keeps it
# (its default location, the first one `recall sources` looks at on Linux). "." is the folder
# recall runs in (aider keeps its history in the project).
HOME_LAYOUT: dict[str, list[tuple[str, str]]] = {
    "claude-code": [("claude-code/projects", ".claude/projects")],
    "codex": [("codex/sessions", ".codex/sessions"),
              ("codex/archived_sessions", ".codex/archived_sessions")],
    "gemini": [("gemini/tmp", ".gemini/tmp")],
    "cursor": [("cursor/Cursor", ".config/Cursor"), ("cursor/projects", ".cursor/projects")],
    "aider": [("aider/ledger/.aider.chat.history.md", "./.aider.chat.history.md")],
    "cline": [("cline/config/Code", ".config/Code"), ("cline/home/.cline", ".cline")],
    "opencode": [("opencode/opencode.db", ".local/share/opencode/opencode.db")],
    "copilot": [("copilot/vscode/Code", ".config/Code"),
                ("copilot/cli/session-state", ".copilot/session-state"),
                ("copilot/cli/history-session-state", ".copilot/history-session-state")],
    "openclaw": [("openclaw/agents", ".openclaw/agents")],
    "chatgpt": [("chatgpt/conversations.json", "Downloads/chatgpt-export/conversations.json")],
    "zed": [("zed/threads/threads.db", ".local/share/zed/threads/threads.db")],
    "kimi": [("kimi/share", ".kimi"), ("kimi/kimi-code", ".kimi-code")],
    "goose": [("goose/sessions", ".local/share/goose/sessions")],
    "crush": [("crush/crush.db", ".crush/crush.db")],
    "qwen": [("qwen/projects", ".qwen/projects"), ("qwen/tmp", ".qwen/tmp")],
    "continue": [("continue/sessions", ".continue/sessions")],
    "warp": [("warp/warp-terminal", ".local/state/warp-terminal")],
    "windsurf": [("windsurf/Windsurf", ".config/Windsurf")],
    "grok": [("grok/home/sessions", ".grok/sessions")],
    "kiro": [("kiro/sessions/cli", ".kiro/sessions/cli"), ("kiro/kiro-cli", ".local/share/kiro-cli"),
             ("kiro/Kiro", ".config/Kiro")],
    "amp": [("amp/threads", ".local/share/amp/threads")],
}


def _lay_out(home: Path, project: Path) -> None:
    for name in FORMAT_NAMES:
        for source, target in HOME_LAYOUT[name]:
            to = project / target[2:] if target.startswith("./") else home / target
            to.parent.mkdir(parents=True, exist_ok=True)
            if (FORMATS / source).is_dir():
                shutil.copytree(FORMATS / source, to, dirs_exist_ok=True)
            else:
                shutil.copy2(FORMATS / source, to)


@pytest.fixture
def everything(recall, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """`recall` over a user home holding every agent's sessions, run from a project folder."""
    home, project = tmp_path / "user", tmp_path / "project"
    project.mkdir()
    _lay_out(home, project)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("RECALL_HOME", str(tmp_path / "data"))
    for name in AGENT_LOCATION_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(project)
    return recall


def test_every_agent_has_a_place_in_the_home() -> None:
    assert set(HOME_LAYOUT) == set(FORMAT_NAMES)


def test_import_all_reads_every_agent_once(everything) -> None:
    found = {s["format"]: s for s in json.loads(everything("sources", "--json").stdout)}
    assert [name for name in FORMAT_NAMES if not found[name]["files"]] == []

    planned = json.loads(everything("import", "--all", "--dry-run", "--json").stdout)
    assert sorted(planned) == sorted(FORMAT_NAMES)
    expected = {name: {s["session_id"] for s in plan["sessions"]} for name, plan in planned.items()}
    assert [name for name, ids in expected.items() if not ids] == []
    for name, ids in expected.items():
        assert all(i.startswith(f"{name}-") for i in ids), name  # ids prefixed by format

    report = everything("import", "--all").stdout
    lines = {line.split(":", 1)[0]: line for line in report.splitlines() if ": read " in line}
    for name, ids in expected.items():
        assert f"; indexed {len(ids)} sessions" in lines[name], (name, lines.get(name))
    stats = json.loads(everything("stats", "--json").stdout)
    assert stats["sessions"] == sum(len(ids) for ids in expected.values())

    again = json.loads(everything("import", "--all", "--json").stdout)
    assert {name: result["indexed"] for name, result in again.items()} == dict.fromkeys(
        FORMAT_NAMES, 0)
