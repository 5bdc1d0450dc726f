"""The Zed importer: its thread database (threads in order, both shapes of thread, what is kept and
the fate of every row and message, rows that cannot be read), recognizing the database, where it
lives, and the pipeline from the fixture folder to search results."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard

from indexer.formats import ImportOptions, NothingToImport, Transcript, read_database, zed
from indexer.formats.detect import connection_format
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import UNACCOUNTED, Ledger
from indexer.formats.resume import resume_hint
from indexer.formats.sources import normalize
from models import SearchRequest

from .helpers import FORMATS, contents, make_service

ZED = FORMATS / "zed"
DATABASE = ZED / "threads" / "threads.db"
MAIN = "a3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
CHILD = "b4e2d3c5-6f70-4b8c-9dae-1f2a3b4c5d6e"
LEGACY = "c5f3e4d6-7081-4c9d-aebf-2a3b4c5d6e7f"
OLDER = "d6a4f5e7-8192-4dae-bfc0-3b4c5d6e7f80"
OLDEST = "e7b5a6f8-92a3-4ebf-c0d1-4c5d6e7f8091"


@pytest.fixture
def connection() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(f"{DATABASE.absolute().as_uri()}?mode=ro", uri=True)
    yield db
    db.close()


def threads(connection: sqlite3.Connection, ledger: Ledger | None = None,
            **options: Any) -> dict[str, Transcript]:
    found = zed.parse_database(DATABASE, connection, ImportOptions(**options), ledger or Ledger())
    return {t.record["origin"]["id"]: t for t in found}


def test_one_session_per_thread_oldest_first(connection: sqlite3.Connection) -> None:
    found = threads(connection)
    assert list(found) == [OLDEST, OLDER, LEGACY, MAIN, CHILD]
    main = found[MAIN]
    assert main.record["sessionId"] == f"zed-{MAIN}"
    assert (main.record["channel"], main.record["date"], main.record["topics"]) == (
        "zed", "2026-03-14", ["ledger"])
    assert main.record["title"] == "Fix the flaky retry test"
    assert main.record["summary"] == "Made the retry backoff deterministic; the flaky test passes."
    assert main.record["origin"] == {"agent": "zed", "id": MAIN, "cwd": "/home/lin/code/ledger",
                                     "path": str(DATABASE.absolute())}
    # Zed keeps no time per message: the thread's last update is its last activity
    assert main.last_activity == "2026-03-14T09:31:02.512345+00:00"
    assert all("time" not in m for m in main.record["messages"])


def test_a_current_thread_reads_as_the_panel_shows_it(connection: sqlite3.Connection) -> None:
    messages = contents(threads(connection)[MAIN])
    assert [role for role, _ in messages] == ["user", "assistant", "tool", "user", "assistant",
                                             "tool", "assistant"]
    prompt, answer, results = (text for _, text in messages[:3])
    # the mentioned file stands as its name: its content was context, not the user's words
    assert prompt == ("test_backoff fails one run in five; make it deterministic.\n"
                      "[mention: /home/lin/code/ledger/tests/test_retry.py]")
    assert answer.startswith("The backoff jitter reads the global random state.\n[tool: grep] ")
    assert '[tool: terminal] {"command": "uv run pytest -q", "cd": "ledger"}' in answer
    assert "import random" not in prompt and "[thinking]" not in answer
    grep, terminal = results.split("\n[tool result: terminal] ")
    assert grep == "[tool result: grep] ledger/retry.py:12: random.random()"
    assert len(terminal) <= 301  # cut to --tool-chars
    assert messages[3] == ("user", "[image]")  # a screenshot pasted alone
    assert messages[5] == ("tool", ("[tool error: edit_file] Some edits were produced but none "
                                    "of them could be applied."))
    draft = "also check the other tests"  # an unsent draft is not part of the conversation
    assert not any(draft in text for _, text in messages)


def test_what_is_left_out_is_counted(connection: sqlite3.Connection) -> None:
    found = threads(connection)
    assert found[MAIN].skipped == {
        "mention content": 1, "redacted thinking": 1, "resume marker": 1, "thinking": 1,
        "tool call without result": 1, "unknown content Citation": 1,
        "unknown message type System": 1}
    assert found[LEGACY].skipped == {"attached context": 1, "hidden message": 1,
                                     "redacted thinking": 1, "system message": 1, "thinking": 1}
    assert found[CHILD].skipped == {}


def test_every_row_and_message_has_its_fate(connection: sqlite3.Connection) -> None:
    ledger = Ledger()
    threads(connection, ledger)
    totals = ledger.totals()
    assert totals.adds_up() and UNACCOUNTED not in totals.left_out, totals
    rows = connection.execute("SELECT count(*) FROM threads").fetchone()[0]
    assert totals.records == rows + 20 == 29  # each row, and each message of a thread read
    fates = {f.where: (f.fate, f.reason) for f in ledger.fates()}
    assert fates[f"thread {MAIN}: thread row"] == ("imported", "thread metadata")
    assert fates[f"thread {MAIN}: messages[4]"] == ("left out", "resume marker")
    assert {reason for where, (fate, reason) in fates.items()
            if where.endswith("thread row") and fate == "left out"} == {
        "thread without conversation", "damaged zstd data", "unknown data type brotli",
        "thread JSON that is not an object"}


def test_thinking_on_request_and_tool_chars(connection: sqlite3.Connection) -> None:
    found = threads(connection, thinking=True, tool_chars=20)
    answer = dict(enumerate(contents(found[MAIN])))[1][1]
    assert answer.startswith("[thinking] The jitter uses the global random; seed it.\n")
    assert "thinking" not in found[MAIN].skipped
    assert found[MAIN].skipped["redacted thinking"] == 1  # never readable
    assert "[thinking] Find the header writer." in contents(found[LEGACY])[1][1]
    results = contents(found[MAIN])[2][1]
    assert results.startswith("[tool result: grep] ledger/retry.py:12:…")


def test_threads_of_the_older_shapes(connection: sqlite3.Connection) -> None:
    found = threads(connection)
    legacy = found[LEGACY]
    # the placeholder title gives way to the first prompt; the generated summary is kept
    assert legacy.record["title"] == "Rename the amount column to amount_chf in export.csv"
    assert legacy.record["summary"] == "Renamed the CSV columns."
    assert legacy.record["topics"] == ["exports"]  # from the project snapshot
    assert contents(legacy)[1:3] == [
        ("assistant", ('The header is written in export.py.\n[tool: read_file] {"path": '
                       '"export.py"}')),
        ("tool", "[tool result: read_file] HEADER = ['date', 'amount']")]
    # 0.1.0: the result came back on the next user message, named by the call before it
    assert contents(found[OLDER])[1:3] == [
        ("assistant", 'Profiling it.\n[tool: terminal] {"command": "py-spy top"}'),
        ("tool", "[tool result: terminal] 87% in csv.writer.writerow")]
    assert contents(found[OLDEST]) == [("user", "Suggest a name for the ledger CLI"),
                                       ("assistant", "How about `tally`?")]


def test_since_passes_over_older_threads(connection: sqlite3.Connection) -> None:
    ledger = Ledger()
    found = threads(connection, ledger, since="2026-01-01")
    assert list(found) == [MAIN, CHILD]
    assert ledger.totals().left_out["thread last active before --since"] == 3


def _database(path: Path, rows: list[tuple[Any, ...]], schema: str = "") -> Path:
    db = sqlite3.connect(path)
    db.executescript(schema or "CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, "
                               "updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB)")
    db.executemany("INSERT INTO threads VALUES (?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()
    return path


def test_the_first_releases_table_and_a_bounded_inflate(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    thread = {"version": "0.3.0", "title": "Atlas", "updated_at": "2026-02-01T00:00:00Z",
              "messages": [{"User": {"id": "u1", "content": [{"Text": "Why is atlas slow?"}]}}]}
    frame = zstandard.ZstdCompressor(write_content_size=False).compress(json.dumps(thread).encode())
    path = _database(tmp_path / "threads.db", [("t1", "Atlas", "2026-02-01T00:00:00+00:00", "zstd",
                                               frame)])
    (found,) = read_database(path, ImportOptions(), Ledger())
    assert (found.record["title"], found.record["date"]) == ("Atlas", "2026-02-01")
    assert "topics" not in found.record  # no folder_paths column yet, no snapshot
    monkeypatch.setattr(zed.rows, "MAX_JSON_BYTES", 10)
    with pytest.raises(NothingToImport, match=r"no thread with conversation \(1 threads\)"):
        read_database(path, ImportOptions(), Ledger())


def test_the_database_is_recognized_by_its_columns(tmp_path: Path,
                                                   connection: sqlite3.Connection) -> None:
    assert connection_format(connection, {"threads"}) == "zed"
    other = sqlite3.connect(":memory:")
    other.execute("CREATE TABLE threads (id TEXT, title TEXT, body TEXT)")  # a forum's
    assert not zed.looks_like_database(other, {"threads"})
    assert not zed.looks_like_database(connection, {"messages"})


def test_a_damaged_database_is_rejected_while_the_batch_goes_on(tmp_path: Path) -> None:
    source = tmp_path / "zed"
    shutil.copytree(ZED, source)
    broken = source / "copy" / "threads.db"
    broken.parent.mkdir()
    broken.write_bytes(DATABASE.read_bytes()[:6000])  # cut short
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert report.indexed == 5
    (rejected,) = report.rejected
    assert rejected.path == str(broken) and "unreadable SQLite database" in rejected.reason


def test_candidates_default_locations_and_resume(tmp_path: Path) -> None:
    assert candidate_files("zed", [ZED]) == [DATABASE]
    assert candidate_files("zed", default_paths("zed", tmp_path, {
        "XDG_DATA_HOME": str(FORMATS)})) == [DATABASE]
    paths = default_paths("zed", tmp_path, {"FLATPAK_XDG_DATA_HOME": "/f", "XDG_DATA_HOME": "/x",
                                            "LOCALAPPDATA": "/w"})
    assert paths == [Path("/f/zed/threads/threads.db"),
                     tmp_path / ".var/app/dev.zed.Zed/data/zed/threads/threads.db",
                     tmp_path / "Library/Application Support/Zed/threads/threads.db",
                     Path("/w/Zed/threads/threads.db")]
    assert default_paths("zed", tmp_path, {})[0] == tmp_path / ".local/share/zed/threads/threads.db"
    assert not zed.is_candidate(Path("/d/zed/threads/threads.db-wal"))
    assert zed.FORMAT.resume.command is None and "agent panel" in zed.FORMAT.resume.note


def test_an_imported_thread_resumes_in_its_folder(connection: sqlite3.Connection) -> None:
    session, _, _ = normalize(threads(connection)[MAIN].record, None)
    hint = resume_hint(session)
    assert (hint.command, hint.cwd) == (None, "/home/lin/code/ledger")


def test_indexed_threads_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "zed"
    shutil.copytree(ZED, source)
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert (report.indexed, report.rejected) == (5, [])
    for query, thread in [("flaky retry", MAIN), ("amount_chf", LEGACY), ("tally", OLDEST),
                          ("callers of backoff", CHILD)]:
        hits = service.search(SearchRequest(query=query, mode="keyword")).results
        assert hits[0].session_id == f"zed-{thread}", query
    again = service.index([source])
    assert (again.indexed, again.unchanged) == (0, 1)
