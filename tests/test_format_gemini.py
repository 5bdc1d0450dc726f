"""The Gemini CLI importer: the chat log replayed (rewrites, rewinds, $set), older whole-file
chats, the project name, and the pipeline from the fixture folder to search results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, NothingToImport, detect_format
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.sources import RawSession, load_file, read_transcripts
from models import InvalidSession, SearchRequest

from .helpers import FORMATS, make_service

GEMINI = FORMATS / "gemini"
MAIN = GEMINI / "tmp" / "ledger" / "chats" / "session-2026-03-20T10-00-7c0d2e4f.jsonl"
OLD = GEMINI / "tmp" / ("a1" * 32) / "chats" / "session-2025-11-02T08-00-b2c4d6e8.json"


def record(path: Path, **options: Any) -> dict[str, Any]:
    raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(**options))
    assert len(raws) == 1 and isinstance(raws[0], RawSession)
    return raws[0].record


def test_the_project_list_is_metadata() -> None:
    path = GEMINI / "projects.json"
    assert detect_format(path, path.read_text("utf-8")) == "gemini-projects"
    assert load_file(path, path.read_bytes(), 10_000_000) == []  # nothing to import, no error


@pytest.mark.parametrize("path", [MAIN, OLD])
def test_chats_are_detected_by_content(path: Path, tmp_path: Path) -> None:
    text = path.read_text("utf-8")
    assert detect_format(path, text) == "gemini"
    assert detect_format(tmp_path / "renamed.txt", text) == "gemini"


def test_the_log_is_replayed() -> None:
    r = record(MAIN)
    assert r["sessionId"] == "gemini-7c0d2e4f-6a8b-4c1d-9e3f-5a7b9c1d3e5f"
    assert (r["channel"], r["date"]) == ("gemini", "2026-03-20")
    assert r["topics"] == ["ledger"]  # from projects.json
    assert r["summary"] == "Kept hand-written FX rates; added a freshness test."
    assert r["title"] == "Where do the currency rates in fx.py come from?"
    ids = [m["id"] for m in r["messages"]]
    # m2 was written three times and is read once, as last written; the rewind dropped m3 and m4;
    # the info and error notices and the compression's snapshot are not conversation
    assert ids == ["m1", "m2", "m2-results", "m6", "m7"]
    answer = r["messages"][1]
    assert answer["content"].startswith("They are hard-coded in RATES")
    assert '[tool: read_file] {"absolute_path": "/home/lin/code/ledger/fx.py"}' in answer["content"]
    results = r["messages"][2]
    assert results["role"] == "tool" and results["content"].startswith("[tool result: read_file] RATES =")
    assert len(results["content"]) <= len("[tool result: read_file] ") + 301  # cut to --tool-chars
    assert not any("ECB" in m["content"] for m in r["messages"])


def test_every_line_has_its_fate_in_the_ledger() -> None:
    ledger = Ledger()
    (transcript,) = read_transcripts(MAIN, MAIN.read_text("utf-8"), ImportOptions(),
                                     ledger) or []
    totals = ledger.totals()
    assert totals.adds_up() and totals.records == len(MAIN.read_text().strip().split("\n"))
    assert totals.merged == 2  # two earlier writes of a message, replaced by their last write
    assert totals.left_out == {"error message (a notice, not conversation)": 1,
                               "info message (a notice, not conversation)": 1,
                               "rewind marker (applied)": 1, "rewound message": 2,
                               "torn last line": 1}
    assert totals.parts_left_out == {"context checkpoint message": 1, "thought": 1}
    assert transcript.skipped == {**totals.left_out, **totals.parts_left_out}


def test_thoughts_on_request() -> None:
    answer = record(MAIN, thinking=True)["messages"][1]["content"]
    assert answer.startswith("[thinking] Reading fx.py: The rates may be hard-coded.")


def test_an_older_whole_file_chat() -> None:
    r = record(OLD)
    assert r["sessionId"] == "gemini-b2c4d6e8-0a1b-4c3d-8e5f-7a9b1c3d5e7f"
    assert "topics" not in r  # its folder is a hash of a path projects.json does not name
    assert [m["content"] for m in r["messages"]][1].startswith("How about 'ledgerly'?")


def test_rewinding_to_an_unknown_message_drops_them_all(tmp_path: Path) -> None:
    lines = MAIN.read_text("utf-8").split("\n")
    path = tmp_path / "chats" / "session-x.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join([*lines[:4], json.dumps({"$rewindTo": "nope"}), ""]), "utf-8")
    with pytest.raises(NothingToImport, match="rewound message"):
        read_transcripts(path, path.read_text("utf-8"), ImportOptions(format="gemini"))
    path.write_text(json.dumps({"id": "m1", "type": "user", "content": "hi"}) + "\n", "utf-8")
    with pytest.raises(InvalidSession, match="no line with sessionId and projectHash"):
        read_transcripts(path, path.read_text("utf-8"), ImportOptions(format="gemini"))


def test_default_location_and_candidates(tmp_path: Path) -> None:
    assert default_paths("gemini", tmp_path, {}) == [tmp_path / ".gemini" / "tmp"]
    found = candidate_files("gemini", [GEMINI])
    assert sorted(p.name for p in found) == [OLD.name, MAIN.name]  # not projects.json


def test_indexed_chats_are_searchable(tmp_path: Path) -> None:
    source = tmp_path / "gemini"
    shutil.copytree(GEMINI, source)
    service = make_service(tmp_path / "home")
    report = service.index([source / "tmp"])
    assert (report.indexed, report.rejected) == (2, [])
    hits = service.search(SearchRequest(query="hand-written rates freshness test",
                                        mode="keyword")).results
    assert hits[0].session_id == "gemini-7c0d2e4f-6a8b-4c1d-9e3f-5a7b9c1d3e5f"
    assert not service.search(SearchRequest(query="ECB", mode="keyword")).results  # rewound
