"""opencode's SQLite database (`opencode.db`), read into sessions with their messages and parts
(parts.py turns those into the archive's messages, __init__.py builds the records).

The database (packages/opencode/src/session/session.sql.ts) has a `session` table (id, title,
directory, parent_id, time_created, ...), `message` (id, session_id, data: the message's JSON)
and `part` (id, message_id, data: the part's JSON); `project` (id, worktree) names a project's
folder. Choices:

- One session per `session` row, child sessions included, in order of creation time, then id.
  A session last updated before --since is passed over: every message is older.
- Each session gets a ledger of its own: its `session row`, and its `message row <id>` and
  `part row <id>` records (__init__.py takes them into the database's ledger, each place
  prefixed with the session). A row whose JSON does not parse is left out, and so are the parts
  of a message that could not be read; message rows of no session and part rows of no message
  are left out in the database's own ledger. A session passed over by --since has only its row
  read. Tables or columns of other versions that are missing are tolerated, all but the ids and
  data that tie a part to its message and session.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from indexer.formats.database import columns as table_columns
from indexer.formats.database import require_columns, select_list
from indexer.formats.ledger import Ledger
from indexer.formats.opencode.parts import Message, Part, Session, iso, loads, number

__all__ = ["TABLES", "orphans", "read_sessions"]

TABLES = {"session", "message", "part", "project"}
SESSION_ROW = "session row"


def read_sessions(connection: sqlite3.Connection, since: str | None) -> Iterator[Session]:
    """The database's sessions, oldest first; InvalidSession, before the first, when a table
    lacks a column that ties the sessions, messages and parts together."""
    columns = {table: table_columns(connection, table) for table in TABLES}
    require_columns(columns, {"session": {"id"}, "message": {"id", "session_id", "data"},
                              "part": {"id", "message_id", "data"}}, "an opencode database")
    worktrees = _worktrees(connection, columns["project"])
    wanted = ("id", "title", "directory", "project_id", "time_created", "time_updated")
    select = select_list(wanted, columns["session"])
    rows = [dict(zip(wanted, row, strict=True))
            for row in connection.execute(f"SELECT {select} FROM session")]
    for info in sorted(rows, key=lambda r: (number(r["time_created"]), str(r["id"]))):
        ledger = Ledger()
        ledger.read(SESSION_ROW)
        session_id = str(info["id"])
        if _older_than(since, info["time_updated"]):
            # every message is older than the session's last update: they are not read
            ledger.left_out(SESSION_ROW, "session last active before --since")
            yield Session(session_id, SESSION_ROW, None, None, None, [], ledger, passed_over=True)
            continue
        messages = _messages(connection, session_id, columns["message"], ledger)
        directory = info["directory"] or worktrees.get(info["project_id"])
        yield Session(session_id, SESSION_ROW, info["title"], directory, info["time_created"],
                      messages, ledger)


def orphans(connection: sqlite3.Connection, ledger: Ledger) -> None:
    """Message rows of no session and part rows of no such message, left out in `ledger`."""
    for (message_id,) in connection.execute(
            "SELECT id FROM message WHERE session_id NOT IN (SELECT id FROM session)"):
        ledger.read(f"message row {message_id}")
        ledger.left_out(f"message row {message_id}", "message of no session")
    for (part_id,) in connection.execute(
            "SELECT id FROM part WHERE message_id NOT IN (SELECT id FROM message WHERE "
            "session_id IN (SELECT id FROM session))"):
        ledger.read(f"part row {part_id}")
        ledger.left_out(f"part row {part_id}", "part of no message")



def _worktrees(connection: sqlite3.Connection, columns: set[str]) -> dict[Any, str]:
    """project id -> its folder ("/" is the project of folders outside any repository)."""
    if not {"id", "worktree"} <= columns:
        return {}
    return {pid: tree for pid, tree in connection.execute("SELECT id, worktree FROM project")
            if isinstance(tree, str) and tree not in ("", "/")}


def _messages(connection: sqlite3.Connection, session_id: str, columns: set[str],
              ledger: Ledger) -> list[Message]:
    parts: dict[Any, list[Part]] = {}
    for part_id, message_id, data in connection.execute(
            "SELECT id, message_id, data FROM part WHERE message_id IN "
            "(SELECT id FROM message WHERE session_id = ?) ORDER BY message_id, id", (session_id,)):
        where = f"part row {part_id}"
        ledger.read(where)
        value = loads(data)
        if value is None:
            ledger.left_out(where, "unreadable part row")
        else:
            parts.setdefault(message_id, []).append(Part(where, value))
    created = "time_created" if "time_created" in columns else "NULL"
    messages = []
    for message_id, data, time in connection.execute(
            f"SELECT id, data, {created} FROM message WHERE session_id = ?", (session_id,)):
        where = f"message row {message_id}"
        ledger.read(where)
        info = loads(data)
        if info is None:
            ledger.left_out(where, "unreadable message row")
            for part in parts.get(message_id, []):
                ledger.left_out(part.where, "part of an unreadable message")
            continue
        if "time" not in info and time is not None:  # the row's time, when the JSON has none
            info["time"] = {"created": time}
        messages.append(Message(str(message_id), where, info, parts.get(message_id, [])))
    return messages


def _older_than(since: str | None, updated: Any) -> bool:
    day = (iso(updated) or "")[:10]
    return bool(since and day and day < since)
