"""The Warp importer: its `warp.sqlite` (conversations and exchanges in order, what is kept and
the fate of every row, the agent's output where a release kept it, rows that cannot be read),
recognizing the database, where it lives, and the pipeline from the fixture folder to search
results."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, NothingToImport, Transcript, read_database, warp
from indexer.formats.detect import connection_format
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import UNACCOUNTED, Ledger
from models import InvalidSession, SearchRequest

from .helpers import FORMATS, contents, make_service

WARP = FORMATS / "warp"
LINUX = WARP / "warp-terminal" / "warp.sqlite"
WINDOWS = WARP / "Warp" / "data" / "warp.sqlite"
MAIN = "e05f25f4-4e57-411a-b126-f4c9ebca6781"
EPOCH = "1237cec7-c68c-4f77-986f-0746e5fc4655"
ANSWERED = "5d1f4e3c-9a8b-4c7d-9e0f-2b3c4d5e6f70"


def conversations(path: Path, ledger: Ledger | None = None,
                  **options: Any) -> dict[str, Transcript]:
    with sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True) as db:
        found = warp.parse_database(path, db, ImportOptions(**options), ledger or Ledger())
    return {t.record["origin"]["id"]: t for t in found}


def test_one_session_per_conversation_in_order() -> None:
    found = conversations(LINUX)
    assert list(found) == [EPOCH, MAIN]  # the conversations with nothing to import give none
    main = found[MAIN]
    assert main.record["sessionId"] == f"warp-{MAIN}"
    assert (main.record["channel"], main.record["date"], main.record["topics"]) == (
        "warp", "2026-04-07", ["ledger"])
    assert main.record["title"] == "why does test_backoff fail one run in five?"
    assert main.record["origin"] == {"agent": "warp", "id": MAIN, "cwd": "/home/lin/code/ledger",
                                     "path": str(LINUX.absolute())}
    assert [m["time"] for m in main.record["messages"]] == [
        "2026-04-07T08:55:40.123456Z", "2026-04-07T08:55:52.004000Z", "2026-04-07T08:57:01Z",
        "2026-04-07T09:02:00Z"]
    assert main.last_activity == "2026-04-07T09:02:00Z"
    # an older release wrote epoch milliseconds
    assert found[EPOCH].record["messages"][0]["time"] == "2024-10-06T16:43:23.631000Z"


def test_prompts_and_tool_results_kept_compactly() -> None:
    messages = contents(conversations(LINUX)[MAIN])
    assert [role for role, _ in messages] == ["user", "tool", "tool", "user"]
    assert messages[0] == ("user", "why does test_backoff fail one run in five?")
    label, result = messages[1][1].split("] ", 1)
    assert (label, result[:25]) == ("[tool result: RequestCommandOutput", "tests/test_retry.py::test")
    assert len(result) == 301  # cut to --tool-chars, and the ellipsis
    assert messages[2] == ("tool", "[tool error: RequestCommandOutput] conflict in retry.py")
    # the context Warp attached (folder, branch, time) is not the user's words
    assert not any("zsh" in text or "CurrentTime" in text for _, text in messages)


def test_what_is_left_out_is_counted() -> None:
    assert conversations(LINUX)[MAIN].skipped == {
        "agent task list (protobuf, not read)": 1, "exchange without input": 1,
        "query attachments": 1, "query context": 2, "unknown input PassiveSuggestion": 1,
        "unreadable input": 1}


def test_every_row_has_its_fate() -> None:
    ledger = Ledger()
    conversations(LINUX, ledger)
    totals = ledger.totals()
    assert totals.adds_up() and UNACCOUNTED not in totals.left_out, totals
    with sqlite3.connect(LINUX) as db:
        rows = sum(db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                   for t in ("ai_queries", "agent_conversations", "agent_tasks"))
    assert totals.records == rows == 11
    fates = {f.where: (f.fate, f.reason) for f in ledger.fates()}
    assert fates[f"conversation {MAIN}: conversation row"] == ("imported", "conversation metadata")
    assert fates[f"conversation {MAIN}: query row 5"] == ("left out", "unreadable input")
    assert fates["conversation 3b9d2c1a-7e6f-4a5b-9c8d-0f1e2d3c4b5a: conversation row"] == (
        "left out", "conversation without messages")


def test_the_agents_output_where_a_release_kept_it() -> None:
    ledger = Ledger()
    (answered,) = conversations(WINDOWS, ledger).values()
    assert contents(answered) == [
        ("user", "why is the atlas build slow?"),
        ("assistant", ('Let me time the build.\n[tool: RequestCommandOutput] {"command": '
                       '"cargo build --timings", "is_read_only": true}')),
        ("tool", "[tool result: RequestCommandOutput] atlas 41.2s"),
        ("assistant", "The cache key changes every run: atlas rebuilds from scratch.")]
    assert answered.record["topics"] == ["atlas"]  # a Windows folder
    assert answered.skipped == {"output Failed": 1, "query context": 1,
                                "unknown output Citation": 1, "unreadable output": 1}
    assert ledger.totals().adds_up() and ledger.totals().records == 7


def test_tool_chars_and_since() -> None:
    found = conversations(LINUX, tool_chars=12)
    assert contents(found[MAIN])[1][1] == "[tool result: RequestCommandOutput] tests/test_r…"
    ledger = Ledger()
    assert list(conversations(LINUX, ledger, since="2026-01-01")) == [MAIN]
    assert ledger.totals().left_out["conversation last active before --since"] == 1
    assert ledger.totals().adds_up()


def test_a_database_without_what_it_needs(tmp_path: Path) -> None:
    path = tmp_path / "warp.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript("CREATE TABLE ai_queries (exchange_id TEXT, start_ts TEXT);"
                         "CREATE TABLE agent_conversations (conversation_id TEXT);")
    with pytest.raises(InvalidSession, match="not a Warp database: ai_queries has no"):
        read_database(path, ImportOptions(format="warp"), Ledger())
    empty = tmp_path / "empty" / "warp.sqlite"
    empty.parent.mkdir()
    with sqlite3.connect(empty) as db:
        db.executescript("CREATE TABLE ai_queries (exchange_id TEXT, conversation_id TEXT, "
                         "input TEXT); CREATE TABLE agent_conversations (conversation_id TEXT);"
                         "INSERT INTO ai_queries VALUES ('x', 'c', '[]');")
    with pytest.raises(NothingToImport, match=r"\(1 conversations\)"):
        read_database(empty, ImportOptions(), Ledger())


def test_the_database_is_recognized_by_its_tables(tmp_path: Path) -> None:
    with sqlite3.connect(LINUX) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert connection_format(db, tables) == "warp"
    other = sqlite3.connect(":memory:")  # an application's own agent_conversations table
    other.executescript("CREATE TABLE agent_conversations (id TEXT, user_id TEXT);"
                        "CREATE TABLE ai_queries (id TEXT, prompt TEXT);")
    assert not warp.rows.looks_like_warp(other, {"agent_conversations", "ai_queries"})


def test_candidates_default_locations_and_resume(tmp_path: Path) -> None:
    assert candidate_files("warp", [WARP]) == [WINDOWS, LINUX]
    assert candidate_files("warp", default_paths("warp", tmp_path, {
        "XDG_STATE_HOME": str(WARP)})) == [LINUX]
    group = tmp_path / "Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support"
    assert default_paths("warp", tmp_path, {"LOCALAPPDATA": "/w"}) == [
        tmp_path / ".local/state/warp-terminal/warp.sqlite",
        tmp_path / ".local/state/warp-terminal-preview/warp.sqlite",
        group / "dev.warp.Warp-Stable/warp.sqlite", group / "dev.warp.Warp-Preview/warp.sqlite",
        Path("/w/warp/Warp/data/warp.sqlite"), Path("/w/warp.preview/Warp/data/warp.sqlite")]
    assert not warp.is_candidate(Path("/s/warp-terminal/warp.sqlite-wal"))
    assert warp.FORMAT.resume.command is None and "conversation list" in warp.FORMAT.resume.note


def test_indexed_conversations_are_searchable_bad_files_rejected_reimport_skipped(
        tmp_path: Path) -> None:
    source = tmp_path / "warp"
    shutil.copytree(WARP, source)
    broken = source / "copy" / "warp.sqlite"
    broken.parent.mkdir()
    broken.write_bytes(LINUX.read_bytes()[:5000])  # cut short
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert report.indexed == 3
    (rejected,) = report.rejected
    assert rejected.path == str(broken) and "unreadable SQLite database" in rejected.reason
    for query, conversation in [("test_backoff", MAIN), ("export formats", EPOCH),
                                ("atlas build", ANSWERED)]:
        hits = service.search(SearchRequest(query=query, mode="keyword")).results
        assert hits[0].session_id == f"warp-{conversation}", query
    again = service.index([source])
    assert (again.indexed, again.unchanged) == (0, 2)
