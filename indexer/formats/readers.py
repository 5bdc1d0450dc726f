"""Reading one file with the reader of its format, by storage kind: its text (JSON lines,
Markdown), its JSON value, or its SQLite database (registry.py says which formats read which)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from indexer.formats import registry
from indexer.formats.common import ImportOptions, NothingToImport, Transcript
from indexer.formats.contract import Format, Storage
from indexer.formats.database import open_readonly, table_names
from indexer.formats.detect import connection_format, database_format
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["read_database", "read_document", "read_lines", "read_text"]


def read_text(fmt: str, path: Path, text: str, options: ImportOptions,
              ledger: Ledger) -> list[Transcript]:
    """A Markdown transcript (an aider chat history)."""
    found = _format(fmt)
    if found.read_text is None:
        raise InvalidSession(f"not a {fmt} transcript: {_stored_as(found)}, this is Markdown")
    return found.read_text(path, text, options, ledger)


def read_lines(fmt: str, path: Path, text: str, options: ImportOptions,
               ledger: Ledger) -> list[Transcript]:
    found = _format(fmt)
    if found.read_lines is None:
        raise InvalidSession(f"not a {fmt} transcript: {_stored_as(found)}, this is JSON lines")
    return found.read_lines(path, text, options, ledger)


def read_document(fmt: str, path: Path, value: Any, options: ImportOptions,
                  ledger: Ledger) -> list[Transcript]:
    """One JSON document; `fmt` may name a metadata file (detection's "openclaw-store")."""
    described = registry.metadata(fmt)
    if described is not None and registry.named(fmt) is None:
        raise NothingToImport(f"{described.description}: metadata, not a transcript")
    found = _format(fmt)
    if found.read_document is None:
        raise InvalidSession(
            f"not a {fmt} transcript: {_stored_as(found)}, this is one JSON document")
    return found.read_document(path, value, options, ledger)


def read_database(path: Path, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    """The sessions of an agent's SQLite database, opened read-only."""
    try:
        with open_readonly(path) as connection:
            tables = table_names(connection)
            fmt = options.format or database_format(tables) or connection_format(connection,
                                                                                  tables)
            if fmt is None:
                raise NothingToImport("a SQLite database of no agent recall reads")
            found = _format(fmt)
            if found.read_database is None:
                raise InvalidSession(
                    f"not a {fmt} transcript: {_stored_as(found)}, this is a SQLite database")
            return found.read_database(path, connection, options, ledger)
    except sqlite3.DatabaseError as exc:  # damaged, encrypted, or locked past the copy
        raise InvalidSession(f"unreadable SQLite database: {exc}") from None
    except OSError as exc:
        raise InvalidSession(f"cannot read the database: {exc.strerror or exc}") from None


def _format(name: str) -> Format:
    found = registry.named(name)
    if found is None:
        raise InvalidSession(f"unknown transcript format {name!r}")
    return found


def _stored_as(fmt: Format) -> str:
    return "those are " + " or ".join(kind.value for kind in Storage if kind in fmt.stored_as)
