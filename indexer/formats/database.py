"""Agents that keep sessions in SQLite (Cursor's state.vscdb, opencode.db): recognizing such a
file, telling whether it changed, and opening it read-only while the agent may be writing it.

A database is never read whole into memory and never written: it is opened with `mode=ro`, and
when the agent holds a lock (or the folder does not allow the shared-memory file a read-only
reader of a WAL database needs), a copy of the database and its write-ahead log is read instead.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from models import InvalidSession

__all__ = ["SUFFIXES", "columns", "fingerprint", "is_database", "open_readonly",
           "read_unless_database", "require_columns", "select_list", "table_names",
           "write_ahead_log"]

MAGIC = b"SQLite format 3\x00"
# the names agents give their databases (Kiro CLI's data.sqlite3 too); content decides
SUFFIXES = (".vscdb", ".db", ".sqlite", ".sqlite3")


def is_database(path: Path) -> bool:
    """A SQLite database, by its first bytes."""
    try:
        with path.open("rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def read_unless_database(path: Path) -> bytes | None:
    """The file's bytes, or None for a SQLite database (read in place, never whole), in one
    open of the file; raises OSError."""
    with path.open("rb") as handle:
        if handle.read(len(MAGIC)) == MAGIC:
            return None
        handle.seek(0)
        return handle.read()


def write_ahead_log(path: Path) -> Path:
    """Where a database's recent writes wait until the agent checkpoints them."""
    return path.with_name(path.name + "-wal")


def fingerprint(path: Path) -> bytes:
    """What changes when the database does: size and time of the file and of its write-ahead
    log. Hashing the content would read gigabytes of an editor's state on every pass."""
    digest = hashlib.sha256(b"sqlite")
    for part in (path, write_ahead_log(path)):
        try:
            st = part.stat()
        except OSError:
            continue
        digest.update(f"{part.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return digest.digest()


@contextmanager
def open_readonly(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to the database, or to a copy of it when it cannot be read in place."""
    try:
        connection = _connect(f"{path.absolute().as_uri()}?mode=ro")
    except sqlite3.OperationalError:  # locked, or a WAL database in a folder we cannot write
        with tempfile.TemporaryDirectory(prefix="recall-db-") as folder:
            copy = Path(folder, path.name)
            shutil.copyfile(path, copy)
            if write_ahead_log(path).exists():
                shutil.copyfile(write_ahead_log(path), write_ahead_log(copy))
            connection = _connect(copy.as_uri())  # our own copy: it may replay its log
            try:
                yield connection
            finally:
                connection.close()
        return
    try:
        yield connection
    finally:
        connection.close()


def _connect(uri: str) -> sqlite3.Connection:
    connection = sqlite3.connect(uri, uri=True, timeout=1.0, check_same_thread=False)
    try:
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens it now
    except sqlite3.Error:
        connection.close()
        raise
    return connection


def table_names(connection: sqlite3.Connection) -> set[str]:
    return {row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}


def columns(connection: sqlite3.Connection, table: str) -> set[str]:
    """A table's column names (none when it does not exist)."""
    return {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}


def require_columns(have: Mapping[str, set[str]], needed: Mapping[str, set[str]],
                    database: str) -> None:
    """InvalidSession naming the first table that lacks a column its reader cannot do without
    (`database`: "a goose database")."""
    for table, wanted in needed.items():
        if not wanted <= have[table]:
            missing = ", ".join(sorted(wanted - have[table]))
            raise InvalidSession(f"not {database}: table {table} has no {missing}")


def select_list(wanted: Iterable[str], present: set[str]) -> str:
    """The columns to SELECT, NULL for each one an older release of the agent did not have."""
    return ", ".join(c if c in present else f"NULL AS {c}" for c in wanted)
