"""Which format a file holds, from its content: JSON lines or one JSON document, and whose."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from indexer.formats import registry

__all__ = ["connection_format", "database_format", "detect_format", "document_format",
           "is_json_lines", "line_format", "text_format"]

_SNIFF_LINES = 30


def is_json_lines(path: Path, text: str) -> bool:
    """True for JSON lines, False for one JSON document (pretty-printed or on one line)."""
    lines = _nonempty_lines(text)
    first, second = next(lines, None), next(lines, None)
    if first is None:
        return _jsonl_name(path)
    if second is None:  # one line: a single entry, or a minified document
        if first.startswith("["):
            return False  # a list (e.g. a ChatGPT export) is a document; skip parsing it twice
        if _jsonl_name(path):
            return True
        try:
            value = json.loads(first)
        except (json.JSONDecodeError, RecursionError):
            return False
        formats = registry.FORMATS
        # a whole document on one line, of a format whose lines look the same (Gemini CLI's)
        if any(f.sniff_line and f.sniff_document and f.sniff_line(value)
               and f.sniff_document(value, path) for f in formats):
            return False
        return any(test(value) for f in formats for test in (f.sniff_header, f.sniff_line)
                   if test is not None)
    try:
        json.loads(first)
    except (json.JSONDecodeError, RecursionError):
        # "{" on its own line: a pretty-printed document, whatever the file is called
        return _jsonl_name(path) and not _parses(text)
    return True  # a complete value on the first line and more after it


def _jsonl_name(path: Path) -> bool:
    """Named like JSON lines: `.jsonl`, or a name a format gives its JSON lines (an OpenClaw
    transcript renamed by a reset or a deletion: `<id>.jsonl.reset.<time>`)."""
    return path.suffix == ".jsonl" or any(f.lines_named and f.lines_named(path)
                                          for f in registry.FORMATS)


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return False
    return True


def line_format(text: str) -> str | None:
    """The JSON-lines format whose lines these are (claude-code, codex, ...); None for others.
    A format that recognizes its header looks at the first line only, before the others."""
    formats = registry.FORMATS
    for number, line in enumerate(_nonempty_lines(text)):
        if number >= _SNIFF_LINES:
            break
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if number == 0:
            found = next((f.name for f in formats if f.sniff_header and f.sniff_header(item)),
                         None)
            if found:
                return found
        found = next((f.name for f in formats if f.sniff_line and f.sniff_line(item)), None)
        if found:
            return found
    return None


def document_format(value: Any, path: Path) -> str | None:
    """The format of one JSON document (chatgpt for an export, gemini for an older Gemini CLI
    chat, cline, opencode or copilot for theirs, with their metadata files), else the name of a
    metadata file a format keeps beside its transcripts ("openclaw-store", "gemini-projects"),
    else None."""
    formats = registry.FORMATS
    found = next((f.name for f in formats if f.sniff_document and f.sniff_document(value, path)),
                 None)
    return found or next((m.name for f in formats for m in f.metadata if m.looks_like(value)),
                         None)


def database_format(tables: set[str]) -> str | None:
    """cursor or opencode, from the tables of a SQLite database; None for any other database."""
    return next((f.name for f in registry.FORMATS if f.sniff_tables and f.sniff_tables(tables)),
                None)


def connection_format(connection: sqlite3.Connection, tables: set[str]) -> str | None:
    """The format of a database whose tables do not tell (a Cursor workspace's state, by a key
    only Cursor writes), from its content; None for any other database."""
    return next((f.name for f in registry.FORMATS
                 if f.sniff_connection and f.sniff_connection(connection, tables)), None)


def text_format(path: Path, text: str, named: str | None = None) -> str | None:
    """The Markdown format of a text file: the one `named` when it is kept as Markdown (None when
    it is not), else one that recognizes the text of a `.md` file (an aider chat history)."""
    if named is not None:
        found = registry.named(named)
        return named if found is not None and found.read_text is not None else None
    if path.suffix != ".md":
        return None
    return next((f.name for f in registry.FORMATS if f.sniff_text and f.sniff_text(text)), None)


def detect_format(path: Path, text: str) -> str:
    """A format's name (FORMAT_NAMES, or a metadata file's: document_format), or the archive's
    own `jsonl` (conversation lines) and `json` (session records). SQLite databases are told
    apart by their tables (database_format) or content (connection_format)."""
    markdown = text_format(path, text)
    if markdown is not None:
        return markdown
    if is_json_lines(path, text):
        return line_format(text) or "jsonl"
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return "json"
    return document_format(value, path) or "json"


def _nonempty_lines(text: str) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end].strip()
        if line:
            yield line
        start = end + 1
