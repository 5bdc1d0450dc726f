"""What is indexed: one SQLite file, written in transactions, so a crash leaves a known state.

A session row is `pending` from just before its archive file and index documents are written
until both indexes have committed it; `deleting` while it is being removed. Rows left in either
state by a crash are finished by the next writer (see Ingestor.reconcile).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from indexer.stores.sqlite import connect, transaction

__all__ = ["SessionRow", "State"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id    TEXT PRIMARY KEY,
    content_hash  TEXT NOT NULL,
    archive_path  TEXT NOT NULL,
    date          TEXT NOT NULL,
    channel       TEXT,
    message_count INTEGER NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pending', 'indexed', 'deleting')),
    updated_at    REAL NOT NULL,
    meta          TEXT NOT NULL DEFAULT '{}'  -- participants, topics, title, summary (JSON)
);
CREATE TABLE IF NOT EXISTS sources (
    path       TEXT PRIMARY KEY,
    file_hash  TEXT NOT NULL,
    session_id TEXT
);
"""


_COLUMNS = "session_id, content_hash, archive_path, date, channel, message_count, status, meta"


@dataclass(frozen=True, slots=True)
class SessionRow:
    session_id: str
    content_hash: str
    archive_path: str  # relative to the archive folder
    date: str
    channel: str | None
    message_count: int
    status: str
    meta: str = "{}"


class State:
    def __init__(self, path: Path) -> None:
        self._db = connect(path)
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(sessions)")}
        if "meta" not in columns:  # state files from before listings had metadata
            self._db.execute("ALTER TABLE sessions ADD COLUMN meta TEXT NOT NULL DEFAULT '{}'")

    def close(self) -> None:
        self._db.close()

    def vacuum(self) -> None:
        """Rewrite the database file and empty the write-ahead log (for purging)."""
        self._db.execute("VACUUM")
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # sessions
    def session(self, session_id: str) -> SessionRow | None:
        row = self._db.execute(
            f"SELECT {_COLUMNS} FROM sessions WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        return SessionRow(*row) if row else None

    def sessions(self, status: str | None = None) -> Iterator[SessionRow]:
        sql = f"SELECT {_COLUMNS} FROM sessions"
        args: tuple[str, ...] = ()
        if status:
            sql += " WHERE status = ?"
            args = (status,)
        for row in self._db.execute(sql + " ORDER BY date DESC, session_id", args).fetchall():
            yield SessionRow(*row)

    def mark(self, rows: Iterable[SessionRow]) -> None:
        now = time.time()
        with self._transaction():
            self._db.executemany(
                "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(session_id) DO "
                "UPDATE SET content_hash = excluded.content_hash, archive_path = excluded.archive_path, "
                "date = excluded.date, channel = excluded.channel, "
                "message_count = excluded.message_count, status = excluded.status, "
                "updated_at = excluded.updated_at, meta = excluded.meta",
                [
                    (r.session_id, r.content_hash, r.archive_path, r.date, r.channel,
                     r.message_count, r.status, now, r.meta)
                    for r in rows
                ],
            )

    def set_status(self, session_ids: Iterable[str], status: str) -> None:
        with self._transaction():
            self._db.executemany(
                "UPDATE sessions SET status = ?, updated_at = ? WHERE session_id = ?",
                [(status, time.time(), sid) for sid in session_ids],
            )

    def forget(self, session_ids: Iterable[str]) -> None:
        ids = [(sid,) for sid in session_ids]
        with self._transaction():
            self._db.executemany("DELETE FROM sessions WHERE session_id = ?", ids)
            self._db.executemany("DELETE FROM sources WHERE session_id = ?", ids)

    def counts(self) -> tuple[int, int]:
        sessions, messages = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(message_count), 0) FROM sessions WHERE status = 'indexed'"
        ).fetchone()
        return int(sessions), int(messages)

    def status_counts(self) -> tuple[int, int]:
        """All sessions and those not yet indexed, counted by the database (a health probe
        must not read every row)."""
        total, unfinished = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(status != 'indexed'), 0) FROM sessions").fetchone()
        return int(total), int(unfinished)

    # sources: input files already seen, by content hash
    def source_hash(self, path: str) -> str | None:
        row = self._db.execute("SELECT file_hash FROM sources WHERE path = ?", (path,)).fetchone()
        return row[0] if row else None

    def record_sources(self, entries: Iterable[tuple[str, str, str | None]]) -> None:
        with self._transaction():
            self._db.executemany(
                "INSERT INTO sources VALUES (?, ?, ?) ON CONFLICT(path) DO UPDATE SET "
                "file_hash = excluded.file_hash, session_id = excluded.session_id",
                list(entries),
            )

    def _transaction(self) -> AbstractContextManager[None]:
        return transaction(self._db)
