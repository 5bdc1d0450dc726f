"""The GitHub Copilot importer: VS Code chats written whole and as an operation log (replayed),
their workspace folder, Copilot CLI event logs, detection, default locations, and the real
pipeline from the fixture folder to search results."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, NothingToImport, copilot, detect_format
from indexer.formats.copilot_oplog import replay
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.registry import FORMATS as REGISTRY
from indexer.formats.resume import resume_hint
from indexer.formats.sources import RawSession, load_file, read_transcripts
from models import InvalidSession, SearchRequest

from .helpers import FORMATS, JSONL, make_service
from .helpers import SESSIONS as ARCHIVE  # the archive's own session objects

COPILOT = FORMATS / "copilot"
USER = COPILOT / "vscode" / "Code" / "User"
STORAGE = USER / "workspaceStorage" / "5c2e9a7f1b3d4e6a8c0f2b4d6e8a0c1e"
WHOLE = STORAGE / "chatSessions" / "3b9f7c1e-5a2d-4e8f-9c61-7d0e2f4a6b8c.json"
LOG = STORAGE / "chatSessions" / "8d2e4a6c-1f3b-4c5d-8e7f-9a0b1c2d3e4f.jsonl"
STALE = LOG.with_suffix(".json")
EMPTY_WINDOW = USER / "globalStorage" / "emptyWindowChatSessions"
EARLY_CHAT = EMPTY_WINDOW / "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f.json"
NO_REQUESTS = EMPTY_WINDOW / "f0e1d2c3-b4a5-4968-8776-655443322110.json"
STATE = COPILOT / "cli" / "session-state"
CLI = STATE / "4f8a2c6e-0b1d-4e3f-a5c7-9e1b3d5f7a9c" / "events.jsonl"
CLI_EARLY = STATE / "a7c9e1b3-5d7f-4a2c-8e4b-6d8f0a2c4e6a.jsonl"
SESSIONS = [WHOLE, LOG, EARLY_CHAT, CLI, CLI_EARLY]
LEFT_OUT = ("narwhal", "heron", "marmot", "zebra")  # undone, removed, rewound, a stale copy


def record(path: Path, **options: Any) -> dict[str, Any]:
    raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(**options))
    assert len(raws) == 1 and isinstance(raws[0], RawSession)
    return raws[0].record


def skipped(path: Path, **options: Any) -> dict[str, int]:
    (transcript,) = read_transcripts(path, path.read_text("utf-8"), ImportOptions(**options)) or []
    return transcript.skipped


def contents(r: dict[str, Any]) -> list[str]:
    return [m["content"] for m in r["messages"]]


# detection -----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", SESSIONS)
def test_chats_and_event_logs_are_detected_by_content(path: Path, tmp_path: Path) -> None:
    text = path.read_text("utf-8")
    assert detect_format(path, text) == "copilot"
    assert detect_format(tmp_path / "renamed.txt", text) == "copilot"


def test_no_line_or_document_of_another_format_looks_like_copilot() -> None:
    # workspace.json is VS Code's own, written by its forks too (Cursor): metadata for all
    others = [p for folder in (FORMATS, JSONL, ARCHIVE) for p in sorted(folder.rglob("*"))
              if p.is_file() and COPILOT not in p.parents and p.name != "workspace.json"]
    lines = [json.loads(line) for p in others if p.suffix == ".jsonl"
             for line in p.read_text("utf-8").split("\n") if _parses(line)]
    documents = [(p, json.loads(p.read_text("utf-8"))) for p in others
                 if p.suffix == ".json" and _parses(p.read_text("utf-8"))]
    assert len(lines) > 100 and len(documents) > 10
    assert not [item for item in lines if copilot.looks_like(item)]
    assert not [p for p, value in documents if copilot.looks_like_document(value, p)]


def test_copilot_lines_look_like_no_other_format() -> None:
    ours = [json.loads(line) for p in (LOG, CLI, CLI_EARLY)
            for line in p.read_text("utf-8").split("\n") if _parses(line)]
    assert all(copilot.looks_like(item) for item in ours[:3])
    others = [m for m in REGISTRY.values() if m is not copilot and hasattr(m, "looks_like")]
    assert len(others) >= 4
    for other in others:
        assert not [item for item in ours if other.looks_like(item)], other.NAME


def test_metadata_stale_copies_and_empty_chats_have_nothing_to_import() -> None:
    meta = STORAGE / "workspace.json"
    assert detect_format(meta, meta.read_text("utf-8")) == "copilot"
    for path in (meta, STALE, NO_REQUESTS):
        assert load_file(path, path.read_bytes(), 10_000_000) == []
    with pytest.raises(NothingToImport, match="workspace metadata"):
        read_transcripts(meta, meta.read_text("utf-8"), ImportOptions())
    with pytest.raises(NothingToImport, match="operation log"):
        read_transcripts(STALE, STALE.read_text("utf-8"), ImportOptions())
    with pytest.raises(NothingToImport, match="a chat without requests"):
        read_transcripts(NO_REQUESTS, NO_REQUESTS.read_text("utf-8"), ImportOptions())


# VS Code chats -------------------------------------------------------------------------------

def test_a_chat_written_whole() -> None:
    r = record(WHOLE)
    assert r["sessionId"] == "copilot-3b9f7c1e-5a2d-4e8f-9c61-7d0e2f4a6b8c"
    assert (r["channel"], r["date"], r["topics"]) == ("copilot", "2026-04-02", ["ledger"])
    assert r["title"] == "CSV amounts in scientific notation"  # customTitle, not the prompt
    assert r["origin"] == {"agent": "copilot-vscode", "id": "3b9f7c1e-5a2d-4e8f-9c61-7d0e2f4a6b8c",
                           "cwd": "/home/lin/code/ledger", "path": str(WHOLE.absolute())}
    assert [(m["id"], m["role"]) for m in r["messages"]] == [
        ("request_a1", "user"), ("response_a1", "assistant"), ("request_a1-results", "tool"),
        ("request_a2", "user"), ("response_a2", "assistant"), ("request_a2-results", "tool"),
        ("request_a3", "user")]  # cancelled before any answer; the undone request is gone
    assert r["messages"][0]["time"] == "2026-04-02T09:15:00Z"
    answer = r["messages"][1]["content"]
    assert answer == (
        '[tool: copilot_readFile] {"filePath": "/home/lin/code/ledger/src/ledger/export.py", '
        '"startLine": 1, "endLine": 80}\nThe exporter calls `str()` on a float in `export.py`, so '
        "12500000.0 prints as 1.25e+07. I format it with two decimals.")
    assert r["messages"][4]["content"] == ("[tool: run_in_terminal] pytest -q tests/test_export.py\n"
                                           "All 48 export tests pass.")
    output = r["messages"][5]["content"]
    assert output.startswith("[tool result: run_in_terminal] ============ test session starts")
    assert len(output) <= len("[tool result: run_in_terminal] ") + 301  # cut to --tool-chars
    assert not any("narwhal" in c or "[thinking]" in c for c in contents(r))


def test_left_out_parts_of_a_chat_are_counted() -> None:
    assert skipped(WHOLE) == {"cancelled response": 1, "request undone in VS Code": 1,
                              "request without response": 1, "response part codeblockUri": 1,
                              "response part textEditGroup": 1, "response part undoStop": 1,
                              "thinking": 1}


def test_the_operation_log_is_replayed() -> None:
    r = record(LOG)
    assert r["sessionId"] == "copilot-8d2e4a6c-1f3b-4c5d-8e7f-9a0b1c2d3e4f"
    assert r["title"] == "FX rounding before CHF conversion"  # set by a later entry
    assert (r["date"], r["topics"]) == ("2026-04-03", ["ledger"])
    # the second request was pushed and cut away again before the third was pushed
    assert [m["id"] for m in r["messages"]] == [
        "request_b1", "response_b1", "request_b1-results",
        "request_b3", "response_b3", "request_b3-results"]
    answer = r["messages"][1]["content"]
    # the streamed markdown was replaced by a splice, not appended to
    assert answer.count("Rounding happens in `fx.py`") == 1 and answer.endswith(
        "amounts are rounded half-even to the rappen after conversion.")
    assert r["messages"][1]["time"] == "2026-04-03T08:01:40Z"  # completedAt, set by the log
    assert r["messages"][5]["content"] == "[tool error: copilot_findFiles]"
    assert len(r["messages"][2]["content"]) <= len("[tool result: copilot_readFile] ") + 301
    assert skipped(LOG) == {"log entry at a missing path": 1, "log entry of kind 9": 1,
                            "thinking": 1, "torn last line": 1}


def test_options_keep_thinking_and_cut_tools() -> None:
    whole = contents(record(WHOLE, thinking=True, tool_chars=20))
    assert whole[1].startswith("[thinking] The writer probably calls str() on a float.\n"
                               '[tool: copilot_readFile] {"filePath": "/home/…')
    assert whole[5] == "[tool result: run_in_terminal] ============ test se…"
    log = contents(record(LOG, thinking=True))
    assert log[1].startswith("[thinking] Look for the conversion helper.\n[tool: copilot_readFile]")


def test_a_chat_of_an_early_release() -> None:
    r = record(EARLY_CHAT)
    assert (r["date"], r["title"]) == ("2024-11-20", "What does git rebase --onto do?")
    assert "topics" not in r and "cwd" not in r["origin"]  # an empty window has no folder
    assert [(m["role"], m["content"]) for m in r["messages"]] == [
        ("user", "What does git rebase --onto do?"),
        ("assistant", "It replays the commits after the second argument onto the first one.")]


def test_a_partial_undo_keeps_the_response_up_to_its_stop(tmp_path: Path) -> None:
    chat = json.loads(WHOLE.read_text("utf-8"))
    first = chat["requests"][0]
    first["response"].insert(2, {"kind": "undoStop", "id": "stop_0"})
    first["shouldBeRemovedOnSend"] = {"requestId": "request_a1", "afterUndoStop": "stop_0"}
    path = _write_json(tmp_path / "chatSessions" / "x.json", chat)
    r = record(path)
    assert r["messages"][1]["content"].startswith("[tool: copilot_readFile]")
    assert "exporter" not in r["messages"][1]["content"]
    assert skipped(path)["response part undone"] == 7


@pytest.mark.parametrize("meta,cwd,project", [
    ({"workspace": "file:///home/lin/work/platform.code-workspace"}, "/home/lin/work", "platform"),
    ({"folder": "file:///c%3A/Users/lin/code/shop"}, "c:/Users/lin/code/shop", "shop"),
    ({"folder": "vscode-remote://ssh-remote%2Bbox/srv/api"}, "/srv/api", "api"),
])
def test_the_workspace_folder(tmp_path: Path, meta: dict[str, str], cwd: str,
                              project: str) -> None:
    _write_json(tmp_path / "workspace.json", meta)
    path = _write_json(tmp_path / "chatSessions" / "x.json",
                       json.loads(EARLY_CHAT.read_text("utf-8")))
    r = record(path)
    assert (r["origin"]["cwd"], r["topics"]) == (cwd, [project])
    chat = json.loads(EARLY_CHAT.read_text("utf-8")) | {"workingDirectory": "file:///home/lin/own"}
    _write_json(path, chat)
    assert record(path)["topics"] == ["own"]  # the session's own folder comes first


def test_damaged_logs_are_rejected(tmp_path: Path) -> None:
    lines = LOG.read_text("utf-8").split("\n")
    damaged = tmp_path / "chatSessions" / "x.jsonl"
    damaged.parent.mkdir()
    damaged.write_text("\n".join([lines[0], "{not json", *lines[1:4]]), "utf-8")
    options = ImportOptions(format="copilot")
    with pytest.raises(InvalidSession, match="unreadable JSON on lines"):
        load_file(damaged, damaged.read_bytes(), 10_000_000, options)
    damaged.write_text("\n".join(lines[1:4]), "utf-8")  # the initial entry is missing
    with pytest.raises(InvalidSession, match="before the log's initial entry"):
        read_transcripts(damaged, damaged.read_text("utf-8"), options)
    damaged.write_text('{"type":"message","id":"a","message":{"role":"user"}}\n', "utf-8")
    with pytest.raises(InvalidSession, match="not a Copilot transcript"):
        read_transcripts(damaged, damaged.read_text("utf-8"), options)


def test_replay_follows_vs_code() -> None:
    entries: list[Any] = [
        {"kind": 0, "v": {"sessionId": "s", "requests": [], "title": "a"}},
        {"kind": 2, "k": ["requests"], "v": [{"id": 1, "parts": ["x", "y", "z"]}]},
        {"kind": 1, "k": ["requests", 0, "state"], "v": {"done": True}},
        {"kind": 2, "k": ["requests", 0, "parts"], "v": ["Y"], "i": 1},  # splice from 1
        {"kind": 2, "k": ["requests", 0, "parts"], "i": 4},  # lengthen: JavaScript pads
        {"kind": 2, "k": ["requests", 0, "new"], "v": [1]},  # a push to a missing array
        {"kind": 1, "k": ["requests", 0, "parts", 3], "v": "w"},
        {"kind": 3, "k": ["title"]},
        {"kind": 1, "k": ["nowhere", "deep"], "v": 1},
        "not an entry",
    ]
    counts: Counter[str] = Counter()
    state = replay(list(enumerate(entries, start=1)), counts)
    assert state == {"sessionId": "s", "requests": [
        {"id": 1, "parts": ["x", "Y", None, "w"], "state": {"done": True}, "new": [1]}]}
    assert counts == {"log entry at a missing path": 1, "log line without an entry kind": 1}
    later = replay([(1, entries[0]), (2, {"kind": 0, "v": {"sessionId": "t", "requests": []}})],
                   Counter())
    assert later["sessionId"] == "t"  # a compaction's new initial entry replaces the state
    with pytest.raises(InvalidSession, match="no initial entry"):
        replay([(1, "x")], Counter())


# Copilot CLI ---------------------------------------------------------------------------------

def test_a_cli_session() -> None:
    r = record(CLI)
    assert r["sessionId"] == "copilot-4f8a2c6e-0b1d-4e3f-a5c7-9e1b3d5f7a9c"
    assert (r["channel"], r["date"], r["topics"]) == ("copilot", "2026-04-10", ["infra"])
    assert r["title"] == "Perpetual diff on the logs bucket"  # session.title_changed
    assert r["summary"].startswith("Moved the logs bucket's lifecycle rule")
    assert r["origin"]["agent"] == "copilot" and r["origin"]["cwd"] == "/home/lin/code/infra"
    assert [m["role"] for m in r["messages"]] == ["user", "assistant", "tool", "assistant",
                                                  "user", "assistant", "tool"]
    texts = contents(r)
    assert texts[1] == ('Let me look at the plan.\n[tool: bash] {"command": "terraform plan '
                        '-no-color", "description": "Show the plan"}')  # once, not again from its start
    assert texts[2].startswith("[tool result: bash] terraform plan")
    assert len(texts[2]) <= len("[tool result: bash] ") + 301
    assert texts[6] == "[tool error: bash] Error: acquiring the state lock"
    assert r["messages"][0]["id"] == "e0003-0000-4000-8000-000000000000"
    assert r["messages"][0]["time"] == "2026-04-10T14:00:05.000Z"
    # the rewound exchange, the sub-agent's message and the autopilot prompt are not imported
    assert not any("marmot" in t or "Searching modules" in t or "Continue with" in t
                   for t in texts)


def test_left_out_events_are_counted() -> None:
    assert skipped(CLI) == {
        "compaction": 1, "event assistant.turn_end": 1, "event assistant.turn_start": 1,
        "event assistant.usage": 1, "event session.future_event": 1,
        "event session.model_change": 1, "event session.shutdown": 1,
        "event subagent.started": 1, "prompt the CLI injected": 1, "reasoning": 2,
        "rewound message": 2, "sub-agent event": 1, "tool start repeating a requested call": 1,
        "torn last line": 1}


def test_cli_reasoning_on_request() -> None:
    texts = contents(record(CLI, thinking=True))
    assert "[thinking] A perpetual diff usually means a computed attribute." in texts
    assert any(t.startswith("[thinking] The inline lifecycle_rule is deprecated") for t in texts)


def test_an_early_cli_log_and_odd_ones(tmp_path: Path) -> None:
    r = record(CLI_EARLY)
    assert r["sessionId"] == "copilot-a7c9e1b3-5d7f-4a2c-8e4b-6d8f0a2c4e6a"
    assert contents(r) == ["Which shell am I in?", "zsh 5.9."] and "topics" not in r
    lines = [json.loads(line) for line in CLI.read_text("utf-8").split("\n") if _parses(line)]
    start = next(e for e in lines if e["type"] == "tool.execution_start")
    rewind = {**lines[-1], "type": "session.snapshot_rewind", "data": {"upToEventId": "gone"}}
    path = tmp_path / "session-state" / "s1" / "events.jsonl"
    _write_lines(path, lines[0], start, rewind)
    r = record(path)  # a call no message requested stands on its own
    assert contents(r) == [('[tool: bash] {"command": "terraform plan -no-color", '
                            '"description": "Show the plan"}')]
    assert skipped(path)["rewind to an event not in the file"] == 1
    _write_lines(path, lines[0], lines[-1])
    with pytest.raises(NothingToImport, match="no conversation messages"):
        read_transcripts(path, path.read_text("utf-8"), ImportOptions())


# where they are ------------------------------------------------------------------------------

def test_default_paths_of_every_platform_and_override(tmp_path: Path) -> None:
    home = tmp_path / "home"
    paths = default_paths("copilot", home, {})
    for expected in (home / ".config" / "Code" / "User" / "workspaceStorage",
                     home / "Library" / "Application Support" / "Code - Insiders" / "User"
                     / "globalStorage" / "emptyWindowChatSessions",
                     home / "AppData" / "Roaming" / "VSCodium" / "User" / "workspaceStorage",
                     home / ".copilot" / "session-state"):
        assert expected in paths
    env = {"XDG_CONFIG_HOME": "/x", "APPDATA": "/w", "COPILOT_HOME": "/c"}
    paths = default_paths("copilot", home, env)
    assert Path("/x/Code/User/workspaceStorage") in paths
    assert Path("/w/Code/User/workspaceStorage") in paths
    assert paths[-2:] == [Path("/c/session-state"), Path("/x/.copilot/session-state")]
    assert home / ".copilot" / "session-state" not in paths
    env = {"VSCODE_APPDATA": "/v", "VSCODE_PORTABLE": "/p"}
    paths = default_paths("copilot", home, env)
    assert paths[:2] == [Path("/p/user-data/User/workspaceStorage"),
                         Path("/p/user-data/User/globalStorage/emptyWindowChatSessions")]
    assert [p for p in paths if "Code" in p.parts] == [
        Path("/v/Code/User/workspaceStorage"),
        Path("/v/Code/User/globalStorage/emptyWindowChatSessions")]  # the only base then


def test_candidates_are_the_chats_and_event_logs() -> None:
    roots = default_paths("copilot", Path("/nowhere"), {
        "XDG_CONFIG_HOME": str(COPILOT / "vscode"), "COPILOT_HOME": str(COPILOT / "cli")})
    found = candidate_files("copilot", [p for p in roots if p.exists()])
    assert sorted(found) == sorted([WHOLE, LOG, STALE, EARLY_CHAT, NO_REQUESTS, CLI, CLI_EARLY])
    assert not copilot.is_candidate(STORAGE / "workspace.json")
    assert not copilot.is_candidate(CLI.parent / "workspace.yaml")
    assert not copilot.is_candidate(STATE / "s" / "checkpoints" / "001.json")


# the real pipeline ---------------------------------------------------------------------------

def test_indexed_chats_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "copilot"
    shutil.copytree(COPILOT, source)
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert (report.indexed, report.rejected) == (5, [])
    for query, session in [("scientific notation", WHOLE), ("half-even rappen", LOG),
                           ("lifecycle_rule inline", CLI), ("rebase onto", EARLY_CHAT)]:
        hits = service.search(SearchRequest(query=query, mode="keyword")).results
        assert hits[0].session_id == "copilot-" + (
            session.parent.name if session.name == "events.jsonl" else session.stem), query
    for word in LEFT_OUT:
        assert not service.search(SearchRequest(query=word, mode="keyword")).results, word
    cli = resume_hint(service.session("copilot-4f8a2c6e-0b1d-4e3f-a5c7-9e1b3d5f7a9c"))
    assert (cli.command, cli.cwd) == ("copilot --resume=4f8a2c6e-0b1d-4e3f-a5c7-9e1b3d5f7a9c",
                                      "/home/lin/code/infra")
    chat = resume_hint(service.session("copilot-3b9f7c1e-5a2d-4e8f-9c61-7d0e2f4a6b8c"))
    assert (chat.agent, chat.command, chat.cwd) == ("copilot-vscode", None, "/home/lin/code/ledger")
    assert "VS Code has no command" in chat.note
    again = service.index([source])
    assert again.indexed == 0 and again.rejected == []


def _parses(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return bool(line.strip())


def _write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), "utf-8")
    return path


def _write_lines(path: Path, *items: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(item) + "\n" for item in items), "utf-8")
    return path
