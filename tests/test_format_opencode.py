"""The opencode importer: its SQLite database (sessions, messages and parts in order, what is kept
and the fate of every row, other versions' tables), the JSON tree of older releases, recognizing
its files, where they live, and the pipeline from the fixture folder to search results."""

from __future__ import annotations

import contextlib
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
    database_format,
    detect_format,
    opencode,
    read_database,
)
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.resume import resume_hint
from indexer.formats.sources import RawSession, load_file, normalize
from models import InvalidSession, SearchRequest

from .helpers import DATA, FORMATS, checked, make_service

OPENCODE = FORMATS / "opencode"
DATABASE = OPENCODE / "opencode.db"
PROJECT = "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"
OLDER = OPENCODE / "older-install"  # the data folder of an install from before the database
TREE = OLDER / "storage"
TREE_MAIN = TREE / "session" / PROJECT / "ses_52a0c3d4effeCsvExportSpeed.json"
TREE_CHILD = TREE / "session" / PROJECT / "ses_52a0c3d3dffeProfileExport1.json"
OLDEST = (OLDER / "project" / "home-lin-code-ledger" / "storage" / "session" / "info"
          / "ses_7d10e2f3fffeNameTheLedgerC.json")
MAIN_ID, CHILD_ID = "ses_30f1a2b3cffeLedgerVatRound", "ses_30f1a2a0bffeExploreVatHelp"
NOTES_ID = "ses_30e8c1d2affeNotesTodoWeekly"


@pytest.fixture
def connection() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(f"{DATABASE.absolute().as_uri()}?mode=ro", uri=True)
    yield db
    db.close()


def sessions(connection: sqlite3.Connection, **options: Any) -> dict[str, Transcript]:
    found = opencode.parse_database(DATABASE, connection, ImportOptions(**options), Ledger())
    return {t.record["origin"]["id"]: t for t in found}


def contents(transcript: Transcript) -> list[str]:
    return [m["content"] for m in transcript.record["messages"]]


def tree_session(path: Path, **options: Any) -> Transcript:
    (transcript,) = opencode.parse_value(path, json.loads(path.read_bytes()),
                                         ImportOptions(**options), Ledger())
    return transcript


def tree_ledger(path: Path) -> Ledger:
    ledger = Ledger()
    opencode.parse_value(path, json.loads(path.read_bytes()), ImportOptions(), ledger)
    return checked(ledger)


# the database --------------------------------------------------------------------------------

def test_the_database_gives_one_session_each_sub_agent_included(
        connection: sqlite3.Connection) -> None:
    found = sessions(connection)
    # the fourth session holds only a file read opencode added to the prompt: nothing to import
    assert list(found) == [MAIN_ID, CHILD_ID, NOTES_ID]
    main = found[MAIN_ID].record
    assert main["sessionId"] == f"opencode-{MAIN_ID}"
    assert (main["channel"], main["date"], main["topics"]) == ("opencode", "2026-03-14", ["ledger"])
    assert main["title"] == "Round Swiss VAT to 0.05 CHF"  # opencode's own title
    assert main["summary"] == "Fixed Swiss VAT rounding to 0.05 CHF in vat.py; changelog noted."
    assert main["origin"] == {"agent": "opencode", "id": MAIN_ID, "cwd": "/home/lin/code/ledger",
                              "path": str(DATABASE.absolute())}
    assert found[MAIN_ID].last_activity == "2026-03-14T09:31:02.000Z"


def test_messages_in_time_order_with_tools_compact(connection: sqlite3.Connection) -> None:
    main = sessions(connection)[MAIN_ID]
    messages = main.record["messages"]
    # rows were written newest first and the last reply's id sorts before its prompt's
    assert [(m["id"], m["role"]) for m in messages] == [
        ("msg_c5701e3b4001AbCdEfGhIj0001", "user"),
        ("msg_c5701e3b9001AbCdEfGhIj0002", "assistant"),
        ("msg_c5701e3b9001AbCdEfGhIj0002-results", "tool"),
        ("msg_c5701e3c8001AbCdEfGhIj0003", "assistant"),
        ("msg_c5701f2a0001AbCdEfGhIj0005", "user"),
        ("msg_c5701f2a0000AbCdEfGhIj0004", "assistant"),
        ("msg_c5701f2a0000AbCdEfGhIj0004-results", "tool")]
    assert messages[0]["time"] == "2026-03-14T09:12:04.000Z"
    prompt, answer, results = (m["content"] for m in messages[:3])
    # the file's content opencode read into the prompt is not the user's words
    assert prompt == ("The monthly export rounds VAT wrong for Swiss invoices; fix the rounding "
                      "to 0.05 CHF and keep the tests green. @src/ledger/vat.py\n"
                      "[file: src/ledger/vat.py]")
    assert answer.startswith("Let me find every caller of round_vat first.\n[tool: task] ")
    assert '[tool: bash] {"command": "uv run pytest -q", "description": "Run the tests"}' in answer
    task_result, test_result = results.split("\n[tool result: bash] ")
    assert task_result == ("[tool result: task] round_vat is in src/ledger/vat.py:41; export.py "
                           "calls it twice.")
    assert test_result.startswith("test result: 212 passed")
    assert len(test_result) <= 301  # cut to --tool-chars
    assert messages[6]["content"] == ("[tool error: edit] File CHANGELOG.md has been modified "
                                      "since it was last read")
    assert not any("[thinking]" in c or "00041|" in c for c in contents(main))


def test_what_is_left_out_is_counted(connection: sqlite3.Connection) -> None:
    assert sessions(connection)[MAIN_ID].skipped == {
        "compaction part": 1, "message left empty": 1, "patch part": 1, "reasoning": 1,
        "snapshot part": 1, "step-finish part": 2, "step-start part": 3, "synthetic text": 2,
        "unfinished tool call": 1, "unknown part type world-state": 1,
        "unreadable message row": 1, "unreadable part row": 1}


def test_every_row_of_the_database_has_its_fate(connection: sqlite3.Connection) -> None:
    ledger = Ledger()
    opencode.parse_database(DATABASE, connection, ImportOptions(), ledger)
    totals = checked(ledger).totals()
    rows = sum(connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
               for t in ("session", "message", "part"))
    assert totals.records == rows == 53
    fates = {f.where: (f.fate, f.reason) for f in ledger.fates()}
    main = f"session {MAIN_ID}: "
    assert fates[main + "session row"] == ("imported", "session metadata")
    assert fates[main + "message row msg_c57024b40001AbCdEfGhIj0007"] == (
        "imported", "the session's summary")  # what the compaction wrote
    assert fates[main + "part row prt_30f1a2b3cffe001Ij0001"] == (
        "merged", "its message (message row msg_c5701e3b4001AbCdEfGhIj0001)")
    assert fates[main + "part row prt_30f1a2b3cffe002Ij0001"] == ("left out", "synthetic text")
    empty = "session ses_30e8c1d1bffeOnlyAFileRead: "
    assert fates[empty + "session row"] == ("left out", "session without conversation")
    assert fates[empty + "message row msg_c5801b000001EmPtYoNlYa0001"] == (
        "left out", "message left empty")
    # a message whose session row is gone, and its part
    assert fates["message row msg_c5801c000001OrPhAnEdMs0001"] == (
        "left out", "message of no session")
    assert fates["part row prt_30e8c1d0cffe001Ms0001"] == ("left out", "part of no message")
    assert totals.parts_left_out == {"unfinished tool call": 1}


def test_a_session_passed_over_by_since_has_only_its_row_read(
        connection: sqlite3.Connection) -> None:
    ledger = Ledger()
    opencode.parse_database(DATABASE, connection, ImportOptions(since="2026-03-15"), ledger)
    fates = {f.where: f.reason for f in checked(ledger).fates()}
    assert fates[f"session {MAIN_ID}: session row"] == "session last active before --since"
    assert not [w for w in fates if w.startswith(f"session {MAIN_ID}: message")]


def test_thinking_on_request_and_tool_chars(connection: sqlite3.Connection) -> None:
    main = sessions(connection, thinking=True, tool_chars=20)[MAIN_ID]
    answer, results = contents(main)[1:3]
    assert answer.startswith("[thinking] Looking for the VAT rounding helper.\nLet me find")
    assert '[tool: bash] {"command": "uv run…' in answer
    assert results.endswith("[tool result: bash] test result: 212 pas…")
    assert "reasoning" not in main.skipped


def test_a_screenshot_pasted_alone_is_an_image_message(connection: sqlite3.Connection) -> None:
    # the TUI pastes an image as a file part named "clipboard" with its mime and a data: url
    notes = sessions(connection)[NOTES_ID].record
    assert [(m["role"], m["content"]) for m in notes["messages"][2:]] == [
        ("user", "[image]"),
        ("assistant", "The screenshot shows the TODO for the TLS certificate already ticked.")]


def test_a_sub_agent_session_and_a_default_title(connection: sqlite3.Connection) -> None:
    found = sessions(connection)
    child = found[CHILD_ID].record
    assert child["title"] == "Find the VAT rounding helper (@explore subagent)"
    assert [m["role"] for m in child["messages"]] == ["user", "assistant", "tool"]
    assert child["messages"][2]["content"].startswith(
        "[tool result: grep] src/ledger/vat.py:41:def round_vat")
    notes = found[NOTES_ID].record
    # "New session - <time>" is opencode's placeholder: the first prompt names the session
    assert notes["title"] == "List the open TODOs in notes/ and group them by week."
    assert (notes["date"], notes["topics"], notes["origin"]["cwd"]) == (
        "2026-03-15", ["notes"], "/home/lin/notes")


def test_since_leaves_older_sessions_unread(connection: sqlite3.Connection) -> None:
    assert list(sessions(connection, since="2026-03-15")) == [NOTES_ID]
    with pytest.raises(NothingToImport, match="no session with conversation messages"):
        sessions(connection, since="2026-04-01")


def _minimal_database(path: Path, session_columns: str, session_row: tuple[Any, ...],
                      message_time: bool = True) -> None:
    """A database shaped like another opencode version's, with one prompt and one reply."""
    db = sqlite3.connect(path)
    time_column = "time_created integer, " if message_time else ""
    db.executescript(f"""
        CREATE TABLE project (id text PRIMARY KEY, worktree text);
        CREATE TABLE session ({session_columns});
        CREATE TABLE message (id text, session_id text, {time_column}data text);
        CREATE TABLE part (id text, message_id text, data text);""")
    db.execute("INSERT INTO project VALUES ('p1', '/home/lin/code/atlas'), ('global', '/')")
    db.execute(f"INSERT INTO session VALUES ({','.join('?' * len(session_row))})", session_row)
    for message_id, time, data in [
            ("msg_1", 1773500000000, {"role": "user"}),
            ("msg_2", 1773500005000, {"role": "assistant", "path": {"cwd": "/srv/atlas-checkout"}})]:
        row = (message_id, "ses_x", *([time] if message_time else []), json.dumps(data))
        db.execute(f"INSERT INTO message VALUES ({','.join('?' * len(row))})", row)
    db.executemany("INSERT INTO part VALUES (?,?,?)", [
        ("prt_1", "msg_1", '{"type": "text", "text": "Why is the atlas build slow?"}'),
        ("prt_2", "msg_2", '{"type": "text", "text": "Its cache key changes every run."}')])
    db.commit()
    db.close()


def _read(path: Path) -> list[Transcript]:
    db = sqlite3.connect(path)
    ledger = Ledger()
    try:
        return opencode.parse_database(path, db, ImportOptions(), ledger)
    finally:
        db.close()
        checked(ledger)


def test_other_versions_tables_are_tolerated(tmp_path: Path) -> None:
    # no directory column (a later release dropped it): the project's folder stands in
    without_directory = tmp_path / "a.db"
    _minimal_database(without_directory, "id text, project_id text, title text",
                      ("ses_x", "p1", "Atlas build"))
    (found,) = _read(without_directory)
    assert found.record["topics"] == ["atlas"] and found.record["title"] == "Atlas build"
    # the session has no time: its date is its first message's, from the row's own time
    assert found.record["date"] == "2026-03-14"
    # a project outside any repository has "/" as its folder: the reply's cwd stands in; without
    # any time the messages are in id order
    global_project = tmp_path / "b.db"
    _minimal_database(global_project, "id text, project_id text", ("ses_x", "global"),
                      message_time=False)
    (found,) = _read(global_project)
    assert found.record["origin"]["cwd"] == "/srv/atlas-checkout"
    assert [m["content"] for m in found.record["messages"]] == [
        "Why is the atlas build slow?", "Its cache key changes every run."]
    assert found.record["title"] == "Why is the atlas build slow?"


def test_a_database_without_what_it_needs(tmp_path: Path) -> None:
    path = tmp_path / "opencode.db"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE project (id text); CREATE TABLE session (id text);"
                     "CREATE TABLE message (id text, session_id text, data text);"
                     "CREATE TABLE part (id text, message_id text);")
    db.close()
    with pytest.raises(InvalidSession, match="not an opencode database: table part has no data"):
        _read(path)
    empty = tmp_path / "empty.db"
    _minimal_database(empty, "id text", ("ses_other",))  # its messages belong to no session
    with pytest.raises(NothingToImport, match=r"\(1 sessions\)"):
        _read(empty)


def test_the_database_is_recognized_by_its_tables(connection: sqlite3.Connection) -> None:
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert opencode.looks_like_database(tables)
    assert not opencode.looks_like_database({"cursorDiskKV", "ItemTable"})  # Cursor's
    assert not opencode.looks_like_database({"session", "message", "part"})  # too common alone


# the JSON tree -------------------------------------------------------------------------------

def test_a_session_of_the_tree_reads_its_messages_and_parts() -> None:
    transcript = tree_session(TREE_MAIN)
    r = transcript.record
    assert r["sessionId"] == "opencode-ses_52a0c3d4effeCsvExportSpeed"
    assert (r["date"], r["topics"], r["title"]) == ("2025-11-20", ["ledger"],
                                                    "Speed up the CSV export")
    assert r["origin"]["path"] == str(TREE_MAIN.absolute())
    assert [(m["role"], m["content"][:40]) for m in r["messages"]] == [
        ("user", "The CSV export of 40k invoices takes 90 "),
        ("assistant", '[tool: read] {"filePath": "/home/lin/cod'),
        ("tool", "[tool result: read] <file>\n00001| line 1")]
    assert len(r["messages"][2]["content"]) <= len("[tool result: read] ") + 301
    # the part file a crash cut short is counted, the rest of the session is read
    assert transcript.skipped == {"reasoning": 1, "step-finish part": 1, "step-start part": 1,
                                  "unreadable part file": 1}
    # the session file, and each message and part file read with it, has its fate
    fates = {f.where: (f.fate, f.reason) for f in tree_ledger(TREE_MAIN).fates()}
    assert fates["session ses_52a0c3d4effeCsvExportSpeed"] == ("imported", "session metadata")
    assert fates["message msg_a4c1f0e10001CsVeXpOrTs0001"] == ("imported", "")
    assert fates["part prt_a4c1f0e50001004Ts0002"] == ("left out", "unreadable part file")
    assert sum(1 for fate, _ in fates.values() if fate == "merged") == 3
    thinking = tree_session(TREE_MAIN, thinking=True).record["messages"][1]["content"]
    assert thinking.startswith("[thinking] Probably one query per invoice.\n[tool: read]")


def test_a_sub_agent_session_of_the_tree() -> None:
    r = tree_session(TREE_CHILD).record
    assert r["title"] == "Profile the export (@general subagent)"
    assert [m["content"] for m in r["messages"]][1] == (
        "fetch_customer() is 96% of the time: one query per invoice row.")


def test_the_oldest_tree_with_parts_inside_messages() -> None:
    transcript = tree_session(OLDEST)
    r = transcript.record
    assert (r["date"], r["title"]) == ("2025-06-20", "Name the bookkeeping CLI")
    assert r["topics"] == ["ledger"]  # from the reply's path: the session has no directory
    assert [m["content"] for m in r["messages"]] == [
        "What is a good name for a bookkeeping CLI?",
        ('[tool: webfetch] {"url": "https://pypi.org/project/ledgerly/"}\n'
         "How about 'ledgerly'? Short, and free on PyPI."),
        "[tool result: webfetch] 404: no such project"]
    assert transcript.skipped == {"step-start part": 1}
    fates = {f.where: f.fate for f in tree_ledger(OLDEST).fates()}
    assert fates["message msg_97a0b1c60001OlDeStNaMe0002 parts[1]"] == "merged"  # parts inside


def test_a_tree_message_of_the_wrong_shape_costs_only_itself(tmp_path: Path) -> None:
    data = tmp_path / "opencode"
    shutil.copytree(OLDER, data)
    session = data / TREE_MAIN.relative_to(OLDER)
    messages = data / "storage" / "message" / TREE_MAIN.stem
    first = min(messages.glob("*.json"))
    first.write_text("[1, 2]", "utf-8")  # not a message: it and its parts are left out
    ledger = tree_ledger(session)
    fates = {f.where: f.reason for f in ledger.fates()}
    assert fates[f"message {first.stem}"] == "unreadable message file"
    assert fates["part prt_a4c1f0e10001000Ts0001"] == "part of an unreadable message"
    assert tree_session(session).record["messages"][0]["role"] == "assistant"


@pytest.mark.parametrize(("path", "what"), [
    (TREE / "message" / "ses_52a0c3d4effeCsvExportSpeed" / "msg_a4c1f0e10001CsVeXpOrTs0001.json",
     "message"),
    (TREE / "part" / "msg_a4c1f0e10001CsVeXpOrTs0001" / "prt_a4c1f0e10001000Ts0001.json", "part"),
    (TREE / "project" / f"{PROJECT}.json", "project"),
    (TREE / "todo" / "ses_52a0c3d4effeCsvExportSpeed.json", "todo list"),
    (TREE / "session_diff" / "ses_52a0c3d4effeCsvExportSpeed.json", "list of file changes"),
    (OLDEST.parent.parent / "share" / OLDEST.name, "share link"),
])
def test_the_trees_other_files_are_recognized_and_hold_nothing_to_import(path: Path,
                                                                          what: str) -> None:
    value = json.loads(path.read_bytes())
    assert opencode.looks_like_document(value, path)
    with pytest.raises(NothingToImport, match=f"an opencode {what}"):
        opencode.parse_value(path, value, ImportOptions(), Ledger())


def test_a_session_file_away_from_its_tree(tmp_path: Path) -> None:
    moved = tmp_path / TREE_MAIN.name
    moved.write_bytes(TREE_MAIN.read_bytes())
    with pytest.raises(NothingToImport, match="outside its storage folder"):
        tree_session(moved)
    with pytest.raises(InvalidSession, match="not an opencode session"):
        opencode.parse_value(moved, {"id": "x", "title": "t"}, ImportOptions(), Ledger())
    alone = tmp_path / "storage" / "session" / PROJECT / TREE_MAIN.name  # no message folder
    alone.parent.mkdir(parents=True)
    alone.write_bytes(TREE_MAIN.read_bytes())
    with pytest.raises(NothingToImport, match="an opencode session without messages"):
        tree_session(alone)


def test_a_session_opencode_copied_elsewhere_is_read_once(tmp_path: Path) -> None:
    data = tmp_path / "opencode"
    shutil.copytree(OLDER, data)
    # on its first start a release with the database copies the tree into it, leaving the tree
    (data / "opencode.db").write_bytes(DATABASE.read_bytes())
    moved = data / TREE_MAIN.relative_to(OLDER)
    with pytest.raises(NothingToImport, match=r"copied into opencode.db by a one-time migration"):
        tree_session(moved)
    # before that, a release copied the oldest tree into the newer one
    oldest = data / OLDEST.relative_to(OLDER)
    copied = data / "storage" / "session" / PROJECT / OLDEST.name
    assert tree_session(oldest).record["title"] == "Name the bookkeeping CLI"
    copied.write_bytes(OLDEST.read_bytes())
    with pytest.raises(NothingToImport, match="copied into storage/session"):
        tree_session(oldest)


def _other_documents() -> Iterator[tuple[str, Any]]:
    """Every JSON document and JSON line of the other formats' fixtures and the archive's."""
    for path in sorted([*FORMATS.rglob("*.json"), *(DATA / "sessions").rglob("*.json")]):
        if OPENCODE not in path.parents:
            yield from _decoded(str(path.relative_to(DATA)), path.read_text("utf-8"))
    for path in sorted([*FORMATS.rglob("*.jsonl"), *(DATA / "jsonl").rglob("*.jsonl")]):
        for number, line in enumerate(path.read_text("utf-8").split("\n"), start=1):
            yield from _decoded(f"{path.relative_to(DATA)}:{number}", line)


def _decoded(name: str, text: str) -> Iterator[tuple[str, Any]]:
    with contextlib.suppress(ValueError):  # the damaged files and torn lines of the fixtures
        yield name, json.loads(text)


def test_other_formats_are_not_taken_for_opencode() -> None:
    documents = dict(_other_documents())
    assert len(documents) > 100  # ChatGPT, Gemini, Codex, Claude Code, archive sessions, ...
    assert [name for name, value in documents.items()
            if opencode.looks_like_document(value, Path(name))] == []


# where the files are -------------------------------------------------------------------------

def test_default_paths_follow_xdg_data_home_and_opencode_db(tmp_path: Path) -> None:
    home = tmp_path / "home"
    data = home / ".local" / "share" / "opencode"
    assert opencode.default_paths(home, {}) == [data / "opencode.db", data / "storage" / "session"]
    assert opencode.default_paths(home, {"XDG_DATA_HOME": "/srv/xdg"}) == [
        Path("/srv/xdg/opencode/opencode.db"), Path("/srv/xdg/opencode/storage/session")]
    # OPENCODE_DB names the database: a path, or a name inside the data folder
    assert opencode.default_paths(home, {"OPENCODE_DB": "/srv/oc/mine.db"})[0] == Path(
        "/srv/oc/mine.db")
    assert opencode.default_paths(home, {"OPENCODE_DB": "work.db"})[0] == data / "work.db"
    assert opencode.default_paths(home, {"OPENCODE_DB": ":memory:"})[0] == data / "opencode.db"


def test_candidates_are_the_database_and_session_files() -> None:
    found = sorted(p.relative_to(OPENCODE).as_posix() for p in OPENCODE.rglob("*")
                   if p.is_file() and opencode.is_candidate(p))
    assert found == [
        ("older-install/project/home-lin-code-ledger/storage/session/info/"
         "ses_7d10e2f3fffeNameTheLedgerC.json"),
        f"older-install/storage/session/{PROJECT}/ses_52a0c3d3dffeProfileExport1.json",
        f"older-install/storage/session/{PROJECT}/ses_52a0c3d4effeCsvExportSpeed.json",
        "opencode.db"]
    assert opencode.is_candidate(Path("/d/opencode/opencode-dev.db"))  # a development channel's
    assert not opencode.is_candidate(Path("/d/opencode/opencode.db-wal"))
    assert not opencode.is_candidate(Path("/d/opencode/storage/todo/ses_1.json"))


def test_resume_reopens_a_session_by_its_id() -> None:
    command, note = opencode.FORMAT.resume
    assert command is not None and command.format(id=MAIN_ID) == f"opencode --session {MAIN_ID}"
    assert "cwd" in note


# through the shared readers and the real pipeline --------------------------------------------

def test_files_of_the_tree_are_recognized_by_content(tmp_path: Path) -> None:
    part = TREE / "part" / "msg_a4c1f0e10001CsVeXpOrTs0001" / "prt_a4c1f0e10001000Ts0001.json"
    for path in (TREE_MAIN, OLDEST, part, TREE / "todo" / "ses_52a0c3d4effeCsvExportSpeed.json"):
        assert detect_format(tmp_path / "renamed.json", path.read_text("utf-8")) == "opencode"
    (raw,) = load_file(TREE_MAIN, TREE_MAIN.read_bytes(), 10_000_000)
    assert isinstance(raw, RawSession) and raw.record["title"] == "Speed up the CSV export"
    assert load_file(part, part.read_bytes(), 10_000_000) == []  # read with its session


def test_the_database_through_the_shared_reader(tmp_path: Path,
                                                connection: sqlite3.Connection) -> None:
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert database_format(tables) == "opencode"
    found = read_database(DATABASE, ImportOptions(), Ledger())
    assert [t.record["origin"]["id"] for t in found] == [MAIN_ID, CHILD_ID, NOTES_ID]
    damaged = tmp_path / "opencode.db"
    damaged.write_bytes(DATABASE.read_bytes()[:20_000])  # cut short
    with pytest.raises(InvalidSession, match="unreadable SQLite database: database disk image"):
        read_database(damaged, ImportOptions(), Ledger())
    # named as opencode's, a database of another kind says what it lacks
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.executescript("CREATE TABLE notes (id text, body text);")
    db.close()
    with pytest.raises(InvalidSession, match="not an opencode database: table session has no id"):
        read_database(other, ImportOptions(format="opencode"), Ledger())


def test_candidates_and_default_locations(tmp_path: Path) -> None:
    found = candidate_files("opencode", [OPENCODE])
    assert sorted(p.name for p in found) == sorted(
        ["opencode.db", OLDEST.name, TREE_MAIN.name, TREE_CHILD.name])
    assert candidate_files("opencode", default_paths("opencode", tmp_path, {
        "XDG_DATA_HOME": str(FORMATS)})) == [DATABASE]
    data = tmp_path / ".local" / "share" / "opencode"
    assert default_paths("opencode", tmp_path, {}) == [data / "opencode.db",
                                                       data / "storage" / "session"]


def test_an_imported_session_resumes_in_its_folder() -> None:
    (transcript,) = opencode.parse_value(OLDEST, json.loads(OLDEST.read_bytes()), ImportOptions(),
                                         Ledger())
    session, _, _ = normalize(transcript.record, None)
    hint = resume_hint(session)
    assert (hint.command, hint.cwd) == ("opencode --session ses_7d10e2f3fffeNameTheLedgerC",
                                        "/home/lin/code/ledger")


def test_indexed_sessions_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "opencode"
    shutil.copytree(OPENCODE, source)
    service = make_service(tmp_path / "home")
    report = service.index([source])
    # three sessions in the database, two in the tree, one in the oldest tree; the message, part
    # and metadata files have nothing of their own, and only the torn part file is rejected
    assert report.indexed == 6
    assert [Path(r.path).name for r in report.rejected] == ["prt_a4c1f0e50001004Ts0002.json"]
    for query, session in [("Swiss VAT rounding", MAIN_ID), ("fetch_customer", TREE_CHILD.stem),
                           ("bookkeeping CLI", OLDEST.stem), ("open TODOs", NOTES_ID)]:
        hits = service.search(SearchRequest(query=query, mode="keyword")).results
        assert hits[0].session_id == f"opencode-{session}", query
    assert not service.search(SearchRequest(query="00041", mode="keyword")).results  # synthetic
    again = service.index([source])
    assert again.indexed == 0
