"""Todos in SQLite: a `todos` table in the state database (`<home>/state.sqlite3`).

They live in the state file rather than a file of their own so that what protects forgotten
text there protects them too: `secure_delete` overwrites deleted rows, and `recall delete
--purge` (which VACUUMs the state database) leaves no copy of them in free pages or the log.
Every write is one transaction; the file runs in WAL mode like the rest of the state, so
listing todos never waits for a writer. Todos need no writer lock: they touch no index.
"""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime

from indexer.stores.layout import DataDir
from indexer.stores.sqlite import connect, transaction
from models import NotFound
from models.todo import Todo

__all__ = ["TodoStore", "promoted_todo_id"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS todos (
    id                TEXT PRIMARY KEY,
    content           TEXT NOT NULL,
    period            TEXT NOT NULL CHECK (period IN ('day', 'week', 'month')),
    period_date       TEXT NOT NULL,  -- first day of the period
    period_end        TEXT NOT NULL,  -- last day of the period
    created_at        TEXT NOT NULL,
    completed_at      TEXT,           -- NULL while open
    origin            TEXT NOT NULL CHECK (origin IN ('added', 'promoted')),
    source_session_id TEXT,
    source_memory_id  TEXT
);
CREATE INDEX IF NOT EXISTS todos_period ON todos (period_date, period_end);
CREATE INDEX IF NOT EXISTS todos_session ON todos (source_session_id);
CREATE INDEX IF NOT EXISTS todos_memory ON todos (source_memory_id);
"""

_COLUMNS = ("id, content, period, period_date, period_end, created_at, completed_at, origin, "
            "source_session_id, source_memory_id")
_ORDER = " ORDER BY period_date, CASE period WHEN 'day' THEN 0 WHEN 'week' THEN 1 ELSE 2 END, " \
         "created_at, id"


def promoted_todo_id(memory_id: str) -> str:
    """The id a todo promoted from this memory gets: the same memory always gives the same id."""
    return "td-" + hashlib.sha256(memory_id.encode()).hexdigest()[:16]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class TodoStore:
    def __init__(self, data: DataDir) -> None:
        self.path = data.state_db

    @contextmanager
    def _db(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        db = connect(self.path)
        try:
            db.executescript(_SCHEMA)
            if not write:
                yield db
                return
            with transaction(db):
                yield db
        finally:
            db.close()

    # reads
    def get(self, todo_id: str) -> Todo:
        with self._db() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM todos WHERE id = ?", (todo_id,)).fetchone()
        if row is None:
            raise NotFound(f"no todo {todo_id!r}")
        return _todo(row)

    def by_memory(self, memory_id: str) -> Todo | None:
        with self._db() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM todos WHERE source_memory_id = ? "
                             "ORDER BY created_at, id LIMIT 1", (memory_id,)).fetchone()
        return _todo(row) if row else None

    def list(self, *, period: str | None = None, period_date: str | None = None,
             within: tuple[str, str] | None = None, status: str | None = None) -> list[Todo]:
        """Todos, by period start then day < week < month, then creation. `period_date` picks
        one period's todos (with `period`); `within` (first, last day) picks every todo whose
        period overlaps those days; `status` open or done (None: both)."""
        where, args = [], []
        if period is not None:
            where.append("period = ?")
            args.append(period)
        if period_date is not None:
            where.append("period_date = ?")
            args.append(period_date)
        if within is not None:
            where.append("period_date <= ? AND period_end >= ?")
            args += [within[1], within[0]]
        if status == "open":
            where.append("completed_at IS NULL")
        elif status == "done":
            where.append("completed_at IS NOT NULL")
        sql = f"SELECT {_COLUMNS} FROM todos" + (" WHERE " + " AND ".join(where) if where else "")
        with self._db() as db:
            return [_todo(row) for row in db.execute(sql + _ORDER, args).fetchall()]

    def linked(self, session_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """For each session: (todos promoted from it, todos added with a link to it)."""
        out: dict[str, tuple[int, int]] = {}
        with self._db() as db:
            for start in range(0, len(session_ids), 500):
                chunk = list(session_ids[start : start + 500])
                marks = ", ".join("?" * len(chunk))
                for sid, promoted, added in db.execute(
                        "SELECT source_session_id, SUM(origin = 'promoted'), SUM(origin = 'added') "
                        f"FROM todos WHERE source_session_id IN ({marks}) GROUP BY source_session_id",
                        chunk):
                    out[sid] = (int(promoted), int(added))
        return out

    # writes
    def add(self, content: str, period: str, bounds: tuple[str, str], *,
            source_session_id: str | None = None, source_memory_id: str | None = None) -> Todo:
        todo = Todo(id="td-" + uuid.uuid4().hex[:16], content=content, period=period,  # type: ignore[arg-type]
                    period_date=bounds[0], period_end=bounds[1], status="open",
                    created_at=_now(), completed_at=None, origin="added",
                    source_session_id=source_session_id, source_memory_id=source_memory_id)
        with self._db(write=True) as db:
            if source_session_id is not None:
                _require_session(db, source_session_id)
            _insert(db, todo)
        return todo

    def promote(self, content: str, period: str, bounds: tuple[str, str], *,
                session_id: str, memory_id: str) -> tuple[Todo, bool]:
        """A todo from a task memory, or the one made from it before: (todo, created)."""
        with self._db(write=True) as db:  # look and insert in one transaction: never twice
            row = db.execute(f"SELECT {_COLUMNS} FROM todos WHERE source_memory_id = ? "
                             "ORDER BY created_at, id LIMIT 1", (memory_id,)).fetchone()
            if row is not None:
                return _todo(row), False
            _require_session(db, session_id)
            todo = Todo(id=promoted_todo_id(memory_id), content=content, period=period,  # type: ignore[arg-type]
                        period_date=bounds[0], period_end=bounds[1], status="open",
                        created_at=_now(), completed_at=None, origin="promoted",
                        source_session_id=session_id, source_memory_id=memory_id)
            _insert(db, todo)
        return todo, True

    def set_done(self, todo_id: str, done: bool) -> Todo:
        """Complete (keeping the first completion time) or reopen a todo."""
        with self._db(write=True) as db:
            if done:
                changed = db.execute("UPDATE todos SET completed_at = COALESCE(completed_at, ?) "
                                     "WHERE id = ?", (_now(), todo_id)).rowcount
            else:
                changed = db.execute("UPDATE todos SET completed_at = NULL WHERE id = ?",
                                     (todo_id,)).rowcount
        if not changed:
            raise NotFound(f"no todo {todo_id!r}")
        return self.get(todo_id)

    def forget_sessions(self, session_ids: Iterable[str]) -> tuple[int, int]:
        """A session is forgotten: todos promoted from it go (their text is its text), todos
        added by hand lose their link to it. Returns (deleted, unlinked)."""
        ids = [(sid,) for sid in session_ids]
        if not ids or not self.path.exists():
            return 0, 0
        with self._db(write=True) as db:
            deleted = db.executemany("DELETE FROM todos WHERE source_session_id = ? "
                                     "AND origin = 'promoted'", ids).rowcount
            unlinked = db.executemany("UPDATE todos SET source_session_id = NULL, "
                                      "source_memory_id = NULL WHERE source_session_id = ?",
                                      ids).rowcount
        return deleted, unlinked


def _require_session(db: sqlite3.Connection, session_id: str) -> None:
    """The linked session is still archived, checked inside the todo's own transaction: a
    delete marks the session `deleting` before it forgets its todos, so a todo linked while the
    session is still there is forgotten with it, and none is linked once it is going."""
    row = db.execute("SELECT status FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
    if row is None or row[0] != "indexed":
        raise NotFound(f"no session {session_id!r}")


def _insert(db: sqlite3.Connection, todo: Todo) -> None:
    db.execute(f"INSERT INTO todos ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (todo.id, todo.content, todo.period, todo.period_date, todo.period_end,
                todo.created_at, todo.completed_at, todo.origin, todo.source_session_id,
                todo.source_memory_id))


def _todo(row: tuple[object, ...]) -> Todo:
    (todo_id, content, period, period_date, period_end, created_at, completed_at, origin,
     session_id, memory_id) = row
    return Todo(id=str(todo_id), content=str(content), period=period,  # type: ignore[arg-type]
                period_date=str(period_date), period_end=str(period_end),
                status="done" if completed_at else "open", created_at=str(created_at),
                completed_at=completed_at, origin=origin,  # type: ignore[arg-type]
                source_session_id=session_id, source_memory_id=memory_id)  # type: ignore[arg-type]
