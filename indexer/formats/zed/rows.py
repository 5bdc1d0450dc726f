"""Zed's thread database (`threads/threads.db`), read row by row into thread documents
(messages.py turns a document into the archive's messages, __init__.py builds the records).

The table (crates/agent/src/db.rs, `ThreadsDatabase::new`) is `threads(id, summary, updated_at,
data_type, data)`, with `parent_id`, `folder_paths`, `folder_paths_order` and `created_at`
added by later releases. `data` is the thread's JSON, compressed with zstd when `data_type` is
"zstd" (every release since) or stored as it is when "json". Choices:

- One thread per row, oldest first (created_at, else updated_at, then id). A row whose data
  cannot be read (an unknown data_type, a damaged zstd frame, JSON that is not an object) is left
  out with its reason; the rest of the database is still read.
- A thread last updated before --since is passed over without its data being decompressed.
- Decompression is bounded: a frame that inflates past MAX_JSON_BYTES is refused rather than
  read into memory whole.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import zstandard

from models import parse_time

__all__ = ["COLUMNS", "MAX_JSON_BYTES", "Row", "decode", "has_threads_table", "read_rows"]

COLUMNS = {"id", "summary", "updated_at", "data_type", "data"}  # what every release wrote
_LATER = ("parent_id", "folder_paths", "created_at")  # columns later releases added
MAX_JSON_BYTES = 256 * 1024 * 1024
_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Row:
    """One row of `threads`, its data still as stored."""

    id: str
    summary: Any
    updated_at: str | None  # ISO-8601, as Zed wrote it (RFC 3339)
    created_at: str | None
    parent_id: Any
    folder_paths: Any  # the project's folders, one a line (util::path_list::PathList)
    data_type: Any
    data: Any


def has_threads_table(connection: sqlite3.Connection, tables: set[str]) -> bool:
    """The `threads` table with the columns Zed writes: a bare `threads` table is too common a
    name to be claimed on its own."""
    return "threads" in tables and _columns(connection) >= COLUMNS


def read_rows(connection: sqlite3.Connection) -> Iterator[Row]:
    """Every row, oldest first; the columns of later releases read as None where missing."""
    present = _columns(connection)
    extra = ", ".join(c if c in present else f"NULL AS {c}" for c in _LATER)
    rows = connection.execute(
        f"SELECT id, summary, updated_at, data_type, data, {extra} FROM threads").fetchall()
    found = [Row(str(ident), summary, parse_time(updated), parse_time(created), parent, folders,
                 data_type, data)
             for ident, summary, updated, data_type, data, parent, folders, created in rows]
    yield from sorted(found, key=lambda r: (r.created_at or r.updated_at or "", r.id))


def decode(row: Row) -> dict[str, Any] | str:
    """The thread's JSON object, or why it cannot be read."""
    data = row.data
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not isinstance(data, bytes):
        return "thread row without data"
    if row.data_type == "zstd":
        try:
            data = _inflate(data)
        except zstandard.ZstdError:
            return "damaged zstd data"
        except OverflowError:
            return "thread data too large"
    elif row.data_type != "json":
        return f"unknown data type {_name(row.data_type)}"
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return "unreadable thread JSON"
    return value if isinstance(value, dict) else "thread JSON that is not an object"


def _inflate(data: bytes) -> bytes:
    """zstd frames as zstd::encode_all writes them (no content size in the header), read in
    chunks up to the cap."""
    out = bytearray()
    with zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True) as reader:
        while chunk := reader.read(_CHUNK):
            out += chunk
            if len(out) > MAX_JSON_BYTES:
                raise OverflowError
    if not out and data:
        raise zstandard.ZstdError("empty frame")
    return bytes(out)


def _columns(connection: sqlite3.Connection) -> set[str]:
    return {row[1] for row in connection.execute("PRAGMA table_info(threads)")}


def _name(value: Any) -> str:
    return repr(value)[:40] if not isinstance(value, str) else value[:40]
