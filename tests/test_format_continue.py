"""The Continue importer: a session file's history (tool calls and their output, thinking and
reasoning, context items left out), the session list beside them as metadata, the date from
the list, and the pipeline from the fixture folder to search results."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, NothingToImport, continuedev, detect_format
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.resume import resume_hint
from indexer.formats.sources import RawSession, load_file, normalize
from models import InvalidSession, SearchRequest

from .helpers import FORMATS, make_service

SESSIONS = FORMATS / "continue" / "sessions"
MAIN_ID = "4e1b7c2a-93d0-4f6e-8a51-0c2d9e7f3b18"
HAIKU_ID = "9a0f3e6d-2c1b-4a7e-b5d4-6f8e0a1c3d27"
MAIN = SESSIONS / f"{MAIN_ID}.json"
HAIKU = SESSIONS / f"{HAIKU_ID}.json"
INDEX = SESSIONS / "sessions.json"


def record(path: Path, ledger: Ledger | None = None, **options: Any) -> dict[str, Any]:
    raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(**options), ledger)
    assert len(raws) == 1 and isinstance(raws[0], RawSession)
    return raws[0].record


def test_sessions_are_detected_by_content_and_the_list_is_metadata(tmp_path: Path) -> None:
    for path in (MAIN, HAIKU):
        assert detect_format(path, path.read_text("utf-8")) == "continue"
        assert detect_format(tmp_path / "x.json", path.read_text("utf-8")) == "continue"
    assert detect_format(INDEX, INDEX.read_text("utf-8")) == "continue-index"
    assert load_file(INDEX, INDEX.read_bytes(), 10_000_000) == []  # nothing to import, no error
    with pytest.raises(NothingToImport, match="session list"):
        continuedev.parse_value(INDEX, json.loads(INDEX.read_text("utf-8")), ImportOptions(),
                                Ledger())


def test_a_session_is_read_with_its_tools_and_without_its_context() -> None:
    r = record(MAIN)
    assert r["sessionId"] == f"continue-{MAIN_ID}"
    assert (r["channel"], r["date"], r["topics"]) == ("continue", "2026-03-20", ["billing"])
    assert r["title"] == "Why does the invoice total round down?"
    assert r["origin"]["cwd"] == "/home/lin/code/billing"  # from the file:// URI
    assert [(m["id"], m["role"]) for m in r["messages"]] == [
        ("h1", "user"), ("h3", "assistant"), ("h4", "tool"), ("h5", "assistant"), ("h6", "tool"),
        ("h7", "user"), ("h11", "user"), ("h12", "assistant")]
    contents = [m["content"] for m in r["messages"]]
    assert contents[1] == ('Let me look at how total() is called.\n'
                           '[tool: grep_search] {"query": "total("}')
    assert contents[2].startswith("[tool result: grep_search] billing/invoice.py:12")
    assert contents[4] == "[tool error: run_terminal_command] FAILED tests/test_invoice.py::" \
                          "test_rounding"
    assert contents[5] == "[image]"
    assert not any("def total" in c or "int() truncates" in c for c in contents)  # context
    assert r["messages"][1]["time"] == "2026-03-20T09:30:00+00:00"  # the reasoning's start


def test_every_item_has_its_fate_in_the_ledger() -> None:
    ledger = Ledger()
    record(MAIN, ledger)
    totals = ledger.totals()
    assert totals.adds_up() and (totals.records, totals.imported) == (12, 8)
    assert totals.left_out == {"history item without message": 1, "message left empty": 1,
                               "message role critic": 1, "thinking message": 1}
    assert totals.parts_left_out == {"compaction summary": 1, "context item": 2, "reasoning": 1}


def test_thinking_on_request() -> None:
    messages = record(MAIN, thinking=True)["messages"]
    assert [m["id"] for m in messages][:3] == ["h1", "h2", "h3"]
    assert messages[1]["content"] == "[thinking] The int() call truncates; check the callers."
    assert messages[2]["content"].startswith("[thinking] int() truncates toward zero.\n")


def test_a_placeholder_title_and_a_session_the_list_does_not_name() -> None:
    r = record(HAIKU)
    assert r["title"] == "Write a haiku about ledgers."  # "New Session" is no title
    assert r["date"] == "2026-03-21"  # not in sessions.json: the reasoning's start
    assert r["origin"]["cwd"] == "/home/lin/code/billing"


def test_the_file_time_dates_a_session_with_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "s1.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"sessionId": "s1", "title": "t", "workspaceDirectory":
                                "file:///c%3A/Repos/Reborn", "history": [
                                    {"message": {"role": "user", "content": "hi", "id": "u1"},
                                     "contextItems": []}]}), "utf-8")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    r = record(path)
    assert r["date"] == "2023-11-14" and r["messages"][0]["id"] == "u1"
    assert r["origin"]["cwd"] == "c:/Repos/Reborn" and r["topics"] == ["Reborn"]


def test_what_is_not_a_session_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidSession, match="not a Continue session"):
        continuedev.parse_value(tmp_path / "x.json", {"sessionId": "s"}, ImportOptions(),
                                Ledger())
    empty = {"sessionId": "s", "title": "t", "workspaceDirectory": "", "history": []}
    with pytest.raises(NothingToImport, match="no conversation messages"):
        continuedev.parse_value(tmp_path / "x.json", empty, ImportOptions(), Ledger())


def test_default_locations_candidates_and_resume(tmp_path: Path) -> None:
    assert default_paths("continue", tmp_path, {}) == [tmp_path / ".continue" / "sessions"]
    assert default_paths("continue", tmp_path, {"CONTINUE_GLOBAL_DIR": "/c"}) == [
        Path("/c/sessions")]
    assert sorted(candidate_files("continue", [SESSIONS])) == sorted([MAIN, HAIKU])
    session, _, _ = normalize(record(MAIN), None)
    hint = resume_hint(session)
    assert (hint.command, hint.cwd) == (f"cn --fork {MAIN_ID}", "/home/lin/code/billing")


def test_a_damaged_session_is_rejected_while_the_batch_goes_on(tmp_path: Path) -> None:
    source = tmp_path / "sessions"
    shutil.copytree(SESSIONS, source)
    broken = source / "0b1c2d3e.json"
    broken.write_text(MAIN.read_text("utf-8")[:900], "utf-8")  # cut short by a crash
    report = make_service(tmp_path / "home").index([source])
    assert report.indexed == 2
    (rejected,) = report.rejected
    assert rejected.path == str(broken) and "invalid JSON" in rejected.reason


def test_indexed_sessions_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "sessions"
    shutil.copytree(SESSIONS, source)
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert (report.indexed, report.rejected) == (2, [])
    hits = service.search(SearchRequest(query="Decimal quantize", mode="keyword")).results
    assert hits[0].session_id == f"continue-{MAIN_ID}"
    again = service.index([source])
    assert (again.indexed, again.unchanged) == (0, 3)  # the two sessions and sessions.json
