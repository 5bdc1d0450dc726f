"""The key-value tables of a Cursor (VS Code) state database, `cursorDiskKV` and `ItemTable`,
read one key or one range of keys at a time: a global state.vscdb holds gigabytes of bubbles."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

__all__ = ["UNREADABLE", "KeyValues"]

UNREADABLE = object()  # a value that is not readable JSON


class KeyValues:
    """The key-value tables of one database (releases differ in which they have)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection
        self.kv = _has_kv(connection, "cursorDiskKV")
        self.items = _has_kv(connection, "ItemTable")

    def get(self, table: str, key: str) -> Any:
        """A key's JSON value: None when there is no such row, UNREADABLE when it does
        not parse."""
        if not (self.kv if table == "cursorDiskKV" else self.items):
            return None
        row = self.connection.execute(f"SELECT value FROM {table} WHERE key = ?",
                                      (key,)).fetchone()
        return None if row is None else _decode(row[0])

    def keys(self, prefix: str) -> list[str]:
        """The cursorDiskKV keys that start with prefix (a range, so the key index serves it)."""
        if not self.kv:
            return []
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        rows = self.connection.execute(
            "SELECT key FROM cursorDiskKV WHERE key >= ? AND key < ?", (prefix, upper))
        return [row[0] for row in rows if isinstance(row[0], str)]


def _has_kv(connection: sqlite3.Connection, table: str) -> bool:
    """Whether the database has this key-value table (releases differ in which they have)."""
    columns = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
    return {"key", "value"} <= columns


def _decode(raw: Any) -> Any:
    """A value column as JSON (TEXT or BLOB); UNREADABLE when it is missing or does not parse."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        value = json.loads(text) if isinstance(text, str) else None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return UNREADABLE
    return UNREADABLE if value is None else value
