"""The Kiro CLI importer: the session log replayed (cancel, reset, compaction, clear), its
metadata file beside it, the database's conversations_v2 rows, and the pipeline from the fixture
folder to search results."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, detect_format
from indexer.formats.database import open_readonly, table_names
from indexer.formats.detect import database_format
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.kiro import FORMAT
from indexer.formats.ledger import Ledger
from indexer.formats.sources import (
    RawSession,
    load_database,
    load_file,
    normalize,
    read_transcripts,
)
from models import InvalidSession, SearchRequest, parse_time

from .helpers import FORMATS, make_service

KIRO = FORMATS / "kiro"
LOGS = KIRO / "sessions" / "cli"
MAIN = LOGS / "3f1c9a2e-5b7d-4e60-8a1b-2c3d4e5f6a70.jsonl"
BARE = LOGS / "8d2e4f60-1a3b-4c5d-9e7f-0a1b2c3d4e5f.jsonl"
DATABASE = KIRO / "kiro-cli" / "data.sqlite3"
DB_MAIN = "kiro-c0a1b2c3-d4e5-4f60-8172-8394a5b6c7d8"


def record(path: Path, **options: Any) -> dict[str, Any]:
    raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(**options))
    assert len(raws) == 1 and isinstance(raws[0], RawSession)
    return raws[0].record


def database_records(path: Path = DATABASE, ledger: Ledger | None = None,
                     **options: Any) -> dict[str, dict[str, Any]]:
    raws = load_database(path, ImportOptions(**options), ledger)
    return {raw.record["sessionId"]: raw.record for raw in raws}


def test_logs_and_the_database_are_recognized_by_content(tmp_path: Path) -> None:
    for path in (MAIN, BARE):
        text = path.read_text("utf-8")
        assert detect_format(path, text) == "kiro"
        assert detect_format(tmp_path / "renamed.txt", text) == "kiro"
    metadata = MAIN.with_suffix(".json")
    assert detect_format(metadata, metadata.read_text("utf-8")) == "kiro-session"
    assert load_file(metadata, metadata.read_bytes(), 10_000_000) == []  # nothing to import
    with open_readonly(DATABASE) as connection:
        assert database_format(table_names(connection)) == "kiro"
    # another program's table of that name is not taken for Kiro CLI's
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE conversations_v2 (id TEXT, deleted_at TEXT)")
    with open_readonly(other) as connection:
        assert database_format(table_names(connection)) is None


def test_the_log_is_replayed_with_its_metadata() -> None:
    r = record(MAIN)
    assert r["sessionId"] == "kiro-3f1c9a2e-5b7d-4e60-8a1b-2c3d4e5f6a70"
    assert (r["channel"], r["date"], r["title"]) == ("kiro", "2026-03-14", "Swiss VAT rounding")
    assert r["topics"] == ["ledger"] and r["origin"]["cwd"] == "/home/lin/code/ledger"
    assert r["summary"] == "Fixed Swiss VAT rounding to 0.05 CHF; tests pass."
    # p-03 was cancelled before an answer; p-04 and a-04 were rewound; the compaction and the
    # clear keep what came before them
    assert [(m["id"], m["role"]) for m in r["messages"]] == [
        ("p-01", "user"), ("a-01", "assistant"), ("r-01", "tool"), ("a-02", "assistant"),
        ("p-02", "user"), ("a-03", "assistant"), ("p-05", "user"), ("a-05", "assistant"),
        ("r-02", "tool")]
    first, answer, results = r["messages"][:3]
    assert first["time"] == "2026-03-14T09:12:04Z" and "time" not in answer
    assert answer["content"] == ('Let me find the VAT rounding helper.\n'
                                 '[tool: grep] {"pattern": "round_vat", "path": "src"}\n'
                                 '[tool: shell] {"command": "uv run pytest -q"}')
    assert results["content"].startswith("[tool result: grep] src/ledger/vat.py:41: def round_vat")
    shell = results["content"].split("\n[tool result: shell] ")[1]
    assert shell.startswith("test result: 212 passed") and len(shell) <= 301  # --tool-chars
    assert r["messages"][4]["content"] == "[image]"  # a screenshot pasted alone
    assert r["messages"][-1]["content"] == "[tool error: shell] error: nothing to commit"
    assert not any("EUR invoices" in m["content"] or "vat_round" in m["content"]
                   for m in r["messages"])


def test_every_line_of_the_log_has_its_fate() -> None:
    ledger = Ledger()
    (transcript,) = read_transcripts(MAIN, MAIN.read_text("utf-8"), ImportOptions(), ledger) or []
    totals = ledger.totals()
    assert totals.adds_up() and totals.records == len(MAIN.read_text("utf-8").strip().split("\n"))
    assert totals.imported == 10  # nine messages and the compaction's summary
    assert totals.left_out == {"cancel marker (applied)": 1,
                               "clear marker (the archive keeps what came before)": 1,
                               "non-object line": 1, "prompt cancelled before an answer": 1,
                               "reset marker (applied)": 1, "rewound message": 2,
                               "torn last line": 1, "unknown entry kind Checkpoint": 1}
    assert totals.parts_left_out == {"thinking": 1}
    assert transcript.skipped == {**totals.left_out, **totals.parts_left_out}


def test_thinking_on_request() -> None:
    assert record(MAIN, thinking=True)["messages"][1]["content"].startswith(
        "[thinking] Find round_vat first.\nLet me find")
    assert "[thinking]" not in json.dumps(record(MAIN))


def test_a_log_of_an_earlier_release_without_ids_times_or_metadata() -> None:
    r = record(BARE)
    assert r["sessionId"] == "kiro-8d2e4f60-1a3b-4c5d-9e7f-0a1b2c3d4e5f"
    assert [m["id"] for m in r["messages"]] == ["e0", "e1"]
    assert r["title"] == "What does the ledger CLI's --dry-run flag do?"
    assert "topics" not in r and "cwd" not in r["origin"]
    assert r["date"] == str(parse_time(BARE.stat().st_mtime))[:10]  # when it was last written


def test_the_database_gives_one_session_per_conversation() -> None:
    ledger = Ledger()
    sessions = database_records(ledger=ledger)
    assert list(sessions) == [DB_MAIN]  # the empty and the unreadable conversations give none
    r = sessions[DB_MAIN]
    assert (r["date"], r["topics"], r["origin"]["cwd"]) == ("2026-03-12", ["ledger"],
                                                            "/home/lin/code/ledger")
    assert r["title"] == "Where do the currency rates in fx.py come from?"
    assert r["summary"] == "Kept hand-written FX rates; added a freshness test."
    roles = [(m["id"], m["role"]) for m in r["messages"]]
    assert roles == [("h0-user", "user"), ("h0-assistant", "assistant"), ("h1-results", "tool"),
                     ("h1-assistant", "assistant"), ("h2-results", "tool"), ("h2-user", "user"),
                     ("h2-assistant", "assistant")]
    messages = {m["id"]: m for m in r["messages"]}
    assert messages["h0-user"]["time"] == "2026-03-12T10:00:00.000+01:00"
    assert messages["h0-assistant"]["time"] == "2026-03-12T09:00:04Z"  # the stream's end
    assert messages["h1-results"]["content"].startswith("[tool result: fs_read] RATES =")
    assert '[tool error: fs_read] {"error":"no such folder: rates/"}' in \
        messages["h1-results"]["content"]
    assert messages["h2-user"]["content"] == ("Keep them hard-coded, but add a freshness test."
                                              "\n[image]")
    assert "AGENTS.md" not in json.dumps(r)  # context the agent added
    totals = ledger.totals()
    assert totals.adds_up()
    assert totals.left_out == {"conversation without messages": 1,
                               "unreadable conversation row": 1, "unreadable history entry": 1}
    assert totals.parts_left_out == {"context the agent added to the prompt": 1}


def test_a_database_without_its_columns_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "data.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript("CREATE TABLE migrations (id INTEGER); CREATE TABLE state (key TEXT);"
                         "CREATE TABLE conversations_v2 (key TEXT, value TEXT);")
    with pytest.raises(InvalidSession, match="conversations_v2 has no key, conversation_id"):
        load_database(path, ImportOptions(format="kiro"))


def test_the_database_is_read_while_the_agent_holds_a_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "data.sqlite3"
    shutil.copy(DATABASE, path)
    writer = sqlite3.connect(path)
    try:
        writer.execute("BEGIN EXCLUSIVE")
        assert list(database_records(path)) == [DB_MAIN]
    finally:
        writer.rollback()
        writer.close()


def test_a_bad_log_is_refused_with_its_reason_and_the_batch_goes_on(tmp_path: Path) -> None:
    source = tmp_path / "sessions" / "cli"
    shutil.copytree(LOGS, source)
    (source / "0badfeed-0000-4000-8000-000000000000.jsonl").write_text(
        "{not json\n{nor this\n" + json.dumps({"version": "v1", "kind": "Clear"}) + "\n", "utf-8")
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert report.indexed == 2
    ((rejected),) = report.rejected
    assert rejected.path.endswith("0badfeed-0000-4000-8000-000000000000.jsonl")
    assert "unreadable JSON on lines [1, 2]" in rejected.reason


def test_default_locations_candidates_and_resume(tmp_path: Path) -> None:
    assert default_paths("kiro", tmp_path, {}) == [
        tmp_path / ".kiro" / "sessions" / "cli",
        tmp_path / ".local" / "share" / "kiro-cli" / "data.sqlite3",
        tmp_path / "Library" / "Application Support" / "kiro-cli" / "data.sqlite3",
        *(tmp_path / base / "Kiro" / "User" / "globalStorage" / "kiro.kiroagent"
          for base in (".config", "Library/Application Support", "AppData/Roaming"))]
    moved = default_paths("kiro", tmp_path, {"XDG_DATA_HOME": "/data",
                                             "KIRO_TEST_SESSIONS_DIR": "/logs"})
    assert moved[:2] == [Path("/logs"), Path("/data/kiro-cli/data.sqlite3")]
    found = candidate_files("kiro", [LOGS, DATABASE])  # Kiro IDE's: test_format_kiro_ide.py
    assert sorted(p.name for p in found) == sorted([MAIN.name, BARE.name, DATABASE.name])
    assert FORMAT.resume.command is None and "--resume-picker" in FORMAT.resume.note


def test_indexed_sessions_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "kiro"
    shutil.copytree(KIRO, source)
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert (report.indexed, report.rejected) == (6, [])  # three of them Kiro IDE's
    for query, session in [("nearest 0.05 CHF", "kiro-3f1c9a2e-5b7d-4e60-8a1b-2c3d4e5f6a70"),
                           ("postings dry-run", "kiro-8d2e4f60-1a3b-4c5d-9e7f-0a1b2c3d4e5f"),
                           ("freshness test", DB_MAIN)]:
        hits = service.search(SearchRequest(query=query, mode="keyword")).results
        assert hits[0].session_id == session, query
    assert not service.search(SearchRequest(query="everywhere", mode="keyword")).results  # rewound
    again = service.index([source])
    assert again.indexed == 0


def test_secrets_in_a_log_are_redacted_before_anything_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "5e5e5e5e-0000-4000-8000-000000000000.jsonl"
    path.write_text(json.dumps({"version": "v1", "kind": "Prompt", "data": {
        "message_id": "p", "meta": {"timestamp": 1773479524},
        "content": [{"kind": "text", "data": "deploy with AKIAIOSFODNN7EXAMPLE"}]}}) + "\n",
        "utf-8")
    (raw,) = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(format="kiro"))
    assert isinstance(raw, RawSession)
    session, _, redacted = normalize(raw.record, raw.fallback_id)
    assert session.messages[0].content == "deploy with [REDACTED:aws_access_key]"
    assert redacted == {"aws_access_key": 2}  # in the prompt and in the title made from it
    assert session.title is not None and "REDACTED" in session.title
