"""The goose importer: its SQLite database (sessions, messages and what is kept of their content
blocks, every row's fate, older schemas), the session files of the releases before it,
recognizing both, where they live, and the pipeline from the fixture folder to search results."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import (
    ImportOptions,
    NothingToImport,
    Transcript,
    connection_format,
    detect_format,
    goose,
)
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.readers import read_database
from indexer.formats.resume import resume_hint
from indexer.formats.sources import load_file, normalize
from models import InvalidSession, SearchRequest

from .helpers import FORMATS, checked, contents, make_service

GOOSE = FORMATS / "goose"
DATABASE = GOOSE / "sessions" / "sessions.db"
SCHEMA_FIVE = GOOSE / "schema-5" / "sessions" / "sessions.db"
OLD_FILE = GOOSE / "older-install" / "sessions" / "20250610_093015.jsonl"
NAMED_FILE = GOOSE / "older-install" / "sessions" / "ledger-naming.jsonl"
COPIED_FILE = GOOSE / "sessions" / "20250610_093015.jsonl"
MAIN, CHILD, EMPTY = "20260314_1", "20260314_2", "20260315_1"


@pytest.fixture
def connection() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(f"{DATABASE.absolute().as_uri()}?mode=ro", uri=True)
    yield db
    db.close()


def sessions(connection: sqlite3.Connection, ledger: Ledger | None = None,
             **options: Any) -> dict[str, Transcript]:
    found = goose.parse_database(DATABASE, connection, ImportOptions(**options),
                                 ledger if ledger is not None else Ledger())
    return {t.record["origin"]["id"]: t for t in found}


def read_file(path: Path, ledger: Ledger | None = None, **options: Any) -> Transcript:
    (transcript,) = goose.parse_lines(path, path.read_text("utf-8"), ImportOptions(**options),
                                      ledger if ledger is not None else Ledger())
    return transcript


# the database --------------------------------------------------------------------------------

def test_the_database_gives_one_session_each_sub_agent_included(
        connection: sqlite3.Connection) -> None:
    found = sessions(connection)
    assert list(found) == [MAIN, CHILD]  # the third session has no message
    main = found[MAIN].record
    assert main["sessionId"] == f"goose-{MAIN}"
    assert (main["channel"], main["date"], main["topics"]) == ("goose", "2026-03-14", ["ledger"])
    assert main["title"] == "Round Swiss VAT"  # goose's name for it
    assert main["origin"] == {"agent": "goose", "id": MAIN, "cwd": "/home/lin/code/ledger",
                              "path": str(DATABASE.absolute())}
    assert found[MAIN].last_activity == "2026-03-14T09:13:10Z"
    # still named "CLI Session", goose's default: the first prompt is the title
    assert found[CHILD].record["title"] == "List the modules that import round_vat."


def test_messages_with_tools_compact_and_results_as_tool_messages(
        connection: sqlite3.Connection) -> None:
    main = sessions(connection)[MAIN]
    roles = [role for role, _ in contents(main)]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool",
                     "assistant", "user"]
    messages = main.record["messages"]
    assert (messages[0]["id"], messages[0]["time"]) == ("msg_20260314_1_0", "2026-03-14T09:12:00Z")
    assert messages[1]["content"] == ('Let me find the callers of round_vat first.\n'
                                      '[tool: developer__shell] {"command": "rg -n round_vat src"}')
    assert messages[2]["content"] == ("[tool result: developer__shell] src/ledger/vat.py:41: "
                                      "def round_vat(amount):")
    assert len(messages[4]["content"]) <= 301 + len("[tool result: developer__shell] ")
    assert messages[6]["content"] == ("[tool error: developer__text_editor] File CHANGELOG.md is "
                                      "read-only")
    assert messages[8]["content"] == "[image]"  # a screenshot pasted alone
    assert not any("Current date" in text or "thinking" in text for _, text in contents(main))


def test_what_is_left_out_is_counted(connection: sqlite3.Connection) -> None:
    assert sessions(connection)[MAIN].skipped == {
        "action required": 1, "hidden from the user (context for the model)": 1,
        "message left empty": 1, "message of role system": 1, "redacted thinking": 1,
        "system notification": 1, "thinking": 1, "unknown content type mysteryWidget": 1,
        "unreadable message row": 1}


def test_every_row_of_the_database_has_its_fate(connection: sqlite3.Connection) -> None:
    ledger = Ledger()
    sessions(connection, ledger)
    totals = checked(ledger).totals()
    rows = sum(connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
               for t in ("sessions", "messages"))
    assert totals.records == rows == 19
    fates = {f.where: (f.fate, f.reason) for f in ledger.fates()}
    assert fates[f"session {MAIN}: session row"] == ("imported", "session metadata")
    assert fates[f"session {EMPTY}: session row"] == ("left out", "session without conversation")
    assert fates["message row 16"] == ("left out", "message of no session")
    assert fates[f"session {MAIN}: message row 12"] == ("left out", "unreadable message row")


def test_thinking_on_request_and_tool_chars(connection: sqlite3.Connection) -> None:
    main = sessions(connection, thinking=True, tool_chars=20)[MAIN]
    assert contents(main)[1][1].startswith("[thinking] Find every caller of round_vat.\n")
    assert "thinking" not in main.skipped and "redacted thinking" in main.skipped
    assert all(len(text) < 60 for role, text in contents(main) if role == "tool")


def test_since_passes_over_older_sessions(connection: sqlite3.Connection) -> None:
    ledger = Ledger()
    with pytest.raises(NothingToImport):
        sessions(connection, ledger, since="2026-03-16")
    fates = {f.where: f.reason for f in checked(ledger).fates()}
    assert fates[f"session {MAIN}: session row"] == "session last active before --since"
    assert f"session {MAIN}: message row 1" not in fates  # not read


def test_the_schema_of_release_1_10(tmp_path: Path) -> None:
    (transcript,) = read_database(SCHEMA_FIVE, ImportOptions(), Ledger())
    record = transcript.record
    # no message_id column: messages are named by their row; the description is the title
    assert [m["id"] for m in record["messages"]] == ["row-1", "row-2"]
    assert (record["title"], record["topics"]) == ("Explain the vsl layout", ["vsl"])


def test_a_database_without_what_it_needs(tmp_path: Path) -> None:
    other = tmp_path / "sessions.db"
    db = sqlite3.connect(other)
    db.executescript("CREATE TABLE sessions (name text); CREATE TABLE messages (body text);")
    db.close()
    with pytest.raises(InvalidSession, match="not a goose database: table sessions has no id"):
        read_database(other, ImportOptions(format="goose"), Ledger())
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(DATABASE.read_bytes()[:9000])
    with pytest.raises(InvalidSession, match="unreadable SQLite database"):
        read_database(damaged, ImportOptions(), Ledger())


# the session files of the older releases -----------------------------------------------------

def test_a_session_file_with_its_metadata_line() -> None:
    ledger = Ledger()
    transcript = read_file(OLD_FILE, ledger)
    record = transcript.record
    assert record["sessionId"] == "goose-20250610_093015"
    assert (record["title"], record["topics"]) == ("Weekly todo cleanup", ["notes"])
    assert contents(transcript) == [
        ("user", "Archive the done items in TODO.md"),
        ("assistant", '[tool: developer__text_editor] {"command": "view", "path": "TODO.md"}'),
        ("tool", "[tool result: developer__text_editor] - [x] file taxes\n- [ ] call"),
        ("assistant", "Moved one done item to ARCHIVE.md.")]
    assert transcript.skipped == {"context length notice": 1, "thinking": 1,
                                  "torn last line": 1}
    fates = {f.where: (f.fate, f.reason) for f in checked(ledger).fates()}
    assert fates["line 1"] == ("imported", "session metadata")
    assert read_file(OLD_FILE, thinking=True).record["messages"][1]["content"].startswith(
        "[thinking] Read the file first.")


def test_a_session_file_without_metadata_is_read_whole() -> None:
    transcript = read_file(NAMED_FILE)
    assert transcript.record["sessionId"] == "goose-ledger-naming"
    assert transcript.record["title"] == "Name the ledger's export job"
    assert [m["id"] for m in transcript.record["messages"]] == ["msg_1", "msg_2"]


def test_a_session_file_copied_into_the_database_is_read_once() -> None:
    with pytest.raises(NothingToImport, match=r"copied into sessions\.db"):
        read_file(COPIED_FILE)


def test_a_damaged_file_is_refused_with_its_reason(tmp_path: Path) -> None:
    bad = tmp_path / "sessions" / "broken.jsonl"
    bad.parent.mkdir()
    bad.write_text('{"description": "x", "message_count": 1}\n{"role": "us\nnot json\n', "utf-8")
    with pytest.raises(InvalidSession, match="unreadable JSON on lines"):
        load_file(bad, bad.read_bytes(), 10_000_000, ImportOptions(format="goose"))


# recognizing the files, where they are --------------------------------------------------------

def test_files_are_recognized_by_content(tmp_path: Path) -> None:
    for path in (OLD_FILE, NAMED_FILE):
        assert detect_format(tmp_path / "renamed.jsonl", path.read_text("utf-8")) == "goose"
    with sqlite3.connect(f"{DATABASE.absolute().as_uri()}?mode=ro", uri=True) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert connection_format(db, tables) == "goose"


def test_default_paths_follow_goose_path_root_and_xdg(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert goose.default_paths(home, {}) == [home / ".local" / "share" / "goose" / "sessions"]
    assert goose.default_paths(home, {"XDG_DATA_HOME": "/srv/xdg"}) == [
        Path("/srv/xdg/goose/sessions")]
    assert goose.default_paths(home, {"GOOSE_PATH_ROOT": "/srv/g"}) == [
        Path("/srv/g/data/sessions")]
    assert goose.default_paths(home, {"GOOSE_PATH_ROOT": "relative"})[0].is_relative_to(home)
    assert goose.default_paths(home, {"APPDATA": "C:/Users/lin/AppData/Roaming"})[1] == Path(
        "C:/Users/lin/AppData/Roaming/Block/goose/data/sessions")


def test_candidates_are_the_databases_and_session_files(tmp_path: Path) -> None:
    found = sorted(p.relative_to(GOOSE).as_posix() for p in candidate_files("goose", [GOOSE]))
    assert found == ["older-install/sessions/20250610_093015.jsonl",
                     "older-install/sessions/ledger-naming.jsonl", "schema-5/sessions/sessions.db",
                     "sessions/20250610_093015.jsonl", "sessions/sessions.db"]
    assert not goose.is_candidate(Path("/d/goose/sessions/backups/pre_migration_v5_to_v6.db"))
    assert candidate_files("goose", default_paths("goose", tmp_path, {
        "GOOSE_PATH_ROOT": str(tmp_path)})) == []


def test_resume_reopens_a_session_by_its_id() -> None:
    transcript = read_file(NAMED_FILE)
    session, _, _ = normalize(transcript.record, None)
    hint = resume_hint(session)
    assert hint.command == "goose session --resume --session-id ledger-naming"


# the real pipeline ---------------------------------------------------------------------------

def test_indexed_sessions_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "goose"
    shutil.copytree(GOOSE, source)
    broken = source / "older-install" / "sessions" / "broken.jsonl"
    broken.write_text('{"description": "x", "message_count": 1}\nnot json\nnor this\n', "utf-8")
    service = make_service(tmp_path / "home")
    report = service.index([source])
    # two sessions in the database, one in the older schema's, two session files; the file
    # copied into the database has nothing to import, and the damaged one is refused alone
    assert report.indexed == 5
    assert [(Path(r.path).name, "unreadable JSON" in r.reason) for r in report.rejected] == [
        ("broken.jsonl", True)]
    for query, session in [("Swiss invoices", MAIN), ("Verilog", "20251202_1"),
                           ("ARCHIVE.md", "20250610_093015")]:
        hits = service.search(SearchRequest(query=query, mode="keyword")).results
        assert hits[0].session_id == f"goose-{session}", query
    assert not service.search(SearchRequest(query="info-msg", mode="keyword")).results
    again = service.index([source])
    assert again.indexed == 0 and len(again.rejected) == 1
