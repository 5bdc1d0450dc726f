"""The GitHub Copilot importer: VS Code chats written whole, exported and as an operation log
(replayed), their workspace folder, Copilot CLI event logs and the older CLI's sessions, the
fate of every record (the ledger), detection, default locations, and the real pipeline from the
fixture folder to search results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, NothingToImport, copilot, detect_format
from indexer.formats.copilot.oplog import replay
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import UNACCOUNTED, Ledger
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
HISTORY = (COPILOT / "cli" / "history-session-state"
           / "session_2c4e6a8c-0e2f-4a6c-8e0a-2c4e6a8c0e2f_1759556150000.json")
EXPORT = COPILOT / "export" / "chat.json"
SESSIONS = [WHOLE, LOG, EARLY_CHAT, CLI, CLI_EARLY, HISTORY, EXPORT]
LEFT_OUT = ("narwhal", "heron", "marmot", "zebra")  # undone, removed, rewound, a stale copy


def record(path: Path, **options: Any) -> dict[str, Any]:
    raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(**options))
    assert len(raws) == 1 and isinstance(raws[0], RawSession)
    return raws[0].record


def skipped(path: Path, **options: Any) -> dict[str, int]:
    (transcript,) = read_transcripts(path, path.read_text("utf-8"), ImportOptions(**options)) or []
    return transcript.skipped


def ledger_of(path: Path, **options: Any) -> Ledger:
    """The ledger of reading `path`: every record has a fate, and they add up."""
    ledger = Ledger()
    read_transcripts(path, path.read_text("utf-8"), ImportOptions(**options), ledger)
    totals = ledger.totals()
    assert totals.adds_up() and UNACCOUNTED not in totals.left_out, totals
    return ledger


def reasons(ledger: Ledger) -> dict[str, str]:
    """place -> fate (`imported`, `merged`) or the reason it was left out."""
    return {f.where: f.reason if f.fate == "left out" else f.fate for f in ledger.fates()}


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
    tests = [(f.name, test) for f in REGISTRY if f is not copilot.FORMAT
             for test in (f.sniff_line, f.sniff_header) if test is not None]
    assert len(tests) >= 5
    for name, test in tests:
        assert not [item for item in ours if test(item)], name


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


def test_every_request_of_a_chat_has_its_fate() -> None:
    ledger = ledger_of(WHOLE)
    assert reasons(ledger) == {"requests[0]": "imported", "requests[1]": "imported",
                               "requests[2]": "imported",  # its prompt, without an answer
                               "requests[3]": "request undone in VS Code"}
    assert ledger.totals().parts_left_out == {
        "cancelled response": 1, "request without response": 1, "response part codeblockUri": 1,
        "response part textEditGroup": 1, "response part undoStop": 1, "thinking": 1}
    assert skipped(WHOLE) == {**ledger.totals().left_out, **ledger.totals().parts_left_out}


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


def test_each_line_of_the_log_shares_the_fate_of_what_it_changed() -> None:
    ledger = ledger_of(LOG)
    removed = "request removed from the chat (undone or edited)"
    assert reasons(ledger) == {
        "line 1": "imported",  # the initial state
        "line 2": "imported", **dict.fromkeys([f"line {n}" for n in (3, 4, 5, 6)], "merged"),
        "line 7": "merged",  # the title: the chat's state
        "line 8": "the input box's draft (not sent)",
        "line 9": removed, "line 10": removed,  # a request pushed, then cut away again
        "line 11": "imported", "line 12": "merged", "line 13": "log entry of kind 9",
        "line 14": "merged", "line 15": "log entry at a missing path",
        "line 16": "torn last line"}
    assert ledger.fate("line 11").reason == "requests[1]"  # type: ignore[union-attr]
    assert ledger.fate("line 12").reason == "requests[1], begun on line 11"  # type: ignore[union-attr]
    assert ledger.totals().parts_left_out == {"thinking": 1}


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


def test_an_exported_chat_is_read_as_a_chat() -> None:
    # "Chat: Export Chat..." writes IExportableChatData: no sessionId, so it was once refused as
    # "not an archived session: expected an object with a 'messages' list"
    value = json.loads(EXPORT.read_text("utf-8"))
    assert "sessionId" not in value and detect_format(EXPORT, EXPORT.read_text("utf-8")) == "copilot"
    r = record(EXPORT)
    assert r["sessionId"] == "copilot-export-request_e1"  # its first request's id: stable
    assert r["origin"]["agent"] == "copilot-vscode" and "cwd" not in r["origin"]
    assert r["date"] == "2026-04-06"
    # the screenshot pasted alone is kept; the first prompt with words names the chat
    assert [(m["role"], m["content"][:20]) for m in r["messages"]] == [
        ("user", "[image]"), ("assistant", "The stack trace in y"),
        ("user", "Strip the apostrophe"), ("assistant", "Done: `parse_amount`")]
    assert r["title"] == "Strip the apostrophe separator before parsing."
    assert reasons(ledger_of(EXPORT)) == {"requests[0]": "imported", "requests[1]": "imported"}


def test_an_export_without_request_ids_or_times(tmp_path: Path) -> None:
    # the oldest exports: prompts as strings, no requestId, no timestamps
    chat = {"requesterUsername": "lin", "responderUsername": "GitHub Copilot", "requests": [
        {"message": "What is a monad?", "response": [{"value": "A way to chain computations."}]}]}
    first, second = (_write_json(tmp_path / name, chat) for name in ("chat.json", "other.json"))
    ids = {record(path)["sessionId"] for path in (first, second)}
    assert len(ids) == 1 and ids.pop().startswith("copilot-export-")  # from the content, not the name
    assert record(first)["date"]  # the file's own time, when nothing in it has one
    with pytest.raises(InvalidSession, match="not a VS Code chat session"):
        load_file(first, b'{"requests": []}', 10_000_000, ImportOptions(format="copilot"))


def test_images_attached_to_a_prompt_stand_as_markers(tmp_path: Path) -> None:
    chat = json.loads(EARLY_CHAT.read_text("utf-8"))
    request = chat["requests"][0]
    request["message"] = ""
    # an image flagged isImage (before the variable kinds; tolerated, see copilot/vscode.py)
    request["variableData"] = {"variables": [
        {"id": "vscode.image", "name": "screenshot.png", "isImage": True, "value": {"0": 1}},
        {"kind": "file", "id": "file", "name": "fx.py", "value": {"path": "/home/lin/fx.py"}}]}
    r = record(_write_json(tmp_path / "chatSessions" / "x.json", chat))
    assert r["messages"][0] == {"id": "request-0", "role": "user", "content": "[image]"}


def test_a_request_of_the_wrong_shape_costs_only_itself(tmp_path: Path) -> None:
    chat = json.loads(WHOLE.read_text("utf-8"))
    chat["requests"][1:1] = [None, "text", {"requestId": 7, "message": {"text": 5}}]
    chat["pendingRequests"] = [{"request": {"message": {"text": "queued"}}}]
    path = _write_json(tmp_path / "chatSessions" / "x.json", chat)
    ledger = ledger_of(path)
    assert reasons(ledger) == {
        "pendingRequests[0]": "queued request not sent", "requests[0]": "imported",
        "requests[1]": "unreadable request", "requests[2]": "unreadable request",
        "requests[3]": "request without text or response", "requests[4]": "imported",
        "requests[5]": "imported", "requests[6]": "request undone in VS Code"}
    assert len(record(path)["messages"]) == 7


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


def test_a_damaged_line_costs_only_itself_and_a_log_without_its_state_is_rejected(
        tmp_path: Path) -> None:
    lines = LOG.read_text("utf-8").split("\n")
    damaged = tmp_path / "chatSessions" / "x.jsonl"
    damaged.parent.mkdir()
    damaged.write_text("\n".join([lines[0], "{not json", *lines[1:4]]), "utf-8")
    options = ImportOptions(format="copilot")
    ledger = Ledger()
    (raw,) = load_file(damaged, damaged.read_bytes(), 10_000_000, options, ledger)
    assert isinstance(raw, RawSession) and raw.record["messages"][0]["id"] == "request_b1"
    assert ledger.fate("line 2").reason == "damaged line (unreadable JSON)"  # type: ignore[union-attr]
    damaged.write_text("\n".join(lines[1:4]), "utf-8")  # the initial entry is missing
    with pytest.raises(InvalidSession, match=r"no initial entry .line 1 is a change before"):
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
    ledger = Ledger()
    log = replay(list(enumerate(entries, start=1)), ledger)
    assert log.state == {"sessionId": "s", "requests": [
        {"id": 1, "parts": ["x", "Y", None, "w"], "state": {"done": True}, "new": [1]}]}
    assert (log.made_by, log.changed_by) == (["line 2"], [[f"line {n}" for n in range(3, 8)]])
    assert ledger.left_out_reasons() == {"log entry at a missing path": 1,
                                         "log line without an entry kind": 1,
                                         "change to the chat's title (not kept)": 1}
    ledger = Ledger()
    later = replay([(1, entries[0]), (2, {"kind": 0, "v": {"sessionId": "t", "requests": []}})],
                   ledger)
    assert later.state["sessionId"] == "t"  # a compaction's new initial entry replaces the state
    assert ledger.fate("line 1").fate == "merged"  # type: ignore[union-attr]
    with pytest.raises(InvalidSession, match="no initial entry"):
        replay([(1, "x")], Ledger())


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


def test_every_event_has_its_fate() -> None:
    ledger = ledger_of(CLI)
    totals = ledger.totals()
    assert (totals.records, totals.imported, totals.merged) == (25, 10, 1)
    assert totals.left_out == {
        "event assistant.turn_end": 1, "event assistant.turn_start": 1,
        "event assistant.usage": 1, "event session.future_event": 1,
        "event session.model_change": 1, "event session.shutdown": 1,
        "event subagent.started": 1, "prompt the CLI injected": 1, "reasoning": 1,
        "rewind marker (applied)": 1, "rewound message": 2, "sub-agent event": 1,
        "torn last line": 1}
    assert totals.parts_left_out == {"reasoning": 1}  # a message's own reasoning text
    fates = reasons(ledger)
    # the tool start repeats the call the message on line 6 requested
    assert fates["line 7"] == "merged"
    assert ledger.fate("line 7").reason == "the tool call requested on line 6"  # type: ignore[union-attr]
    assert ledger.fate("line 13").reason == "the session's title"  # type: ignore[union-attr]
    assert ledger.fate("line 22").reason == "the session's summary"  # type: ignore[union-attr]


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
    assert ledger_of(path).left_out_reasons()["rewind to an event not in the file"] == 1
    _write_lines(path, lines[0], lines[-1])
    with pytest.raises(NothingToImport, match="no conversation messages"):
        read_transcripts(path, path.read_text("utf-8"), ImportOptions())


def test_an_older_cli_session_is_read_from_its_timeline() -> None:
    r = record(HISTORY)
    assert r["sessionId"] == "copilot-2c4e6a8c-0e2f-4a6c-8e0a-2c4e6a8c0e2f"
    assert (r["date"], r["origin"]["agent"]) == ("2025-10-04", "copilot")
    assert r["title"] == "Why does `make plan` fail on the staging workspace?"  # as typed
    assert [(m["id"], m["role"], m["content"][:24]) for m in r["messages"]] == [
        ("t1", "user", "Why does `make plan` fai"),
        ("t2", "assistant", "Let me run the plan and "),
        ("t3", "assistant", '[tool: bash] {"command":'),
        ("t4", "tool", "[tool error: bash] Error"),
        ("t6", "user", "[image]"),  # a screenshot sent alone
        ("t7", "assistant", "The screenshot shows an ")]
    assert r["messages"][0]["time"] == "2025-10-04T05:35:56.461Z"
    ledger = ledger_of(HISTORY)
    fates = reasons(ledger)
    assert fates["timeline[4]"] == "info entry (a notice, not conversation)"
    # the model's copy of the conversation: merged into what the timeline shows, the rest out
    assert {k: v for k, v in fates.items() if k.startswith("chatMessages")} == {
        "chatMessages[0]": "system prompt", "chatMessages[1]": "merged",
        "chatMessages[2]": "merged", "chatMessages[3]": "merged",
        "chatMessages[4]": "model context the timeline does not show"}
    assert ledger.fate("chatMessages[3]").reason == "timeline[3] (the model's copy of it)"  # type: ignore[union-attr]
    assert ledger.totals().parts_left_out == {"prompt expanded from what the user typed": 1}


def test_an_older_cli_session_without_a_timeline_is_read_from_its_chat_messages(
        tmp_path: Path) -> None:
    value = json.loads(HISTORY.read_text("utf-8"))
    value["timeline"] = [value["timeline"][4], "junk"]  # an info notice, and no conversation
    path = _write_json(tmp_path / "history-session-state" / HISTORY.name, value)
    r = record(path)
    assert [m["content"][:30] for m in r["messages"]] == [
        "Why does `make plan` fail on t", "Let me run the plan and read t",
        "[tool result: bash] Error: No ", "<reminder>Keep answers short.<"]
    assert "\n[tool: bash]" in r["messages"][1]["content"]
    assert reasons(ledger_of(path))["timeline[1]"] == "unreadable timeline entry"


def test_a_cli_prompt_with_only_a_screenshot(tmp_path: Path) -> None:
    lines = [json.loads(line) for line in CLI_EARLY.read_text("utf-8").split("\n") if _parses(line)]
    # a pasted image is a blob attachment (copilot-sdk session-events.ts AttachmentBlob)
    lines[1]["data"] = {"content": "", "attachments": [
        {"type": "blob", "mimeType": "image/png", "displayName": "Pasted image"},
        {"type": "file", "path": "/home/lin/notes.md", "displayName": "notes.md"}]}
    path = _write_lines(tmp_path / "session-state" / "s2" / "events.jsonl", *lines)
    assert contents(record(path)) == ["[image]", "zsh 5.9."]


REAL = FORMATS.parent / "real" / "copilot"
REAL_SAMPLES = json.loads((REAL / "MANIFEST.json").read_text("utf-8"))["samples"] \
    if (REAL / "MANIFEST.json").is_file() else []


@pytest.mark.parametrize("sample", REAL_SAMPLES, ids=lambda s: Path(s["file"]).name)
def test_real_transcripts_give_what_a_hand_count_of_them_gives(sample: dict[str, Any]) -> None:
    """Files Copilot wrote (tests/data/real/copilot, each with its source and licence): the
    sessions, records and messages recall reads match the counts made by hand."""
    path = REAL / sample["file"]
    ledger = Ledger()
    transcripts = read_transcripts(path, path.read_text("utf-8"), ImportOptions(), ledger) or []
    totals = ledger.totals()
    assert totals.adds_up() and UNACCOUNTED not in totals.left_out
    count = sample["hand_count"]
    roles: dict[str, int] = {}
    for transcript in transcripts:
        for message in transcript.record["messages"]:
            roles[message["role"]] = roles.get(message["role"], 0) + 1
    assert (len(transcripts), totals.records, sum(roles.values())) == (
        count["sessions"], count["records"], count["messages"])
    assert roles == {role: n for role, n in count["by_role"].items() if n}
    assert totals.merged == sum(sample.get("merged", {}).values())


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
    assert paths[-4:] == [Path("/c/session-state"), Path("/x/.copilot/session-state"),
                          Path("/c/history-session-state"),
                          Path("/x/.copilot/history-session-state")]
    assert home / ".copilot" / "session-state" not in paths
    assert home / ".copilot" / "history-session-state" in default_paths("copilot", home, {})
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
    # an exported chat is wherever the user saved it: read when named, never looked for
    assert sorted(found) == sorted([WHOLE, LOG, STALE, EARLY_CHAT, NO_REQUESTS, CLI, CLI_EARLY,
                                    HISTORY])
    assert not copilot.is_candidate(STORAGE / "workspace.json")
    assert not copilot.is_candidate(CLI.parent / "workspace.yaml")
    assert not copilot.is_candidate(STATE / "s" / "checkpoints" / "001.json")


# the real pipeline ---------------------------------------------------------------------------

def test_indexed_chats_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "copilot"
    shutil.copytree(COPILOT, source)
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert (report.indexed, report.rejected) == (7, [])
    for query, session_id in [
            ("scientific notation", WHOLE.stem), ("half-even rappen", LOG.stem),
            ("lifecycle_rule inline", CLI.parent.name), ("rebase onto", EARLY_CHAT.stem),
            ("ocelot credential", "2c4e6a8c-0e2f-4a6c-8e0a-2c4e6a8c0e2f"),
            ("apostrophe separator", "export-request_e1")]:
        hits = service.search(SearchRequest(query=query, mode="keyword")).results
        assert hits[0].session_id == f"copilot-{session_id}", query
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
