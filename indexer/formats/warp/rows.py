"""Warp's `warp.sqlite`, read into conversations with their exchanges (exchanges.py turns those
into the archive's messages, __init__.py builds the records).

Warp is closed source; the tables are as public readers of the file use them (kenn-io/agentsview
internal/parser/warp.go; see tests/data/formats/warp/README.md): `ai_queries` (id, exchange_id,
conversation_id, start_ts, input, working_directory, output_status, model_id, ...), one row per
exchange; `agent_conversations` (conversation_id, conversation_data, last_modified_at), one row
per conversation with its usage metadata; in some releases `ai_blocks` (exchange_id, output),
the agent's output of an exchange; and `agent_tasks` (conversation_id, task_id, task), the
agent's task lists as protobuf. Choices:

- One conversation per conversation id found in `ai_queries` or `agent_conversations`, in order
  of its first exchange. Exchanges in order of start time, then row id.
- Each conversation gets a ledger of its own: `conversation row`, `query row <id>`,
  `block row <id>`, `task row <id>` (__init__.py takes it into the database's with the places
  prefixed). A task list is protobuf recall does not decode: left out and counted.
- A conversation last active before --since is passed over with its rows unread.
- Only the columns that tie an exchange to its conversation are required; the others, and the
  optional tables, are read where they exist.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from indexer.formats.database import columns as table_columns
from indexer.formats.database import select_list
from indexer.formats.ledger import Ledger
from models import InvalidSession, parse_time

__all__ = ["Conversation", "Exchange", "iso", "looks_like_warp", "read_conversations"]

_QUERY_COLUMNS = ("id", "exchange_id", "conversation_id", "start_ts", "input",
                  "working_directory", "output_status")
CONVERSATION_ROW = "conversation row"


@dataclass(slots=True)
class Exchange:
    where: str  # its place in the ledger: "query row 12"
    exchange_id: str
    time: str | None
    input: Any  # the input column as stored (JSON text)
    cwd: Any
    status: Any
    outputs: list[tuple[str, Any]] = field(default_factory=list)  # (block row place, output)


@dataclass(slots=True)
class Conversation:
    id: str
    exchanges: list[Exchange]
    ledger: Ledger
    metadata: bool  # an agent_conversations row was read for it
    last_modified: str | None = None
    passed_over: bool = False  # last active before --since: nothing of it read


def looks_like_warp(connection: sqlite3.Connection, tables: set[str]) -> bool:
    """Both of Warp's agent tables, `ai_queries` with the columns that hold an exchange."""
    if not {"ai_queries", "agent_conversations"} <= tables:
        return False
    return table_columns(connection, "ai_queries") >= {"exchange_id", "conversation_id", "input"}


def read_conversations(connection: sqlite3.Connection,
                       since: str | None) -> Iterator[Conversation]:
    tables = {row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    columns = table_columns(connection, "ai_queries")
    if not {"conversation_id", "input"} <= columns:
        raise InvalidSession("not a Warp database: ai_queries has no conversation_id or input")
    exchanges = _exchanges(connection, columns)
    outputs = _outputs(connection) if "ai_blocks" in tables else {}
    modified = _conversation_rows(connection) if "agent_conversations" in tables else {}
    tasks = _task_rows(connection) if "agent_tasks" in tables else {}
    ids = list(dict.fromkeys([*exchanges, *modified, *tasks]))
    for conversation_id in sorted(ids, key=lambda c: (_first_time(exchanges.get(c)), c)):
        yield _conversation(conversation_id, exchanges.get(conversation_id, []), outputs,
                            modified, tasks.get(conversation_id, []), since)


def _conversation(conversation_id: str, exchanges: list[Exchange],
                  outputs: dict[str, list[tuple[str, Any]]], modified: dict[str, str | None],
                  tasks: list[str], since: str | None) -> Conversation:
    ledger = Ledger()
    has_row = conversation_id in modified
    if has_row:
        ledger.read(CONVERSATION_ROW)
    times = [t for t in (e.time for e in exchanges) if t]
    last = max([*times, modified.get(conversation_id) or ""]) or None
    passed_over = bool(since and last and last[:10] < since)
    for exchange in exchanges:
        ledger.read(exchange.where)
        exchange.outputs = outputs.get(exchange.exchange_id, [])
        for where, _ in exchange.outputs:
            ledger.read(where)
    for where in tasks:
        ledger.read(where)
        ledger.left_out(where, "agent task list (protobuf, not read)")
    if passed_over:
        for fate in ledger.fates():
            if fate.reason != "agent task list (protobuf, not read)":
                ledger.left_out(fate.where, "conversation last active before --since")
    return Conversation(conversation_id, exchanges, ledger, has_row, modified.get(conversation_id),
                        passed_over)


def _exchanges(connection: sqlite3.Connection, columns: set[str]) -> dict[str, list[Exchange]]:
    select = select_list(_QUERY_COLUMNS, columns)
    found: dict[str, list[Exchange]] = {}
    for row_id, exchange_id, conversation_id, start, data, cwd, status in connection.execute(
            f"SELECT {select} FROM ai_queries"):
        key = str(conversation_id if conversation_id is not None else exchange_id)
        where = f"query row {row_id if row_id is not None else exchange_id}"
        found.setdefault(key, []).append(
            Exchange(where, str(exchange_id), iso(start), data, cwd, status))
    for items in found.values():
        items.sort(key=lambda e: (e.time or "", e.where))
    return found


def _outputs(connection: sqlite3.Connection) -> dict[str, list[tuple[str, Any]]]:
    columns = table_columns(connection, "ai_blocks")
    if not {"exchange_id", "output"} <= columns:
        return {}
    ident = "rowid" if "id" not in columns else "id"
    found: dict[str, list[tuple[str, Any]]] = {}
    for row_id, exchange_id, output in connection.execute(
            f"SELECT {ident}, exchange_id, output FROM ai_blocks ORDER BY {ident}"):
        found.setdefault(str(exchange_id), []).append((f"block row {row_id}", output))
    return found


def _conversation_rows(connection: sqlite3.Connection) -> dict[str, str | None]:
    columns = table_columns(connection, "agent_conversations")
    if "conversation_id" not in columns:
        return {}
    modified = "last_modified_at" if "last_modified_at" in columns else "NULL"
    return {str(cid): iso(when) for cid, when in connection.execute(
        f"SELECT conversation_id, {modified} FROM agent_conversations")}


def _task_rows(connection: sqlite3.Connection) -> dict[str, list[str]]:
    columns = table_columns(connection, "agent_tasks")
    if "conversation_id" not in columns:
        return {}
    ident = "task_id" if "task_id" in columns else "rowid"
    found: dict[str, list[str]] = {}
    for conversation_id, task_id in connection.execute(
            f"SELECT conversation_id, {ident} FROM agent_tasks"):
        found.setdefault(str(conversation_id), []).append(f"task row {task_id}")
    return found


def iso(value: Any) -> str | None:
    """A Warp time as ISO-8601 UTC: `2026-04-07 08:55:40[.ffffff]` as SQLite's CURRENT_TIMESTAMP
    writes it (UTC), or epoch milliseconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = value / 1000 if abs(value) > 100_000_000_000 else value
        try:
            return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) >= 19 and text[10] == " " and not text[19:].lstrip(".0123456789"):
        text = text.replace(" ", "T", 1) + "Z"  # no offset written: UTC
    return parse_time(text)


def _first_time(exchanges: list[Exchange] | None) -> str:
    return min((e.time for e in exchanges or [] if e.time), default="~")

