"""The SQLite files recall keeps (state, todos, memory relevance) open one way: autocommit with
explicit write transactions, WAL, a full sync on commit, and deleted rows overwritten."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

__all__ = ["SQLiteStore", "connect", "transaction"]


def connect(path: Path, timeout: float = 30.0) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None, timeout=timeout)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    # forgotten text (a session's title, a todo, a memory) is overwritten, not left in free pages
    db.execute("PRAGMA secure_delete=ON")
    return db


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taken at once so two writers queue instead of deadlocking."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


class SQLiteStore:
    """A store in one SQLite file with its schema, used as a context manager."""

    def __init__(self, path: Path, schema: str, timeout: float = 30.0) -> None:
        self.path = path
        self._db = connect(path, timeout)
        self._db.executescript(schema)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def vacuum(self) -> None:
        """Rewrite the database file and empty the write-ahead log (for purging)."""
        self._db.execute("VACUUM")
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
