"""The SQLite files recall keeps (state, todos, memory relevance) open one way: autocommit with
explicit write transactions, WAL, a full sync on commit, and deleted rows overwritten."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["connect", "transaction"]


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
