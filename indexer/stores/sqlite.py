"""The SQLite files recall keeps (state, todos, memory relevance, facts, tokens) open one way:
autocommit with explicit write transactions, WAL, a full sync on commit, and deleted rows
overwritten. A new file is made in WAL mode before it appears (see `_create`)."""

from __future__ import annotations

import errno
import os
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

__all__ = ["SQLiteStore", "connect", "transaction"]

_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK}


def connect(path: Path, timeout: float = 30.0) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        _create(path)
    db = sqlite3.connect(path, isolation_level=None, timeout=timeout)
    # a no-op on a file _create made (it is in WAL mode already): it switches only a database
    # made otherwise, by hand or by a recall from before _create
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    # forgotten text (a session's title, a todo, a memory) is overwritten, not left in free pages
    db.execute("PRAGMA secure_delete=ON")
    return db


def _create(path: Path) -> None:
    """Make an empty database at `path` in WAL mode, unless another process makes it first.

    Switching a database to WAL takes a write lock on top of the read lock the switching
    connection holds, and SQLite does not wait for a lock it would take that way: a process
    that opened a new file while another was switching it failed at once with "database is
    locked", whatever its busy timeout (two `recall serve` on one data directory, each
    opening tokens.sqlite3 for its first request, answered 503). So the file is made and
    switched under a name no one else opens, then linked into place: whoever opens `path`
    finds it in WAL mode already, and the loser of a race opens the winner's file."""
    made = path.with_name(f".{path.name}.{secrets.token_hex(6)}.new")
    os.close(os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))  # as SQLite makes it
    try:
        db = sqlite3.connect(made, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
        finally:
            db.close()  # the last connection: its log is checkpointed into the file and removed
        os.link(made, path)
    except FileExistsError:
        pass  # another process made it first: that file is the store
    except OSError as exc:
        # a filesystem without hard links: SQLite makes the file in place, as before _create
        if exc.errno not in _NO_LINKS:
            raise
    finally:
        made.unlink(missing_ok=True)


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
