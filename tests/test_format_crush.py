"""The Crush importer: a project's SQLite database (sessions, messages and what is kept of their
parts, every row's fate, compaction summaries, the sessions crush makes for itself), recognizing
it, where the databases are, and the pipeline from the fixture to search results."""

from __future__ import annotations

import json
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
    crush,
)
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.readers import read_database
from indexer.formats.resume import resume_hint
from indexer.formats.sources import normalize
from models import InvalidSession, SearchRequest

from .helpers import FORMATS, checked, contents, make_service

CRUSH = FORMATS / "crush"
DATABASE = CRUSH / "crush.db"
MAIN = "6f1c0b2a-3d4e-4f50-8a6b-7c8d9e0f1a2b"
CHILD = "4c2d1e3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f$$call_vat_scan"
SHOT = "8a3e2d4c-5f60-4172-9c8d-9e0f1a2b3c4d"
EMPTY = "9b4f3e5d-6071-4283-ad9e-0f1a2b3c4d5e"


@pytest.fixture
def connection() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(f"{DATABASE.absolute().as_uri()}?mode=ro", uri=True)
    yield db
    db.close()


def sessions(connection: sqlite3.Connection, ledger: Ledger | None = None,
             **options: Any) -> dict[str, Transcript]:
    found = crush.parse_database(DATABASE, connection, ImportOptions(**options),
                                 ledger if ledger is not None else Ledger())
    return {t.record["origin"]["id"]: t for t in found}


def test_one_session_each_sub_agent_included_and_crush_s_own_left_out(
        connection: sqlite3.Connection) -> None:
    found = sessions(connection)
    assert list(found) == [MAIN, CHILD, SHOT]  # the title session and the empty one: nothing
    main = found[MAIN].record
    assert main["sessionId"] == f"crush-{MAIN}"
    assert (main["channel"], main["date"], main["title"]) == ("crush", "2026-03-14",
                                                              "Fix Swiss VAT rounding")
    assert main["summary"] == ("Summary: fixed VAT rounding in vat.py; CHANGELOG.md is "
                               "read-only.")  # the newer of two compactions
    assert main["origin"] == {"agent": "crush", "id": MAIN, "path": str(DATABASE.absolute())}
    assert found[MAIN].last_activity == "2026-03-14T09:13:20Z"
    child = found[CHILD].record
    assert child["sessionId"].startswith("crush-4c2d1e3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f-call_vat_scan")
    assert child["title"] == "Which modules call round_vat?"  # "New Agent Session" is no title
    assert (found[SHOT].record["title"], contents(found[SHOT])) == ("[image]",
                                                                    [("user", "[image]")])


def test_messages_with_attachments_tools_and_shell_commands(
        connection: sqlite3.Connection) -> None:
    main = sessions(connection)[MAIN]
    assert [role for role, _ in contents(main)] == [
        "user", "assistant", "tool", "assistant", "tool", "assistant", "user", "tool", "user"]
    (prompt, reply, tests, _, failed, _, shell, output, _) = contents(main)
    # attachments stand as markers, never their bytes or a text file's content
    assert prompt[1] == ("Swiss invoices round VAT wrong; fix it to 0.05 CHF.\n[image]\n"
                         "[file: /home/lin/code/ledger/notes.txt]")
    assert reply[1] == 'Let me run the tests first.\n[tool: bash] {"command": "uv run pytest -q"}'
    assert tests[1].startswith("[tool result: bash] ok 0 - vat rounding case 0")
    assert len(tests[1]) <= 301 + len("[tool result: bash] ")
    assert failed[1] == "[tool error: edit] file is read-only"
    assert shell[1] == '[tool: shell] {"command": "git status --short"}'
    assert output[1] == "[tool result: shell] M src/ledger/vat.py"
    assert main.record["messages"][0]["time"] == "2026-03-14T09:12:00Z"
    assert not any("VAT notes" in text or "Find round_vat" in text for _, text in contents(main))


def test_what_is_left_out_is_counted(connection: sqlite3.Connection) -> None:
    assert sessions(connection)[MAIN].skipped == {
        "compaction summary (an older one)": 1, "error notice": 1, "message left empty": 1,
        "message of role system": 1, "reasoning": 1, "unknown part type citation": 1,
        "unreadable message row": 1}


def test_every_row_of_the_database_has_its_fate(connection: sqlite3.Connection) -> None:
    ledger = Ledger()
    sessions(connection, ledger)
    totals = checked(ledger).totals()
    rows = sum(connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
               for t in ("sessions", "messages"))
    assert totals.records == rows == 24
    fates = {f.where: (f.fate, f.reason) for f in ledger.fates()}
    title = f"session title-{MAIN}: "
    assert fates[title + "session row"] == ("left out", "title generation (crush's own)")
    assert fates[title + "message row t02"] == ("left out", "message of a title generation")
    assert fates[f"session {EMPTY}: session row"] == ("left out", "session without conversation")
    assert fates[f"session {MAIN}: message row m12"] == ("imported", "the session's summary")
    assert fates["message row o01"] == ("left out", "message of no session")


def test_thinking_on_request_and_tool_chars(connection: sqlite3.Connection) -> None:
    main = sessions(connection, thinking=True, tool_chars=20)[MAIN]
    assert contents(main)[1][1].startswith("[thinking] Find round_vat and run the tests.\n")
    assert "reasoning" not in main.skipped
    assert all(len(text) < 60 for role, text in contents(main) if role == "tool")


def test_since_passes_over_older_sessions(connection: sqlite3.Connection) -> None:
    ledger = Ledger()
    with pytest.raises(NothingToImport):
        sessions(connection, ledger, since="2026-03-15")
    fates = {f.where: f.reason for f in checked(ledger).fates()}
    assert fates[f"session {MAIN}: session row"] == "session last active before --since"
    assert f"session {MAIN}: message row m01" not in fates


def test_the_project_folder_is_the_working_folder(tmp_path: Path) -> None:
    data = tmp_path / "ledger" / ".crush"
    data.mkdir(parents=True)
    shutil.copy(DATABASE, data / "crush.db")
    found = read_database(data / "crush.db", ImportOptions(), Ledger())
    record = found[0].record
    assert (record["origin"]["cwd"], record["topics"]) == (str(tmp_path / "ledger"), ["ledger"])
    session, _, _ = normalize(record, None)
    hint = resume_hint(session)
    assert (hint.command, hint.cwd) == (f"crush --session {MAIN}", str(tmp_path / "ledger"))


def test_a_database_without_what_it_needs(tmp_path: Path) -> None:
    other = tmp_path / "crush.db"
    db = sqlite3.connect(other)
    db.executescript("CREATE TABLE sessions (id text); CREATE TABLE messages (id text);")
    db.close()
    with pytest.raises(InvalidSession, match="not a crush database: table messages has no"):
        read_database(other, ImportOptions(format="crush"), Ledger())
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(DATABASE.read_bytes()[:9000])
    with pytest.raises(InvalidSession, match="unreadable SQLite database"):
        read_database(damaged, ImportOptions(), Ledger())


def test_the_database_is_recognized_by_its_tables(connection: sqlite3.Connection) -> None:
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert connection_format(connection, tables) == "crush"


def test_default_paths_read_the_projects_crush_lists(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert crush.default_paths(home, {}) == [home / ".crush" / "crush.db"]
    listing = home / ".local" / "share" / "crush" / "projects.json"
    listing.parent.mkdir(parents=True)
    listing.write_text(json.dumps({"projects": [
        {"path": "/home/lin/code/ledger", "data_dir": "/home/lin/code/ledger/.crush",
         "last_accessed": "2026-03-14T09:12:00Z"}, {"path": "/x"}]}), "utf-8")
    assert crush.default_paths(home, {}) == [home / ".crush" / "crush.db",
                                             Path("/home/lin/code/ledger/.crush/crush.db")]
    moved = tmp_path / "global"
    moved.mkdir()
    (moved / "projects.json").write_text('{"projects": [{"data_dir": "/srv/p/.crush"}]}')
    assert crush.default_paths(home, {"CRUSH_GLOBAL_DATA": str(moved)})[1] == Path(
        "/srv/p/.crush/crush.db")
    (listing.parent / "projects.json").write_text("{torn")
    assert crush.default_paths(home, {}) == [home / ".crush" / "crush.db"]
    assert candidate_files("crush", [CRUSH]) == [DATABASE]
    assert default_paths("crush", home, {})[0] == home / ".crush" / "crush.db"


def test_indexed_sessions_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "crush"
    shutil.copytree(CRUSH, source)
    (source / "broken" / "crush.db").parent.mkdir()
    (source / "broken" / "crush.db").write_bytes(DATABASE.read_bytes()[:9000])
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert report.indexed == 3
    assert [(Path(r.path).parent.name, "unreadable SQLite" in r.reason)
            for r in report.rejected] == [("broken", True)]
    hits = service.search(SearchRequest(query="Swiss invoices", mode="keyword")).results
    assert hits[0].session_id == f"crush-{MAIN}"
    assert not service.search(SearchRequest(query="Generate a title", mode="keyword")).results
    again = service.index([source])
    assert again.indexed == 0 and len(again.rejected) == 1
