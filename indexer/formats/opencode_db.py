"""opencode's SQLite database (`opencode.db`), read into sessions with their messages and parts
(opencode_parts.py turns those into the archive's messages, opencode.py builds the records).

The database (packages/opencode/src/session/session.sql.ts) has a `session` table (id, title,
directory, parent_id, time_created, ...), `message` (id, session_id, data: the message's JSON)
and `part` (id, message_id, data: the part's JSON); `project` (id, worktree) names a project's
folder. Choices:

- One session per `session` row, child sessions included, in order of creation time, then id.
  A session last updated before --since is passed over: every message is older.
- A row whose JSON does not parse is counted; tables or columns of other versions that are
  missing are tolerated, all but the ids and data that tie a part to its message and session.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from typing import Any

from indexer.formats.opencode_parts import Message, Session, iso, loads, number
from models import InvalidSession

__all__ = ["TABLES", "read_sessions"]

TABLES = {"session", "message", "part", "project"}


def read_sessions(connection: sqlite3.Connection, since: str | None) -> Iterator[Session]:
    """The database's sessions, oldest first; InvalidSession, before the first, when a table
    lacks a column that ties the sessions, messages and parts together."""
    columns = {table: _columns(connection, table) for table in TABLES}
    for table, needed in (("session", {"id"}), ("message", {"id", "session_id", "data"}),
                          ("part", {"id", "message_id", "data"})):
        if not needed <= columns[table]:
            missing = ", ".join(sorted(needed - columns[table]))
            raise InvalidSession(f"not an opencode database: table {table} has no {missing}")
    worktrees = _worktrees(connection, columns["project"])
    wanted = ("id", "title", "directory", "project_id", "time_created", "time_updated")
    select = ", ".join(c if c in columns["session"] else f"NULL AS {c}" for c in wanted)
    rows = [dict(zip(wanted, row, strict=True))
            for row in connection.execute(f"SELECT {select} FROM session")]
    for info in sorted(rows, key=lambda r: (number(r["time_created"]), str(r["id"]))):
        if _older_than(since, info["time_updated"]):
            continue  # every message is older than the session's last update
        skipped: Counter[str] = Counter()
        messages = _messages(connection, str(info["id"]), columns["message"], skipped)
        directory = info["directory"] or worktrees.get(info["project_id"])
        yield Session(str(info["id"]), info["title"], directory, info["time_created"], messages,
                      skipped)


def _columns(connection: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}


def _worktrees(connection: sqlite3.Connection, columns: set[str]) -> dict[Any, str]:
    """project id -> its folder ("/" is the project of folders outside any repository)."""
    if not {"id", "worktree"} <= columns:
        return {}
    return {pid: tree for pid, tree in connection.execute("SELECT id, worktree FROM project")
            if isinstance(tree, str) and tree not in ("", "/")}


def _messages(connection: sqlite3.Connection, session_id: str, columns: set[str],
              skipped: Counter[str]) -> list[Message]:
    parts: dict[str, list[dict[str, Any]]] = {}
    for _, message_id, data in connection.execute(
            "SELECT id, message_id, data FROM part WHERE message_id IN "
            "(SELECT id FROM message WHERE session_id = ?) ORDER BY message_id, id", (session_id,)):
        part = loads(data)
        if part is None:
            skipped["unreadable part row"] += 1
        else:
            parts.setdefault(message_id, []).append(part)
    created = "time_created" if "time_created" in columns else "NULL"
    messages = []
    for message_id, data, time in connection.execute(
            f"SELECT id, data, {created} FROM message WHERE session_id = ?", (session_id,)):
        info = loads(data)
        if info is None:
            skipped["unreadable message row"] += 1
            continue
        if "time" not in info and time is not None:  # the row's time, when the JSON has none
            info["time"] = {"created": time}
        messages.append(Message(str(message_id), info, parts.get(message_id, [])))
    return messages


def _older_than(since: str | None, updated: Any) -> bool:
    day = (iso(updated) or "")[:10]
    return bool(since and day and day < since)
