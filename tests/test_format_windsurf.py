"""The Windsurf importer: the chat panel in a workspace's state database (tabs and their bubbles,
or a VS Code chat session), every record's fate, recognizing Windsurf's databases apart from
Cursor's, where they live, Cascade's encrypted files named by `recall sources`, and the pipeline
from the fixture folder to search results."""

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
    database_format,
    read_database,
    windsurf,
)
from indexer.formats.database import open_readonly, table_names
from indexer.formats.importer import candidate_files, default_paths, find_sources
from indexer.formats.ledger import Ledger
from indexer.formats.resume import resume_hint
from indexer.formats.sources import normalize
from models import InvalidSession, SearchRequest

from .helpers import FORMATS, checked, make_service

WINDSURF = FORMATS / "windsurf"
USER = WINDSURF / "Windsurf" / "User"
TABS = USER / "workspaceStorage" / "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c" / "state.vscdb"
SESSION = USER / "workspaceStorage" / "4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d" / "state.vscdb"
GLOBAL = USER / "globalStorage" / "state.vscdb"
TAB_MAIN, TAB_SHOT = "b6c7d8e9-0a1b-4c2d-8e3f-4a5b6c7d8e9f", "c7d8e9f0-1a2b-4c3d-9e4f-5a6b7c8d9e0f"
CHAT = "e9f0a1b2-3c4d-4e5f-9a6b-7c8d9e0f1a2b"


@pytest.fixture
def tabs_db() -> Iterator[sqlite3.Connection]:
    with open_readonly(TABS) as connection:
        yield connection


def read(path: Path, ledger: Ledger | None = None, **options: Any) -> dict[str, Transcript]:
    with open_readonly(path) as connection:
        found = windsurf.parse_database(path, connection, ImportOptions(**options),
                                        ledger or Ledger())
    return {t.record["origin"]["id"]: t for t in found}


def test_each_tab_with_a_prompt_is_a_session() -> None:
    found = read(TABS)
    assert list(found) == [TAB_MAIN, TAB_SHOT]  # the tab never sent is left out
    main = found[TAB_MAIN].record
    assert main["sessionId"] == f"windsurf-{TAB_MAIN}"
    assert (main["channel"], main["date"], main["topics"]) == ("windsurf", "2026-03-12", ["rates"])
    assert main["title"] == "Cache the exchange rates"  # the tab's title, its first line
    assert main["origin"] == {"agent": "windsurf", "id": TAB_MAIN, "cwd": "/home/lin/code/rates",
                              "path": str(TABS.absolute())}


def test_bubbles_become_messages_and_what_is_left_out_is_counted() -> None:
    main = read(TABS)[TAB_MAIN]
    assert [(m["role"], m["content"]) for m in main.record["messages"][1:]] == [
        ("assistant", "Use functools.lru_cache with a TTL wrapper; here is the change."),
        ("user", "Make the TTL configurable."),
        ("assistant", "Added RATES_TTL_SECONDS to settings.py.")]  # rawText is the panel's answer
    assert main.record["messages"][0]["time"] == "2026-03-12T14:00:00Z"
    assert main.skipped == {"bubble type system": 1, "message left empty": 1}
    # a screenshot sent without words stays a turn
    shot = read(TABS)[TAB_SHOT].record
    assert [m["content"] for m in shot["messages"]] == ["[image]",
                                                        "That is a 502 from the rates API."]


def test_every_record_of_the_database_has_its_fate() -> None:
    ledger = Ledger()
    read(TABS, ledger)
    totals = checked(ledger).totals()
    assert (totals.records, totals.imported) == (13, 8)
    assert totals.left_out == {"bubble of a chat tab without a prompt": 1, "bubble type system": 1,
                               "chat tab without a prompt": 1, "chat tab without id": 1,
                               "message left empty": 1}
    fates = {f.where: (f.fate, f.reason) for f in ledger.fates()}
    assert fates[f"chat {TAB_MAIN}: tab"] == ("imported", "the session's title and metadata")


def test_a_vscode_chat_session_under_the_key_and_a_damaged_row_beside_it() -> None:
    ledger = Ledger()
    (chat,) = read(SESSION, ledger).values()
    record = chat.record
    assert (record["sessionId"], record["title"], record["topics"], record["date"]) == (
        f"windsurf-{CHAT}", "Flaky invoice test", ["invoices"], "2026-03-15")
    assert [m["role"] for m in record["messages"]] == ["user", "assistant"] * 2
    assert record["messages"][1]["content"] == ("It builds the week from date.today(); freeze "
                                                "the date in the test.")
    assert checked(ledger).totals().left_out == {"unreadable chat data": 1}


def test_a_database_without_chats_says_so() -> None:
    with pytest.raises(NothingToImport, match="no Windsurf chat panel"):
        read(GLOBAL)


def test_the_same_tab_under_both_keys_is_read_once(tmp_path: Path) -> None:
    copy = tmp_path / "state.vscdb"
    shutil.copy(TABS, copy)
    with sqlite3.connect(copy) as db:
        value = db.execute("SELECT value FROM ItemTable WHERE key = 'aiChat.chatdata'").fetchone()
        db.execute("INSERT INTO ItemTable VALUES "
                   "('workbench.panel.aichat.view.aichat.chatdata', ?)", value)
    db.close()
    ledger = Ledger()
    assert list(read(copy, ledger)) == [TAB_MAIN, TAB_SHOT]
    totals = checked(ledger).totals()
    # the second copy's records: each tab and its bubbles (7, 3 and 2), the one without id apart
    assert (totals.records, totals.merged) == (13 + 13, 12)


def test_thinking_and_tool_chars_follow_the_options(tmp_path: Path) -> None:
    copy = tmp_path / "state.vscdb"
    shutil.copy(TABS, copy)
    chat = {"tabs": [{"tabId": "t1", "bubbles": [
        {"type": "user", "text": "Why is it slow?"},
        {"type": "ai", "text": "The N+1 query.", "thinking": {"text": "Look at the ORM."}}]}]}
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE ItemTable SET value = ? WHERE key = 'aiChat.chatdata'",
                   (json.dumps(chat),))
    db.close()
    plain, thinking = read(copy)["t1"], read(copy, thinking=True)["t1"]
    assert plain.record["messages"][1]["content"] == "The N+1 query."
    assert plain.skipped == {"thinking": 1}
    assert thinking.record["messages"][1]["content"] == "[thinking] Look at the ORM.\nThe N+1 query."


# recognizing it, and Cursor apart ----------------------------------------------------------

@pytest.mark.parametrize(("path", "found"), [
    (TABS, "windsurf"), (SESSION, "windsurf"), (GLOBAL, None),
    (FORMATS / "cursor" / "Cursor" / "User" / "globalStorage" / "state.vscdb", "cursor"),
    (FORMATS / "cursor" / "Cursor" / "User" / "workspaceStorage"
     / "5d41402abc4b2a76b9719d911017c592" / "state.vscdb", "cursor"),  # its old chat panel
])
def test_windsurf_and_cursor_databases_are_told_apart_by_content(path: Path,
                                                                 found: str | None) -> None:
    with open_readonly(path) as connection:
        tables = table_names(connection)
        claims = {f for f in (database_format(tables), connection_format(connection, tables))
                  if f}
    assert claims == ({found} if found else set())


def test_a_cursor_key_or_table_is_never_taken_for_windsurf(tmp_path: Path) -> None:
    for extra in ("CREATE TABLE cursorDiskKV (key TEXT, value BLOB)",
                  "INSERT INTO ItemTable VALUES ('composer.composerData', '{}')"):
        copy = tmp_path / "state.vscdb"
        shutil.copy(TABS, copy)
        with sqlite3.connect(copy) as db:
            db.execute(extra)
        db.close()
        with open_readonly(copy) as connection:
            assert not windsurf.holds_chats(connection, table_names(connection))


def test_a_damaged_database_is_refused_with_its_reason(tmp_path: Path) -> None:
    damaged = tmp_path / "state.vscdb"
    damaged.write_bytes(TABS.read_bytes()[:6000])
    with pytest.raises(InvalidSession, match="unreadable SQLite database"):
        read_database(damaged, ImportOptions(format="windsurf"), Ledger())


# where it lives, Cascade, resume, the pipeline ----------------------------------------------

def test_default_locations_and_candidates(tmp_path: Path) -> None:
    user = tmp_path / ".config" / "Windsurf" / "User"
    assert default_paths("windsurf", tmp_path, {})[:2] == [user / "globalStorage" / "state.vscdb",
                                                          user / "workspaceStorage"]
    assert default_paths("windsurf", tmp_path, {"VSCODE_APPDATA": "/srv/app"}) == [
        Path("/srv/app/Windsurf/User/globalStorage/state.vscdb"),
        Path("/srv/app/Windsurf/User/workspaceStorage")]
    found = candidate_files("windsurf", default_paths("windsurf", tmp_path, {
        "XDG_CONFIG_HOME": str(WINDSURF)}))
    assert sorted(found) == sorted([GLOBAL, TABS, SESSION])


def test_sources_names_cascades_encrypted_files_with_their_count(
        tmp_path: Path, recall: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "user"
    cascade = home / ".codeium" / "windsurf" / "cascade"
    cascade.mkdir(parents=True)
    for name in ("5f1e.pb", "9a0c.pb", "notes.txt"):
        (cascade / name).write_bytes(b"\x8a\x1f\xee" * 40)
    (source,) = [s for s in find_sources(home, {}) if s.format == "windsurf"]
    assert source.files == 0
    assert [(u.what, u.folder, u.files) for u in source.unreadable] == [
        ("Cascade conversations (encrypted)", str(cascade), 2)]
    assert all(not s.unreadable for s in find_sources(home, {}) if s.format != "windsurf")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "APPDATA", "VSCODE_APPDATA", "VSCODE_PORTABLE"):
        monkeypatch.delenv(name, raising=False)
    printed = recall("sources").stdout
    assert f"2 files  not readable: Cascade conversations (encrypted)  {cascade}" in printed
    listed = {s["format"]: s for s in json.loads(recall("sources", "--json").stdout)}
    assert listed["windsurf"]["unreadable"] == [
        {"what": "Cascade conversations (encrypted)", "folder": str(cascade), "files": 2}]
    # and an import says so too, beside finding nothing it can read
    ran = recall("import", "windsurf", ok=False)
    assert ran.returncode == 1 and "no windsurf transcripts at" in ran.stderr
    assert f"2 Cascade conversations (encrypted) in {cascade} cannot be read" in ran.stderr


def test_an_imported_chat_reopens_from_the_editor() -> None:
    session, _, _ = normalize(read(TABS)[TAB_MAIN].record, None)
    hint = resume_hint(session)
    assert hint.command is None and hint.cwd == "/home/lin/code/rates"
    assert "Windsurf" in hint.note


def test_indexed_chats_are_redacted_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "windsurf"
    shutil.copytree(WINDSURF, source)
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert (report.indexed, report.rejected) == (3, [])
    hits = service.search(SearchRequest(query="exchange rates", mode="keyword")).results
    assert hits[0].session_id == f"windsurf-{TAB_MAIN}"
    main = service.session(f"windsurf-{TAB_MAIN}")
    assert "sk-ant-" not in main.messages[0].content and "[REDACTED:" in main.messages[0].content
    again = service.index([source])
    assert (again.indexed, again.unchanged) == (0, again.files)
