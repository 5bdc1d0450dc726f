"""The Amp importer: a thread file's messages, tool calls and results (Amp's run shape and the
API's), thinking on request, what is left out, and the pipeline from the fixture folder to
search results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, NothingToImport, detect_format
from indexer.formats.amp import FORMAT
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.sources import RawSession, load_file, normalize, read_transcripts
from models import InvalidSession, SearchRequest, parse_time

from .helpers import FORMATS, make_service

THREADS = FORMATS / "amp" / "threads"
MAIN = THREADS / "T-019cf0a1-2b3c-7d4e-8f50-617283940001.json"
UNTITLED = THREADS / "T-019cf0a1-2b3c-7d4e-8f50-617283940002.json"
EMPTY = THREADS / "T-019cf0a1-2b3c-7d4e-8f50-617283940003.json"


def record(path: Path, **options: Any) -> dict[str, Any]:
    raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(**options))
    assert len(raws) == 1 and isinstance(raws[0], RawSession)
    return raws[0].record


def test_threads_are_recognized_by_content(tmp_path: Path) -> None:
    for path in (MAIN, UNTITLED, EMPTY):
        text = path.read_text("utf-8")
        assert detect_format(path, text) == "amp"
        assert detect_format(tmp_path / "renamed.json", text) == "amp"
    # an id that is not a thread's is not taken for one
    assert detect_format(tmp_path / "x.json", json.dumps(
        {"id": "abc", "created": 1, "messages": []})) == "json"


def test_a_thread_becomes_one_session() -> None:
    r = record(MAIN)
    assert r["sessionId"] == "amp-T-019cf0a1-2b3c-7d4e-8f50-617283940001"
    assert (r["channel"], r["date"], r["title"]) == ("amp", "2026-03-14", "Fix Swiss VAT rounding")
    assert r["topics"] == ["ledger app"] and r["origin"]["cwd"] == "/home/lin/code/ledger app"
    assert r["origin"]["id"] == "T-019cf0a1-2b3c-7d4e-8f50-617283940001"
    assert [(m["id"], m["role"]) for m in r["messages"]] == [
        ("m0", "user"), ("m1", "assistant"), ("m2-results", "tool"), ("m3", "assistant"),
        ("m4-results", "tool"), ("m5", "assistant"), ("m6", "user"), ("m8", "assistant"),
        ("m9-results", "tool")]
    messages = {m["id"]: m for m in r["messages"]}
    assert messages["m0"]["time"] == "2026-03-14T09:12:04Z"  # meta.sentAt
    assert messages["m1"]["time"] == "2026-03-14T09:12:10.000Z"  # usage.timestamp
    assert messages["m1"]["content"] == ('Let me run the tests first.\n[tool: Bash] {"cmd": '
                                         '"uv run pytest -q", "cwd": "/home/lin/code/ledger app"}')
    bash = messages["m2-results"]["content"]
    assert bash.startswith("[tool result: Bash] test result: 212 passed")
    assert len(bash) <= len("[tool result: Bash] ") + 301  # cut to --tool-chars
    assert messages["m4-results"]["content"] == (
        "[tool result: edit_file] -round(a, 2)\n+round_to_step(a, 0.05)\n"
        "[tool error: painter] Save path already exists\n"
        "[tool error: Read] user pressed esc")
    assert messages["m6"]["content"] == "[image]"  # a screenshot pasted alone
    assert messages["m9-results"]["content"] == "[tool result: grep] vat.py:41: def round_vat(a):"
    assert "bookkeeping" not in json.dumps(r)


def test_every_message_has_its_fate() -> None:
    ledger = Ledger()
    (transcript,) = read_transcripts(MAIN, MAIN.read_text("utf-8"), ImportOptions(), ledger) or []
    totals = ledger.totals()
    assert totals.adds_up() and totals.records == 12 and totals.imported == 9
    assert totals.left_out == {"message left empty": 1,  # only redacted thinking
                               "supervisor message (not conversation)": 1,
                               "unreadable message (not an object)": 1}
    assert totals.parts_left_out == {"redacted_thinking block": 1, "thinking": 1}
    assert transcript.skipped == {**totals.left_out, **totals.parts_left_out}


def test_thinking_on_request() -> None:
    answer = record(MAIN, thinking=True)["messages"][1]["content"]
    assert answer.startswith("[thinking] round_vat is the likely culprit.\nLet me run")
    assert "[thinking]" not in json.dumps(record(MAIN))


def test_a_thread_without_title_env_or_message_ids() -> None:
    r = record(UNTITLED)
    assert r["title"] == "What does the ledger CLI's --dry-run flag do?"
    assert [m["id"] for m in r["messages"]] == ["m0", "m1"]
    assert r["date"] == "2026-02-08" and "topics" not in r and "cwd" not in r["origin"]


def test_an_empty_thread_has_nothing_to_import() -> None:
    with pytest.raises(NothingToImport):
        read_transcripts(EMPTY, EMPTY.read_text("utf-8"), ImportOptions(format="amp"))
    assert load_file(EMPTY, EMPTY.read_bytes(), 10_000_000) == []


def test_a_thread_without_its_creation_time_is_dated_by_its_file(tmp_path: Path) -> None:
    path = tmp_path / "T-7a7a.json"
    path.write_text(json.dumps({"v": 3, "id": "T-7a7a", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hello"}]}]}), "utf-8")
    r = record(path)
    assert r["date"] == str(parse_time(path.stat().st_mtime))[:10]


def test_a_document_that_is_not_a_thread_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "T-x.json"
    path.write_text(json.dumps({"id": "T-x", "messages": "no"}), "utf-8")
    with pytest.raises(InvalidSession, match="not an Amp thread"):
        read_transcripts(path, path.read_text("utf-8"), ImportOptions(format="amp"))


def test_a_damaged_thread_is_refused_with_its_reason_and_the_batch_goes_on(tmp_path: Path) -> None:
    source = tmp_path / "threads"
    shutil.copytree(THREADS, source)
    damaged = source / "T-019cf0a1-2b3c-7d4e-8f50-6172839400ff.json"
    damaged.write_text(MAIN.read_text("utf-8")[:500], "utf-8")  # cut off mid-write
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert report.indexed == 2
    ((rejected),) = report.rejected
    assert rejected.path == str(damaged) and "invalid JSON" in rejected.reason


def test_default_location_candidates_and_resume(tmp_path: Path) -> None:
    assert default_paths("amp", tmp_path, {}) == [tmp_path / ".local" / "share" / "amp" / "threads"]
    assert default_paths("amp", tmp_path, {"XDG_DATA_HOME": "/data"}) == [
        Path("/data/amp/threads")]
    found = candidate_files("amp", [FORMATS / "amp"])
    assert sorted(p.name for p in found) == sorted(p.name for p in (MAIN, UNTITLED, EMPTY))
    assert FORMAT.resume.command == "amp threads continue {id}"


def test_indexed_threads_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "amp"
    shutil.copytree(FORMATS / "amp", source)
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert (report.indexed, report.rejected) == (2, [])
    hits = service.search(SearchRequest(query="Save path already exists", mode="keyword")).results
    assert hits[0].session_id == "amp-T-019cf0a1-2b3c-7d4e-8f50-617283940001"
    assert service.index([source]).indexed == 0


def test_secrets_in_a_thread_are_redacted_before_anything_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "T-5e5e.json"
    path.write_text(json.dumps({"id": "T-5e5e", "created": 1773479520664, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "token ghp_abcdefghijklmnopqrstu"
                                                              "vwxyz0123456789"}]}]}), "utf-8")
    (raw,) = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(format="amp"))
    assert isinstance(raw, RawSession)
    session, _, redacted = normalize(raw.record, raw.fallback_id)
    assert session.messages[0].content == "token [REDACTED:github_token]"
    assert redacted == {"github_token": 2}  # in the prompt and in the title made from it
    assert session.title is not None and "REDACTED" in session.title
