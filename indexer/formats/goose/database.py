"""Goose's SQLite database (`sessions/sessions.db`), read into sessions with their message rows
(content.py turns those into the archive's messages, __init__.py builds the records).

The database (crates/goose/src/session/session_manager.rs, its schema migrations in
session/migrations.rs) has a `sessions` table (id like `20251108_1`, name, older releases'
description, user_set_name, session_type, working_dir, created_at, updated_at, ...) and
`messages` (an autoincrement id, session_id, role, content_json: the content blocks,
created_timestamp in epoch seconds, metadata_json, and since schema 7 message_id). Later schemas
add tables (`threads`, `thread_messages`, a provider inventory) that are not read: a thread
groups sessions, whose own rows hold the conversation (what `thread_messages` adds beyond a copy
of those rows is not known from the migration alone). Choices:

- One session per `sessions` row, sub-agent and scheduled sessions included, oldest first.
  A session last updated before --since is passed over (every message is older).
- Messages in row order, as goose inserts them (it rewrites a whole conversation in order).
- Each session has a ledger of its own: its `session row` and its `message row <id>` records;
  message rows of no session are left out in the database's own ledger.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from indexer.formats.database import columns as table_columns
from indexer.formats.database import require_columns, select_list
from indexer.formats.goose.content import loads
from indexer.formats.ledger import Ledger

__all__ = ["SESSION_ROW", "TABLES", "Row", "Session", "looks_like", "orphans", "read_sessions"]

TABLES = {"sessions", "messages", "schema_version"}
SESSION_ROW = "session row"


@dataclass(slots=True)
class Row:
    where: str  # the record's place, for the ledger
    ident: str  # the message's id
    value: Any  # the message as content.Conversation.add takes it; None when unreadable


@dataclass(slots=True)
class Session:
    id: str
    info: dict[str, Any]  # the sessions row
    ledger: Ledger
    rows: list[Row] = field(default_factory=list)
    passed_over: bool = False  # not read (--since): its row is its only record


def looks_like(connection: sqlite3.Connection, tables: set[str]) -> bool:
    """Goose's tables, its messages with `content_json` (another agent's `messages` differs)."""
    if not tables >= TABLES:
        return False
    columns = table_columns(connection, "messages")
    return {"content_json", "created_timestamp", "session_id"} <= columns


def read_sessions(connection: sqlite3.Connection, since: str | None) -> Iterator[Session]:
    session_columns = table_columns(connection, "sessions")
    message_columns = table_columns(connection, "messages")
    require_columns({"sessions": session_columns, "messages": message_columns},
                    {"sessions": {"id"}, "messages": {"id", "session_id", "role", "content_json"}},
                    "a goose database")
    wanted = ("id", "name", "description", "user_set_name", "session_type", "working_dir",
              "created_at", "updated_at")
    select = select_list(wanted, session_columns)
    rows = [dict(zip(wanted, row, strict=True))
            for row in connection.execute(f"SELECT {select} FROM sessions")]
    for info in sorted(rows, key=lambda r: (str(r["created_at"] or ""), str(r["id"]))):
        ledger = Ledger()
        ledger.read(SESSION_ROW)
        session = Session(str(info["id"]), info, ledger)
        updated = str(info["updated_at"] or "")[:10]
        if since and updated and updated < since:
            ledger.left_out(SESSION_ROW, "session last active before --since")
            session.passed_over = True
        else:
            session.rows = list(_messages(connection, info["id"], message_columns, ledger))
        yield session


def orphans(connection: sqlite3.Connection, ledger: Ledger) -> None:
    """Message rows of no session, left out in `ledger`."""
    for (row_id,) in connection.execute(
            "SELECT id FROM messages WHERE session_id NOT IN (SELECT id FROM sessions)"):
        ledger.read(f"message row {row_id}")
        ledger.left_out(f"message row {row_id}", "message of no session")


def _messages(connection: sqlite3.Connection, session_id: Any, columns: set[str],
              ledger: Ledger) -> Iterator[Row]:
    optional = select_list(("created_timestamp", "metadata_json", "message_id"), columns)
    for row_id, role, content, created, metadata, message_id in connection.execute(
            f"SELECT id, role, content_json, {optional} FROM messages "
            "WHERE session_id = ? ORDER BY id", (session_id,)):
        where = f"message row {row_id}"
        ledger.read(where)
        blocks = loads(content, lambda v: isinstance(v, list))
        ident = message_id if isinstance(message_id, str) and message_id else f"row-{row_id}"
        if blocks is None:
            ledger.left_out(where, "unreadable message row")
            continue
        value = {"role": role, "created": created, "content": blocks,
                 "metadata": loads(metadata, lambda v: isinstance(v, dict)) or {}}
        yield Row(where, ident, value)

