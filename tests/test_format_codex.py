"""The Codex CLI importer: detection, what a rollout keeps and leaves out (every line's fate in
the ledger), the IDE extension's context, legacy and event-only files, odd shapes, and the real
pipeline from the fixture folder to search results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, NothingToImport, detect_format
from indexer.formats.importer import default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.sources import RawSession, load_file, read_transcripts
from models import InvalidSession, SearchRequest

from .helpers import FORMATS, make_service

CODEX = FORMATS / "codex"
DAY = CODEX / "sessions" / "2026" / "03" / "14"
MAIN = DAY / "rollout-2026-03-14T09-12-03-0199a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b.jsonl"
EVENTS = DAY / "rollout-2026-03-14T12-00-00-0199b000-1111-7222-8333-944455566677.jsonl"
LEGACY = CODEX / "archived_sessions" / "rollout-2025-06-02T18-04-11-5f1e2d3c-4b5a-4697-8877-665544332211.jsonl"


def record(path: Path, **options: Any) -> dict[str, Any]:
    raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(**options))
    assert len(raws) == 1 and isinstance(raws[0], RawSession)
    return raws[0].record


@pytest.mark.parametrize("path", [MAIN, EVENTS, LEGACY])
def test_rollouts_are_detected_by_content(path: Path, tmp_path: Path) -> None:
    text = path.read_text("utf-8")
    assert detect_format(path, text) == "codex"
    assert detect_format(tmp_path / "renamed.txt", text) == "codex"


def test_a_rollout_keeps_the_conversation_once_and_tools_compactly() -> None:
    r = record(MAIN)
    assert r["sessionId"] == "codex-0199a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b"
    assert (r["channel"], r["date"], r["topics"]) == ("codex", "2026-03-14", ["ledger"])
    assert r["title"] == "Swiss VAT rounding"  # the thread name, not the first prompt
    assert r["summary"] == "Fixed Swiss VAT rounding to 0.05 CHF in vat.py; tests pass."
    contents = [m["content"] for m in r["messages"]]
    roles = [m["role"] for m in r["messages"]]
    # the user prompt and the final answer once each: the event_msg copies are not imported again
    assert sum("Swiss invoices; fix the rounding" in c for c in contents) == 1
    assert sum(c.startswith("Swiss invoices now round VAT") for c in contents) == 1
    # developer instructions, AGENTS.md and the environment context are Codex's, not the user's
    assert not any("AGENTS.md" in c or "environment_context" in c or "sandbox" in c
                   for c in contents)
    assert roles[0] == "user" and roles.count("user") == 2
    assert '[tool: shell] {"command": ["rg", "-n", "round_vat", "src"]}' in contents
    assert "[tool result: shell] src/ledger/vat.py:41:def round_vat(amount, currency):" in contents
    assert any(c.startswith("[tool: apply_patch] *** Begin Patch") for c in contents)
    assert "[web search] Swiss VAT rounding 0.05 CHF rule" in contents
    test_output = next(c for c in contents if c.startswith("[tool result: shell] test result"))
    assert len(test_output) <= len("[tool result: shell] ") + 301  # cut to --tool-chars
    assert not any(c.startswith("[thinking]") for c in contents)  # reasoning left out
    ids = [m["id"] for m in r["messages"]]
    assert len(set(ids)) == len(ids) and "msg_01" in ids
    assert r["messages"][0]["time"] == "2026-03-14T09:12:04.000Z"


def test_every_line_has_its_fate_in_the_ledger() -> None:
    ledger = Ledger()
    (transcript,) = read_transcripts(MAIN, MAIN.read_text("utf-8"), ImportOptions(), ledger) or []
    totals = ledger.totals()
    assert totals.adds_up() and totals.records == len(MAIN.read_text("utf-8").strip().split("\n"))
    # the session_meta line, the title, the summary and eleven messages
    assert (totals.imported, totals.merged) == (14, 2)
    assert ledger.fate("line 1") is not None and ledger.fate("line 1").reason == "session metadata"
    # the interface's copies of the prompt and the answer name the line they repeat
    assert [(f.where, f.reason) for f in ledger.fates() if f.fate == "merged"] == [
        ("line 7", "the message on line 6"), ("line 18", "the message on line 17")]
    assert totals.left_out == {"context Codex injected": 2, "developer message": 1,
                               "event agent_reasoning": 1, "event context_compacted": 1,
                               "event token_count": 1, "reasoning": 1, "torn last line": 1,
                               "turn context": 1, "unknown line type world_state": 1}
    assert transcript.skipped == totals.left_out


def test_options_keep_reasoning_and_cut_tools() -> None:
    contents = [m["content"] for m in record(MAIN, thinking=True, tool_chars=20)["messages"]]
    assert "[thinking] Looking for the VAT rounding helper." in contents
    assert '[tool: shell] {"command": ["rg", "…' in contents


def test_a_release_that_wrote_only_events_still_imports() -> None:
    r = record(EVENTS)
    assert [(m["role"], m["content"]) for m in r["messages"]] == [
        ("user", "List the open TODOs in notes/."), ("assistant", "There are four: …")]
    assert r["title"] == "List the open TODOs in notes/." and r["topics"] == ["notes"]


def test_a_legacy_rollout_without_envelopes() -> None:
    r = record(LEGACY)
    assert r["sessionId"] == "codex-5f1e2d3c-4b5a-4697-8877-665544332211"
    assert r["date"] == "2025-06-02"
    assert [m["role"] for m in r["messages"]] == ["user", "assistant"]
    assert r["messages"][0]["content"] == "Summarize my reading list into three themes.\n[image]"


def test_damaged_and_empty_rollouts(tmp_path: Path) -> None:
    lines = MAIN.read_text("utf-8").split("\n")
    damaged = tmp_path / "rollout-x.jsonl"  # one damaged line: left out, the session kept
    damaged.write_text("\n".join([lines[0], "{not json", *lines[1:7]]), "utf-8")
    ledger = Ledger()
    (transcript,) = read_transcripts(damaged, damaged.read_text("utf-8"), ImportOptions(),
                                     ledger) or []
    assert [m["role"] for m in transcript.record["messages"]] == ["user"]
    assert ledger.fate("line 2") is not None and ledger.fate("line 2").reason == \
        "damaged line (unreadable JSON)"
    assert ledger.totals().adds_up()
    garbage = tmp_path / "rollout-z.jsonl"  # more damage than lines read: not a rollout
    garbage.write_text("\n".join([lines[0], "{not json", "{nor this", lines[5]]), "utf-8")
    with pytest.raises(InvalidSession, match="unreadable JSON on lines"):
        load_file(garbage, garbage.read_bytes(), 10_000_000, ImportOptions(format="codex"))
    meta_only = tmp_path / "rollout-y.jsonl"
    meta_only.write_text(lines[0] + "\n" + lines[4] + "\n", "utf-8")
    options = ImportOptions(format="codex")
    assert load_file(meta_only, meta_only.read_bytes(), 10_000_000, options) == []
    with pytest.raises(NothingToImport, match="no conversation messages"):
        read_transcripts(meta_only, meta_only.read_text("utf-8"), options)


def envelope(time: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": time, "type": kind, "payload": payload})


# A turn sent from the Codex IDE extension, in the shape its rollouts hold (lines 4 and 5 of a
# real rollout, ~/.codex/sessions/2026/01/14/rollout-2026-01-14T13-00-40-019bbc61-….jsonl: the
# response_item user message and its user_message event, each starting with the extension's
# context); the marker is Codex's own USER_MESSAGE_BEGIN (codex-rs/protocol/src/protocol.rs @
# 001cb8e233f250c7086c791c51390286c087faea).
IDE_TURN = ("# Context from my IDE setup:\n\n## Active file: src/ledger/vat.py\n\n"
            "## Open tabs:\n- vat.py: src/ledger/vat.py\n- export.py: src/ledger/export.py\n\n"
            "## My request for Codex:\nWhy does round_vat keep a Decimal until the end?\n")


def ide_rollout(folder: Path, *, events_only: bool = False) -> Path:
    path = folder / "rollout-2026-01-14T13-00-40-019bbc61-1e43-7ef3-987b-45cb670bb82b.jsonl"
    lines = [envelope("2026-01-14T12:00:40.010Z", "session_meta", {
        "id": "019bbc61-1e43-7ef3-987b-45cb670bb82b", "timestamp": "2026-01-14T12:00:40.000Z",
        "cwd": "/home/lin/code/ledger", "originator": "codex_vscode", "cli_version": "0.78.0"})]
    if not events_only:
        lines.append(envelope("2026-01-14T12:00:40.068Z", "response_item", {
            "type": "message", "role": "user",
            "content": [{"type": "input_text", "text": IDE_TURN}]}))
    lines.append(envelope("2026-01-14T12:00:40.068Z", "event_msg", {
        "type": "user_message", "message": IDE_TURN, "images": []}))
    lines.append(envelope("2026-01-14T12:00:45.000Z", "event_msg", {
        "type": "agent_message", "message": "Rounding a float twice loses the 0.05 step."}))
    if not events_only:
        lines.append(envelope("2026-01-14T12:00:45.001Z", "response_item", {
            "type": "message", "role": "assistant",
            "content": [{"type": "output_text",
                         "text": "Rounding a float twice loses the 0.05 step."}]}))
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


@pytest.mark.parametrize("events_only", [False, True])
def test_the_ide_context_is_not_the_users_words(tmp_path: Path, events_only: bool) -> None:
    path = ide_rollout(tmp_path, events_only=events_only)
    ledger = Ledger()
    (transcript,) = read_transcripts(path, path.read_text("utf-8"), ImportOptions(),
                                     ledger) or []
    r = transcript.record
    assert r["messages"][0]["content"] == "Why does round_vat keep a Decimal until the end?"
    assert r["title"] == "Why does round_vat keep a Decimal until the end?"
    assert not any("IDE setup" in m["content"] or "Open tabs" in m["content"]
                   for m in r["messages"])
    totals = ledger.totals()
    assert totals.adds_up() and totals.parts_left_out == {"IDE context before the user's request": 1}
    # the event copying the wrapped prompt is still recognized as its copy
    assert totals.merged == (0 if events_only else 2)
    assert transcript.skipped == {"IDE context before the user's request": 1}


def test_a_real_rollout_from_the_ide_extension() -> None:
    """A rollout the VS Code extension wrote (originator codex_vscode, Codex 0.39.0)."""
    path = (FORMATS.parent / "real" / "codex" / "sessions" / "2025" / "09" / "19" /
            "test_conversation_codex.jsonl")
    ledger = Ledger()
    (transcript,) = read_transcripts(path, path.read_text("utf-8"), ImportOptions(),
                                     ledger) or []
    r = transcript.record
    prompt = next(m["content"] for m in r["messages"] if m["role"] == "user")
    assert prompt.startswith("幫我檢查一下 go.mod 裡面 為何 go版本是 1.24?")
    assert r["title"] == "幫我檢查一下 go.mod 裡面 為何 go版本是 1.24?"
    totals = ledger.totals()
    assert totals.adds_up() and totals.parts_left_out == {"IDE context before the user's request": 1}
    assert ledger.fate("line 4").reason == "the message on line 3"  # type: ignore[union-attr]


def test_odd_shapes_are_left_out_never_fatal(tmp_path: Path) -> None:
    """Wrong types where Codex writes strings and objects: each line is left out with its
    reason (or kept as far as it reads), and the session is kept."""
    path = tmp_path / "rollout-odd.jsonl"
    odd = [
        {"timestamp": 5, "type": "session_meta", "payload": {"id": ["x"], "cwd": {"a": 1}}},
        {"timestamp": "2026-03-14T09:00:01Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": {"text": "not a list"}}},
        {"timestamp": "2026-03-14T09:00:02Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "id": 7,
                     "content": [{"type": "input_text", "text": "hello"}, 3, None]}},
        {"timestamp": "2026-03-14T09:00:03Z", "type": "response_item",
         "payload": {"type": "function_call", "name": {"n": 1}, "call_id": 9, "arguments": "{"}},
        {"timestamp": "2026-03-14T09:00:04Z", "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": [], "output": {"content": 5}}},
        {"timestamp": "2026-03-14T09:00:05Z", "type": "response_item",
         "payload": {"type": "web_search_call", "action": "search"}},
        {"timestamp": "2026-03-14T09:00:06Z", "type": "event_msg",
         "payload": {"type": "thread_name_updated", "thread_name": None}},
        {"timestamp": "2026-03-14T09:00:07Z", "type": "compacted", "payload": {"message": 3}},
        {"type": ["response_item"], "payload": {}}, "a string line", None,
    ]
    path.write_text("\n".join(json.dumps(i) for i in odd) + "\n", "utf-8")
    ledger = Ledger()
    (transcript,) = read_transcripts(path, path.read_text("utf-8"), ImportOptions(),
                                     ledger) or []
    assert [m["content"] for m in transcript.record["messages"]] == [
        "hello", "[tool: tool] {", "[tool result]"]
    assert [m["id"] for m in transcript.record["messages"]] == ["l3", "l4", "l5"]
    totals = ledger.totals()
    assert totals.adds_up() and totals.records == len(odd)
    assert totals.left_out == {"compaction without summary": 1, "event thread_name_updated": 1,
                               "message left empty": 1, "non-object line": 2,
                               "unknown line type (list)": 1, "web search without query": 1}


def test_default_paths_follow_codex_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert default_paths("codex", home, {}) == [home / ".codex" / "sessions",
                                                home / ".codex" / "archived_sessions"]
    assert default_paths("codex", home, {"CODEX_HOME": "/srv/codex"}) == [
        Path("/srv/codex/sessions"), Path("/srv/codex/archived_sessions")]


def test_indexed_rollouts_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "codex"
    shutil.copytree(CODEX, source)
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert (report.indexed, report.rejected) == (3, [])
    hits = service.search(SearchRequest(query="Swiss VAT rounding", mode="keyword")).results
    assert hits[0].session_id == "codex-0199a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b"
    again = service.index([source])
    assert (again.indexed, again.unchanged) == (0, 3)
