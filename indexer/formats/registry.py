"""The formats by name, and reading a file (its text, JSON value or SQLite database) with the
reader of its format."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from indexer.formats import (
    aider,
    chatgpt,
    claude_code,
    cline,
    codex,
    copilot,
    cursor,
    gemini,
    openclaw,
    opencode,
)
from indexer.formats.common import FORMAT_NAMES, ImportOptions, NothingToImport, Transcript
from indexer.formats.database import open_readonly, table_names
from indexer.formats.detect import GEMINI_PROJECTS, OPENCLAW_STORE, database_format
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["FORMATS", "looks_like_aider", "read_database", "read_document", "read_lines",
           "read_text"]

FORMATS = {m.NAME: m for m in (claude_code, codex, gemini, cursor, aider, cline, opencode,
                               copilot, openclaw, chatgpt)}
# the names are also in common.py, which the command line reads without loading the readers
assert tuple(FORMATS) == FORMAT_NAMES, "indexer.formats.common.FORMAT_NAMES is out of date"

# how each format stores a session: JSON lines, one JSON document, a SQLite database
_LINE_READERS = {m.NAME: m.parse for m in (claude_code, codex, gemini, cursor, copilot, openclaw)}
_DOCUMENT_READERS: dict[str, Callable[[Path, Any, ImportOptions, Ledger], list[Transcript]]] = {
    m.NAME: m.parse_value for m in (chatgpt, gemini, cline, opencode, copilot)}
_DATABASE_READERS = {m.NAME: m.parse_database for m in (cursor, opencode)}
_METADATA = {OPENCLAW_STORE: "OpenClaw session index (sessions.json)",
             GEMINI_PROJECTS: "Gemini CLI project list (projects.json)"}


def looks_like_aider(text: str) -> bool:
    return aider.looks_like_text(text)


def read_text(path: Path, text: str, options: ImportOptions,
              ledger: Ledger) -> list[Transcript]:
    """A Markdown transcript: an aider chat history."""
    return aider.parse(path, text, options, ledger)


def read_lines(fmt: str, path: Path, text: str, options: ImportOptions,
               ledger: Ledger) -> list[Transcript]:
    if fmt in _LINE_READERS:
        return _LINE_READERS[fmt](path, text, options, ledger)
    if fmt in _DOCUMENT_READERS or fmt in _DATABASE_READERS:
        raise InvalidSession(f"not a {fmt} transcript: {_stored_as(fmt)}, this is JSON lines")
    raise InvalidSession(f"unknown transcript format {fmt!r}")


def read_document(fmt: str, path: Path, value: Any, options: ImportOptions,
                  ledger: Ledger) -> list[Transcript]:
    if fmt in _DOCUMENT_READERS:
        return _DOCUMENT_READERS[fmt](path, value, options, ledger)
    if fmt in _METADATA:
        raise NothingToImport(f"{_METADATA[fmt]}: metadata, not a transcript")
    if fmt in _LINE_READERS or fmt in _DATABASE_READERS:
        raise InvalidSession(f"not a {fmt} transcript: {_stored_as(fmt)}, this is one JSON document")
    raise InvalidSession(f"unknown transcript format {fmt!r}")


def read_database(path: Path, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    """The sessions of an agent's SQLite database, opened read-only."""
    try:
        with open_readonly(path) as connection:
            tables = table_names(connection)
            fmt = options.format or database_format(tables) or (
                cursor.NAME if cursor.holds_composers(connection, tables) else None)
            if fmt is None:
                raise NothingToImport("a SQLite database of no agent recall reads")
            if fmt not in _DATABASE_READERS:
                raise InvalidSession(
                    f"not a {fmt} transcript: {_stored_as(fmt)}, this is a SQLite database")
            return _DATABASE_READERS[fmt](path, connection, options, ledger)
    except sqlite3.DatabaseError as exc:  # damaged, encrypted, or locked past the copy
        raise InvalidSession(f"unreadable SQLite database: {exc}") from None
    except OSError as exc:
        raise InvalidSession(f"cannot read the database: {exc.strerror or exc}") from None


def _stored_as(fmt: str) -> str:
    kinds = [kind for kind, readers in (("JSON lines", _LINE_READERS),
                                        ("JSON documents", _DOCUMENT_READERS),
                                        ("a SQLite database", _DATABASE_READERS))
             if fmt in readers]
    if fmt == aider.NAME:
        kinds = ["Markdown"]
    return "those are " + " or ".join(kinds)
