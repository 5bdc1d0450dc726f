"""The Cline importer (Cline, Roo Code, Kilo Code and the Cline CLI): detection by name and
shape, what a task keeps and leaves out (the ledger of every stored message, the text the
extension injects into the user's turn, screenshots sent without words), times, metadata files,
damage, default locations, and the real pipeline from the fixture folders to search results."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, NothingToImport, cline, detect_format
from indexer.formats.common import Transcript
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import UNACCOUNTED, Ledger
from indexer.formats.sources import RawSession, load_file, read_transcripts
from models import InvalidSession, SearchRequest

from .helpers import DATA, FORMATS, make_service

ROOT = FORMATS / "cline"
CONFIG = ROOT / "config"
CLINE = CONFIG / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev"
ROO = CONFIG / "Cursor" / "User" / "globalStorage" / "rooveterinaryinc.roo-cline"
KILO = CONFIG / "Windsurf" / "User" / "globalStorage" / "kilocode.kilo-code"
SESSIONS = ROOT / "home" / ".cline" / "data" / "sessions"
HISTORY = "api_conversation_history.json"
XML = CLINE / "tasks" / "1767254400123" / HISTORY
NATIVE = CLINE / "tasks" / "1772530000456" / HISTORY
PLAIN = CLINE / "tasks" / "1770000000000" / HISTORY
DAMAGED = CLINE / "tasks" / "1772600000789" / HISTORY
FOCUS = CLINE / "tasks" / "1774000000321" / HISTORY
ROO_TASK = ROO / "tasks" / "019cd80c-2300-71a2-8b3c-4d5e6f7a8b9c" / HISTORY
KILO_TASK = KILO / "tasks" / "019ce0f3-ccc0-70f1-8e2d-3c4b5a697887" / HISTORY
CLI_ID = "1773300000000_k3xqz"
CLI = SESSIONS / CLI_ID / f"{CLI_ID}.messages.json"
TRANSCRIPTS = [XML, NATIVE, PLAIN, FOCUS, ROO_TASK, KILO_TASK, CLI]


def record(path: Path, **options: Any) -> dict[str, Any]:
    raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(**options))
    assert len(raws) == 1 and isinstance(raws[0], RawSession)
    return raws[0].record


def read(path: Path, **options: Any) -> tuple[Transcript, Ledger]:
    """A file's session and its ledger, which must account for every stored message."""
    ledger = Ledger()
    (transcript,) = read_transcripts(path, path.read_text("utf-8"), ImportOptions(**options),
                                     ledger) or []
    totals = ledger.totals()
    assert totals.adds_up() and UNACCOUNTED not in totals.left_out, totals
    return transcript, ledger


def skipped(path: Path) -> dict[str, int]:
    return read(path)[0].skipped


def contents(r: dict[str, Any]) -> list[str]:
    return [m["content"] for m in r["messages"]]


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.parent.name)
def test_transcripts_are_detected_by_name_and_shape(path: Path, tmp_path: Path) -> None:
    text = path.read_text("utf-8")
    assert detect_format(path, text) == "cline"
    assert cline.is_candidate(path)
    # a list of messages under another name is not claimed: it could be anyone's
    assert detect_format(tmp_path / "renamed.json", text) != "cline"


@pytest.mark.parametrize("path", [
    XML.with_name("ui_messages.json"), XML.with_name("task_metadata.json"),
    XML.with_name("context_history.json"), NATIVE.with_name("settings.json"),
    CLINE / "state" / "taskHistory.json", ROO_TASK.with_name("history_item.json"),
    ROO / "tasks" / "_index.json", SESSIONS / CLI_ID / f"{CLI_ID}.json",
    SESSIONS / CLI_ID / f"{CLI_ID}.compaction.json", SESSIONS / CLI_ID / "agent_7f3a.messages.json",
], ids=lambda p: p.name)
def test_metadata_files_have_nothing_to_import(path: Path) -> None:
    assert detect_format(path, path.read_text("utf-8")) == "cline"
    assert not cline.is_candidate(path)
    assert load_file(path, path.read_bytes(), 10_000_000) == []
    with pytest.raises(NothingToImport, match=r"metadata, not a transcript|sub-agent|subagent"):
        read_transcripts(path, path.read_text("utf-8"), ImportOptions())


def _json_or_none(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (ValueError, UnicodeDecodeError):  # tests/data/bad holds damaged ones on purpose
        return None


def test_other_formats_documents_are_not_claimed() -> None:
    real = DATA / "real" / "cline"  # the agents' own transcripts, gathered as samples
    others = [p for p in DATA.rglob("*.json") if ROOT not in p.parents and real not in p.parents]
    assert len(others) > 10
    for path in others:
        value = _json_or_none(path)
        assert not cline.looks_like_document(value, path), path
        # nor under the history's own name: an archive session is an object, an export a list
        # of conversations without role and content
        assert not cline.looks_like_document(value, path.with_name(HISTORY)), path
    lines = [*FORMATS.rglob("*.jsonl"), *(DATA / "jsonl").rglob("*.jsonl")]
    for path in [*others, *lines]:
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        assert detect_format(path, text) != "cline", path


def test_a_task_of_the_xml_tool_releases() -> None:
    r = record(XML)
    assert r["sessionId"] == "cline-1767254400123"
    assert (r["channel"], r["date"], r["topics"]) == ("cline", "2026-01-01", ["homelab"])
    assert r["title"] == ("The nightly backup script in scripts/backup.sh skips files with "
                          "spaces in their…")  # taskHistory.json's task, first line, 80 chars
    assert r["origin"] == {"agent": "cline", "id": "1767254400123", "cwd": "/home/lin/code/homelab",
                           "path": str(XML.absolute())}
    messages = r["messages"]
    assert [(m["id"], m["role"]) for m in messages] == [
        ("m0", "user"), ("m1", "assistant"), ("m2-results", "tool"), ("m3", "assistant"),
        ("m4-results", "tool"), ("m5", "assistant"), ("m6", "user"), ("m7", "assistant"),
        ("m8-results", "tool"), ("m9", "assistant"), ("m10", "user"), ("m11", "assistant")]
    said = contents(r)
    # the user's words without the wrappers, the environment or the resumption notice
    assert said[0] == ("The nightly backup script in scripts/backup.sh skips files with spaces in "
                       "their names. Fix it.")
    assert said[6] == "Also log how many files were copied to /var/log/backup.log"
    assert said[10] == "Run it with the quokka flag too"
    assert not any("environment_details" in c or "TASK RESUMPTION" in c for c in said)
    # XML tool calls compact, attempt_completion's result whole, <thinking> left out
    assert said[1] == '[tool: read_file] {"path": "scripts/backup.sh"}'
    assert said[3].startswith("Using `find -print0` with `xargs -0` keeps names with spaces "
                              "whole.\n[tool: replace_in_file] ")
    assert said[5] == ("The backup script now pipes find -print0 into xargs -0, so file names "
                       "with spaces are copied.")
    assert not any("loop probably" in c for c in said)
    # a result written as two text blocks is one tool message, cut to --tool-chars
    assert said[2] == ("[tool result: read_file for 'scripts/backup.sh'] #!/bin/sh\nfor f in "
                       "$(ls /srv/data); do\n  rsync -a /srv/data/$f /mnt/backup/\ndone")
    prefix = "[tool result: execute_command for 'sh scripts/backup.sh --dry-run'] "
    assert said[8].startswith(prefix) and len(said[8]) <= len(prefix) + 301


def test_times_come_from_ui_messages_when_messages_have_none() -> None:
    times = [m["time"] for m in record(XML)["messages"]]
    assert times[0] == "2026-01-01T08:00:00.123000Z"  # the task's `say: task`
    assert times[1] == "2026-01-01T08:00:01.123000Z"  # the request that answered it
    assert times[2] == times[3] == "2026-01-01T08:00:09.123000Z"
    assert times[10] == "2026-01-01T10:00:00.123000Z"  # resumed two hours later
    assert times == sorted(times)
    (transcript,) = read_transcripts(XML, XML.read_text("utf-8"), ImportOptions()) or []
    assert transcript.last_activity == "2026-01-01T10:01:40.123000Z"  # taskHistory.json's ts


def test_left_out_parts_are_counted() -> None:
    assert skipped(XML) == {"context the extension added": 1, "environment details": 6,
                            "feedback wrapper": 1, "thinking": 1}
    assert skipped(NATIVE) == {"block type x_citation": 1, "environment details": 5,
                               "feedback wrapper": 1, "thinking": 1}


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.parent.name)
def test_every_stored_message_has_one_fate(path: Path) -> None:
    transcript, ledger = read(path)
    value = json.loads(path.read_text("utf-8"))
    stored = value["messages"] if isinstance(value, dict) else value
    assert [f.where for f in ledger.fates()] == [f"messages[{n}]" for n in range(len(stored))]
    # the pieces of kept messages and the messages left out are what the session says it skipped
    totals = ledger.totals()
    assert transcript.skipped == {k: totals.left_out.get(k, 0) + totals.parts_left_out.get(k, 0)
                                  for k in {*totals.left_out, *totals.parts_left_out}}


def test_a_task_with_the_focus_chain_on() -> None:
    transcript, ledger = read(FOCUS)
    r = transcript.record
    said = {m["id"]: m["content"] for m in r["messages"]}
    # the reminders Cline appends after the user's words are not the user's
    assert said["m0"] == "csvtool drops empty lines from the input; keep them"
    # the feedback wrapper, a block of its own in the tool result, is left out: the feedback
    # itself is the user's turn
    assert said["m2"] == "Also the trailing one, codename kestrel"
    assert not any("task_progress" in c or "TODO LIST" in c or "has provided feedback" in c
                   for c in said.values())
    # a turn with nothing of the user's in it: the error notice, a reminder, the environment
    assert "m4" not in said
    assert ledger.fate("messages[4]").reason == "injected by the extension"
    assert transcript.skipped == {"context the extension added": 1, "environment details": 5,
                                  "feedback wrapper": 1, "injected by the extension": 1,
                                  "task progress reminder": 2}


def test_screenshots_sent_without_words_are_user_turns() -> None:
    r = record(FOCUS)
    said = {m["id"]: (m["role"], m["content"]) for m in r["messages"]}
    assert said["m6"] == ("user", "[image]")  # an answer that is a screenshot alone
    assert said["m8"] == ("user", "[image]")  # feedback on a completion, a screenshot alone
    assert said["m10"] == ("user", "[image]\n[image]")  # a turn of screenshots alone
    assert "m6-results" not in said and "m8-results" not in said  # not the tool's output


def test_a_task_with_native_tool_calls() -> None:
    r = record(NATIVE)
    assert (r["date"], r["topics"]) == ("2026-03-03", ["ledger"])
    said = contents(r)
    assert said[0].endswith("Why, and can you fix it?\n[image]")
    assert said[1] == ('Let me look at the export code.\n'
                       '[tool: read_file] {"path": "ledger/export.py"}')
    # the header Cline writes inside a native result names the tool and its input
    assert said[2].startswith("[tool result: read_file for 'ledger/export.py'] def row(entry):")
    # the question is the assistant's words, the answer and the feedback the user's
    assert said[3].endswith("Should amounts always have two decimals, or the currency's own "
                            "precision?")
    assert [m["content"] for m in r["messages"] if m["role"] == "user"][1:] == [
        "Currency precision, JPY has none", "Looks right. Add a changelog line, codename pelican"]
    assert said[6].startswith("[tool result: execute_command] Command executed.")
    assert len(said[6]) <= len("[tool result: execute_command] ") + 301
    assert said[7].startswith("export.py now formats amounts with Decimal.quantize")
    assert r["messages"][0]["time"] == "2026-03-03T09:26:40.556000Z"  # its own ts


def test_thinking_and_tool_chars_on_request() -> None:
    said = contents(record(NATIVE, thinking=True, tool_chars=20))
    assert said[1].startswith("[thinking] float repr switches to scientific notation below 1e-4.")
    assert said[5] == '[tool: execute_command] {"command": "pytest…'
    xml = contents(record(XML, thinking=True))
    assert xml[1].startswith("[thinking] The loop probably uses `for f in $(ls)`")


def test_a_task_without_times_or_interface_messages() -> None:
    r = record(PLAIN)
    assert r["title"] == "Explain what the `trap` line in scripts/deploy.sh does"  # first prompt
    assert r["topics"] == ["infra"]  # from the environment details' working directory
    assert r["origin"]["cwd"] == "/home/lin/code/infra"
    first, second = r["messages"]
    assert first["time"] == "2026-02-02T02:40:00Z"  # the task id is when it began
    assert "time" not in second and second["content"].startswith("It removes the lock file")


def test_without_any_time_the_files_time_is_the_start(tmp_path: Path) -> None:
    path = tmp_path / "tasks" / "not-a-time" / HISTORY
    path.parent.mkdir(parents=True)
    path.write_text(PLAIN.read_text("utf-8"), "utf-8")
    os.utime(path, (1_760_000_000, 1_760_000_000))
    r = record(path, format="cline")
    assert (r["date"], r["messages"][0]["time"]) == ("2025-10-09", "2025-10-09T08:53:20Z")
    assert r["origin"]["agent"] == "cline"  # outside an extension's folder


def test_a_roo_code_task() -> None:
    r = record(ROO_TASK)
    assert r["origin"]["agent"] == "roo-code"
    assert (r["title"], r["topics"], r["date"]) == (
        "Add a --json flag to the `todo list` command", ["todo-cli"], "2026-03-10")
    roles = [(m["id"], m["role"]) for m in r["messages"]]
    # the reasoning item (m3) and the truncation marker (m7) are not messages; the condensed
    # summary is a system message and the messages it replaced are kept
    assert roles == [("m0", "user"), ("m1", "assistant"), ("m2-results", "tool"),
                     ("m4", "assistant"), ("m5-results", "tool"), ("m6", "system"),
                     ("m8", "user"), ("m9", "assistant")]
    said = contents(r)
    assert said[5].startswith("## Conversation Summary")
    assert said[6] == "Also document the flag in README.md"
    assert said[7] == "Documented `todo list --json` in README.md under Usage."
    assert skipped(ROO_TASK) == {"block type thoughtSignature": 1,
                                 "context the extension added": 1, "environment details": 4,
                                 "thinking": 2, "truncation marker": 1}
    ledger = read(ROO_TASK)[1]
    assert ledger.fate("messages[3]").reason == "thinking"
    assert ledger.fate("messages[7]").reason == "truncation marker"
    thoughts = contents(record(ROO_TASK, thinking=True))
    assert "[thinking] Plan: add --json to the list subparser." in thoughts


def test_the_task_list_gives_title_and_folder(tmp_path: Path) -> None:
    folder = tmp_path / "rooveterinaryinc.roo-cline" / "tasks" / ROO_TASK.parent.name
    shutil.copytree(ROO_TASK.parent, folder)
    item = json.loads((folder / "history_item.json").read_text("utf-8"))
    item.update(task="Renamed in the history view", workspace="/srv/elsewhere")
    (folder / "history_item.json").write_text(json.dumps(item), "utf-8")
    r = record(folder / HISTORY)
    assert (r["title"], r["topics"]) == ("Renamed in the history view", ["elsewhere"])
    (folder / "history_item.json").unlink()  # then Roo's tasks/_index.json is asked
    index = {"version": 1, "updatedAt": 0, "entries": [dict(item, task="From the index")]}
    (folder.parent / "_index.json").write_text(json.dumps(index), "utf-8")
    assert record(folder / HISTORY)["title"] == "From the index"


def test_a_kilo_code_task() -> None:
    r = record(KILO_TASK)
    assert (r["origin"]["agent"], r["topics"]) == ("kilo-code", ["shop"])
    said = contents(r)
    assert said[1] == ("The rounding happens per line.\nEach line item is rounded before summing; "
                       "round once at the end in cart.py total().")
    assert said[2] == "Show me the fix as a diff, codename heron\n[image]"  # feedback in a result


def test_a_cline_cli_session() -> None:
    r = record(CLI)
    assert r["sessionId"] == "cline-1773300000000_k3xqz"
    assert r["origin"] == {"agent": "cline-cli", "id": CLI_ID, "cwd": "/home/lin/code/payments",
                           "path": str(CLI.absolute())}
    assert (r["title"], r["date"], r["topics"]) == (
        "Retry budget of the payments client", "2026-03-12", ["payments"])  # the manifest's
    said = contents(r)
    assert said[0] == ("Find where the retry budget for the payments client is set\n"
                       "[file: /home/lin/code/payments/config.yaml]")
    assert said[5] == "Which one wins in production, the config file or the env?"
    assert said[7] == "/explain-changes payments client"
    assert said[8] == "No changes were made; the budget is 3 in code and 5 in prod."
    assert [m["id"] for m in r["messages"]][:3] == ["msg_u1", "msg_a1", "msg_u2-results"]
    assert skipped(CLI) == {"compaction notice": 1, "mode notice": 1, "thinking": 1}


def test_a_cli_message_the_sdk_inserted_is_left_out(tmp_path: Path) -> None:
    # user-role messages the SDK marks as its own (sdk/packages/core/src/session/
    # user-run-messages.ts SYNTHETIC_USER_MESSAGE_KINDS) and its approval continuation
    value = json.loads(CLI.read_text("utf-8"))
    value["messages"] += [
        {"id": "msg_r1", "role": "user", "metadata": {"kind": "completion_reminder"},
         "content": [{"type": "text", "text": "[SYSTEM] This run is not complete until you call "
                                              "one of these terminal completion tools: "
                                              "submit_and_exit."}]},
        {"id": "msg_r2", "role": "user", "content": "The user approved switching to act mode. "
                                                    "Continue with the approved plan now."}]
    path = tmp_path / "sessions" / CLI_ID / CLI.name
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(value), "utf-8")
    transcript, ledger = read(path)
    assert not any(m["id"] in ("msg_r1", "msg_r2") for m in transcript.record["messages"])
    n = len(value["messages"])
    assert [ledger.fate(f"messages[{i}]").reason for i in (n - 2, n - 1)] == [
        "injected by the extension", "injected by the extension"]


def test_a_cli_session_without_its_manifest_or_times(tmp_path: Path) -> None:
    value = json.loads(CLI.read_text("utf-8"))
    for message in value["messages"]:
        message.pop("ts", None)
    path = tmp_path / "sessions" / CLI_ID / CLI.name
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(value), "utf-8")
    r = record(path)
    assert r["date"] == "2026-03-12"  # the file's updated_at
    assert r["title"] == "Find where the retry budget for the payments client is set"
    assert "topics" not in r and "cwd" not in r["origin"]


def test_since_uses_the_last_activity() -> None:
    assert load_file(XML, XML.read_bytes(), 10_000_000, ImportOptions(since="2026-03-01")) == []
    assert len(load_file(NATIVE, NATIVE.read_bytes(), 10_000_000,
                         ImportOptions(since="2026-03-01"))) == 1


def test_damaged_empty_and_foreign_files(tmp_path: Path) -> None:
    with pytest.raises(InvalidSession, match="invalid JSON at line 1"):
        load_file(DAMAGED, DAMAGED.read_bytes(), 10_000_000)
    path = tmp_path / "tasks" / "1772600000000" / HISTORY
    path.parent.mkdir(parents=True)
    path.write_text("[]", "utf-8")  # a task created, never sent
    assert load_file(path, path.read_bytes(), 10_000_000) == []
    with pytest.raises(NothingToImport, match="no conversation messages"):
        read_transcripts(path, "[]", ImportOptions())
    broken = [1, {"role": "user", "content": 7}, {"role": "user", "content": "<task>\nhi\n</task>"},
              {"role": "tool", "content": "x"},
              {"role": "assistant", "ts": "Infinity", "content": [
                  3, {"type": "tool_use", "id": 4, "name": None, "input": [1]},
                  {"type": "text", "text": None}]},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": [1],
                                            "content": {"nested": True}}, None]},
              {"role": ["user"], "content": []}]
    path.write_text(json.dumps(broken).replace('"Infinity"', "Infinity"), "utf-8")
    transcript, _ = read(path)  # every message accounted for, Infinity and all
    assert [m["content"] for m in transcript.record["messages"]] == [
        "hi", "[tool: tool] [1]", '[tool result] {"nested": true}']
    assert transcript.skipped == {"unreadable message": 2, "tool message": 1,
                                  "(list) message": 1, "unreadable block": 3}
    archive = DATA / "sessions" / "2026-03" / "t-zh-upgrade.json"
    with pytest.raises(InvalidSession, match="not a Cline task"):
        load_file(archive, archive.read_bytes(), 10_000_000, ImportOptions(format="cline"))


REAL = DATA / "real" / "cline"  # the agents' own transcripts, with their hand counts


def real_samples() -> list[dict[str, Any]]:
    manifest = REAL / "MANIFEST.json"
    if not manifest.exists():
        pytest.skip("no real Cline samples gathered")
    return list(json.loads(manifest.read_text("utf-8"))["samples"])


def test_the_real_samples_match_their_hand_counts() -> None:
    for sample in real_samples():
        path = REAL / sample["file"]
        transcript, ledger = read(path)
        counts = sample["hand_count"]
        messages = transcript.record["messages"]
        assert (ledger.totals().records, len(messages)) == (counts["records"],
                                                             counts["messages"]), sample["file"]
        assert Counter(m["role"] for m in messages) == Counter(counts["by_role"])
        assert ledger.totals().left_out == sample["left_out"]


def test_tool_results_the_cli_stored_as_objects_keep_their_output() -> None:
    # the real CLI session: read_files and run_commands results are lists of {query, result,
    # success} objects, not text blocks
    (sample,) = real_samples()
    said = {m["id"]: m["content"] for m in read(REAL / sample["file"])[0].record["messages"]}
    result = said["msg_nyEn51IG_tool_toolu_019n9oXmedUvxzMqpZ7JtjDk_tool_toolu_019n9oXmedUvxzMq"
                  "pZ7JtjDk_tool_toolu_019n9oXmedUvxzMqpZ7JtjDk_tool_toolu_019n9oXmedUvxzMqpZ7J"
                  "tjDk-results"]
    assert result.startswith('[tool result: read_files] {"query": "/Users/example/dev/cline/'
                             'apps/examples/desktop-app/webview/components/agent-sidebar.tsx:'
                             '462-480", "result": "462 |')


def test_default_paths_cover_editors_platforms_and_the_cli(tmp_path: Path) -> None:
    home = tmp_path
    roots = default_paths("cline", home, {})
    cline_ext = Path("globalStorage") / "saoudrizwan.claude-dev" / "tasks"
    assert home / ".config" / "Code" / "User" / cline_ext in roots
    assert (home / "Library" / "Application Support" / "Cursor" / "User" / "globalStorage"
            / "rooveterinaryinc.roo-cline" / "tasks") in roots
    assert (home / "AppData" / "Roaming" / "Windsurf" / "User" / "globalStorage"
            / "kilocode.kilo-code" / "tasks") in roots
    assert home / ".vscode-server" / "data" / "User" / cline_ext in roots
    assert roots[-2:] == [home / ".cline" / "data" / "tasks", home / ".cline" / "data" / "sessions"]
    env = {"XDG_CONFIG_HOME": "/xdg", "APPDATA": "C:/Users/lin/AppData/Roaming",
           "CLINE_DIR": "/opt/cline"}
    roots = default_paths("cline", home, env)
    assert Path("/xdg/VSCodium/User") / cline_ext in roots
    assert Path("C:/Users/lin/AppData/Roaming/Code - Insiders/User") / cline_ext in roots
    assert roots[-2:] == [Path("/opt/cline/data/tasks"), Path("/opt/cline/data/sessions")]
    env = {"VSCODE_APPDATA": "/portable-data", "VSCODE_PORTABLE": "/usb/vscode",
           "CLINE_DATA_DIR": "/d", "CLINE_SESSION_DATA_DIR": "/s"}
    roots = default_paths("cline", home, env)
    assert roots[0] == Path("/usb/vscode/user-data/User") / cline_ext
    assert Path("/portable-data/Code/User") / cline_ext in roots
    assert home / ".config" / "Code" / "User" / cline_ext not in roots  # replaced by VSCODE_APPDATA
    assert roots[-2:] == [Path("/d/tasks"), Path("/s")]


def test_the_fixtures_are_where_the_defaults_look() -> None:
    roots = default_paths("cline", ROOT / "home", {"XDG_CONFIG_HOME": str(CONFIG)})
    found = [p for p in roots if p.exists()]
    assert found == [CLINE / "tasks", ROO / "tasks", KILO / "tasks", SESSIONS]
    files = candidate_files("cline", found)
    assert sorted(files) == sorted([XML, NATIVE, PLAIN, DAMAGED, FOCUS, ROO_TASK, KILO_TASK, CLI])


def test_resume_hints_by_agent() -> None:
    agents = {record(path)["origin"]["agent"] for path in TRANSCRIPTS}
    resumes = cline.FORMAT.resumes()
    assert agents == set(resumes) == {"cline", "roo-code", "kilo-code", "cline-cli"}
    assert resumes["cline-cli"].command == "cline --id {id}"
    assert cline.FORMAT.resume == resumes["cline"] and cline.FORMAT.resume.command is None


def test_indexed_tasks_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    shutil.copytree(ROOT, tmp_path / "cline")
    sources = [tmp_path / "cline" / "config",
               tmp_path / "cline" / "home" / ".cline" / "data" / "sessions"]
    service = make_service(tmp_path / "home")
    report = service.index(sources)
    assert report.indexed == 7
    assert [Path(r.path).parent.name for r in report.rejected] == ["1772600000789"]  # damaged
    hits = service.search(SearchRequest(query="quokka flag", mode="keyword")).results
    assert hits[0].session_id == "cline-1767254400123"
    hits = service.search(SearchRequest(query="codename heron", mode="keyword")).results
    assert hits[0].session_id == "cline-019ce0f3-ccc0-70f1-8e2d-3c4b5a697887"
    hits = service.search(SearchRequest(query="codename kestrel", mode="keyword")).results
    assert hits[0].session_id == "cline-1774000000321"
    # the environment details were left out: their time zone is nowhere; nor are the reminders
    assert not service.search(SearchRequest(query="Zurich", mode="keyword")).results
    assert not service.search(SearchRequest(query="comprehensive checklist",
                                            mode="keyword")).results
    again = service.index(sources)
    # every file but the damaged one: the tasks, and the metadata with nothing to import
    assert (again.indexed, again.unchanged) == (0, again.files - 1)
