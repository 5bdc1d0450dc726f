"""indexer/stores/sqlite.py: processes opening a store that does not exist yet at the same
moment all open it (two `recall serve` on one data directory made tokens.sqlite3 on their first
requests, and one answered 503 "database is locked"); the file is in WAL mode from the moment it
appears, and no temporary file is left."""

from __future__ import annotations

import errno
import multiprocessing
import os
import sqlite3
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest

from indexer.stores import sqlite as sqlite_store
from indexer.stores.sqlite import SQLiteStore, connect

SCHEMA = "CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, text TEXT NOT NULL);"
ROUNDS = 100


def _open_new_stores(folder: str, barrier: Barrier, failures: multiprocessing.Queue[str]) -> None:
    """In a process of its own: open store-<n>.sqlite3 for n in 0..ROUNDS, each at the moment the
    other process does."""
    for n in range(ROUNDS):
        barrier.wait()
        try:
            with SQLiteStore(Path(folder) / f"store-{n}.sqlite3", SCHEMA, timeout=10):
                pass
        except sqlite3.OperationalError as exc:
            failures.put(f"round {n}: {exc}")


def test_two_processes_opening_a_new_store_at_once_both_open_it(tmp_path: Path) -> None:
    # Before the fix, the process that came second while the first switched the new file to
    # WAL failed at once, busy timeout or not: about one race in five on an idle machine.
    spawn = multiprocessing.get_context("spawn")
    barrier, failures = spawn.Barrier(2), spawn.Queue()
    workers = [spawn.Process(target=_open_new_stores, args=(str(tmp_path), barrier, failures))
               for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [worker.exitcode for worker in workers] == [0, 0]
    found = []
    while not failures.empty():
        found.append(failures.get())
    assert found == []
    for n in range(ROUNDS):
        db = sqlite3.connect(tmp_path / f"store-{n}.sqlite3")
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        db.close()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("store-")) == []


def test_a_store_made_meanwhile_by_another_process_is_the_one_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "facts.sqlite3"
    link = os.link

    def other_process_first(source: Path, target: Path) -> None:
        other = sqlite3.connect(path, isolation_level=None)  # made in the moment before the link
        other.execute("PRAGMA journal_mode=WAL")
        other.executescript(SCHEMA + "INSERT INTO rows (text) VALUES ('made by the other');")
        other.close()
        link(source, target)

    monkeypatch.setattr(sqlite_store.os, "link", other_process_first)
    with SQLiteStore(path, SCHEMA) as store:
        assert store._db.execute("SELECT text FROM rows").fetchall() == [("made by the other",)]
        assert store._db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert [p.name for p in tmp_path.iterdir()] == ["facts.sqlite3"]


def test_without_hard_links_the_store_is_made_in_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_links(source: Path, target: Path) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(sqlite_store.os, "link", no_links)
    db = connect(tmp_path / "state.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    db.close()
    assert [p.name for p in tmp_path.iterdir()] == ["state.sqlite3"]
