"""The Codex CLI importer: detection, what a rollout keeps and leaves out, legacy and event-only
files, and the real pipeline from the fixture folder to search results."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, NothingToImport, detect_format
from indexer.formats.importer import default_paths
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


def test_left_out_lines_are_counted() -> None:
    (transcript,) = read_transcripts(MAIN, MAIN.read_text("utf-8"), ImportOptions()) or []
    skipped = transcript.skipped
    assert skipped["developer message"] == 1
    assert skipped["context Codex injected"] == 2
    assert skipped["reasoning"] == 1
    assert skipped["event copying a message"] == 2
    assert skipped["compaction"] == 1 and skipped["turn context"] == 1
    assert skipped["unknown line type world_state"] == 1
    assert skipped["torn last line"] == 1


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
    damaged = tmp_path / "rollout-x.jsonl"
    lines = MAIN.read_text("utf-8").split("\n")
    damaged.write_text("\n".join([lines[0], "{not json", *lines[1:5]]), "utf-8")
    with pytest.raises(InvalidSession, match="unreadable JSON on lines"):
        load_file(damaged, damaged.read_bytes(), 10_000_000, ImportOptions(format="codex"))
    meta_only = tmp_path / "rollout-y.jsonl"
    meta_only.write_text(lines[0] + "\n" + lines[4] + "\n", "utf-8")
    options = ImportOptions(format="codex")
    assert load_file(meta_only, meta_only.read_bytes(), 10_000_000, options) == []
    with pytest.raises(NothingToImport, match="no conversation messages"):
        read_transcripts(meta_only, meta_only.read_text("utf-8"), options)


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
