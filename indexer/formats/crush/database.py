"""Crush's SQLite database (`crush.db` in a project's `.crush` folder), read into sessions with
their message rows (parts.py renders a row's parts, __init__.py builds the records).

Its schema is the goose-migrations of internal/db/migrations/: `sessions` (id, parent_session_id,
title, message_count, tokens, cost, created_at, updated_at, summary_message_id, todos),
`messages` (id, session_id, role, parts: JSON, model, provider, created_at, updated_at,
finished_at, is_summary_message), `files` (file versions the agent wrote) and `read_files`.
Times are epoch seconds (internal/db/sql/*.sql write `strftime('%s', 'now')`, though the
first migration's comments say milliseconds: both are read). Choices:

- One session per `sessions` row, oldest first; a sub-agent's session (`<message id>$$<tool
  call id>`, parent set) is its own. The session crush makes to name another
  (`title-<parent id>`) is its own bookkeeping: left out with its messages.
- Messages in creation order, then row order, as crush lists them (ListMessagesBySession).
- Each session has a ledger of its own: its `session row` and its `message row <id>` records;
  message rows of no session are left out in the database's own ledger. A session last
  updated before --since is passed over.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from indexer.formats.database import columns as table_columns
from indexer.formats.database import require_columns, select_list
from indexer.formats.ledger import Ledger

__all__ = ["SESSION_ROW", "TABLES", "Row", "Session", "iso", "looks_like", "orphans",
           "read_sessions"]

TABLES = {"sessions", "messages", "files"}
SESSION_ROW = "session row"
TITLE_SESSION = "title-"


@dataclass(slots=True)
class Row:
    where: str  # the record's place, for the ledger
    id: str
    role: Any
    parts: list[Any]
    created: Any
    summary: bool  # crush's summary of the conversation before it (is_summary_message)


@dataclass(slots=True)
class Session:
    id: str
    info: dict[str, Any]  # the sessions row
    ledger: Ledger
    rows: list[Row] = field(default_factory=list)
    passed_over: bool = False  # not read: its row is its only record


def looks_like(connection: sqlite3.Connection, tables: set[str]) -> bool:
    """Crush's tables, its messages with `parts` and its sessions with `parent_session_id`."""
    return (tables >= TABLES and "parts" in table_columns(connection, "messages")
            and "parent_session_id" in table_columns(connection, "sessions"))


def read_sessions(connection: sqlite3.Connection, since: str | None) -> Iterator[Session]:
    session_columns = table_columns(connection, "sessions")
    message_columns = table_columns(connection, "messages")
    require_columns({"sessions": session_columns, "messages": message_columns},
                    {"sessions": {"id"}, "messages": {"id", "session_id", "role", "parts"}},
                    "a crush database")
    wanted = ("id", "parent_session_id", "title", "created_at", "updated_at")
    select = select_list(wanted, session_columns)
    rows = [dict(zip(wanted, row, strict=True))
            for row in connection.execute(f"SELECT {select} FROM sessions")]
    for info in sorted(rows, key=lambda r: (_number(r["created_at"]), str(r["id"]))):
        session = Session(str(info["id"]), info, Ledger())
        session.ledger.read(SESSION_ROW)
        updated = (iso(info["updated_at"]) or "")[:10]
        if session.id.startswith(TITLE_SESSION) and info["parent_session_id"]:
            session.ledger.left_out(SESSION_ROW, "title generation (crush's own)")
            _leave_messages(connection, session, "message of a title generation")
            session.passed_over = True
        elif since and updated and updated < since:
            session.ledger.left_out(SESSION_ROW, "session last active before --since")
            session.passed_over = True
        else:
            session.rows = list(_messages(connection, session, message_columns))
        yield session


def orphans(connection: sqlite3.Connection, ledger: Ledger) -> None:
    """Message rows of no session, left out in `ledger`."""
    for (message_id,) in connection.execute(
            "SELECT id FROM messages WHERE session_id NOT IN (SELECT id FROM sessions)"):
        ledger.read(f"message row {message_id}")
        ledger.left_out(f"message row {message_id}", "message of no session")


def iso(value: Any) -> str | None:
    """A crush time (epoch seconds; milliseconds in a row that has them) as UTC ISO-8601."""
    number = _number(value)
    if not number:
        return None
    try:
        moment = datetime.fromtimestamp(number / 1000 if number > 1e11 else number, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat().replace("+00:00", "Z")


def _messages(connection: sqlite3.Connection, session: Session,
              columns: set[str]) -> Iterator[Row]:
    optional = select_list(("created_at", "is_summary_message"), columns)
    for message_id, role, parts, created, summary in connection.execute(
            f"SELECT id, role, parts, {optional} FROM messages WHERE session_id = ? "
            "ORDER BY created_at, rowid", (session.id,)):
        where = f"message row {message_id}"
        session.ledger.read(where)
        value = _loads(parts)
        if not isinstance(value, list):
            session.ledger.left_out(where, "unreadable message row")
            continue
        yield Row(where, str(message_id), role, value, created, bool(summary))


def _leave_messages(connection: sqlite3.Connection, session: Session, reason: str) -> None:
    for (message_id,) in connection.execute("SELECT id FROM messages WHERE session_id = ?",
                                            (session.id,)):
        session.ledger.read(f"message row {message_id}")
        session.ledger.left_out(f"message row {message_id}", reason)


def _loads(data: Any) -> Any:
    try:
        return json.loads(data)
    except (TypeError, ValueError, RecursionError):
        return None


def _number(value: Any) -> float:
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0

