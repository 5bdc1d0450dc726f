"""Which format a file holds, from its content: JSON lines or one JSON document, and whose."""

from __future__ import annotations

import json
from collections.abc import Iterator
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

__all__ = ["GEMINI_PROJECTS", "OPENCLAW_STORE", "database_format", "detect_format",
           "document_format", "is_json_lines", "line_format"]

OPENCLAW_STORE = "openclaw-store"  # OpenClaw's sessions.json: metadata, nothing to import
GEMINI_PROJECTS = "gemini-projects"  # Gemini CLI's projects.json: metadata, nothing to import
_SNIFF_LINES = 30
# one line of each JSON-lines format, tried in this order (OpenClaw's first line is its header)
_LINE_TESTS = ((claude_code.NAME, claude_code.looks_like), (codex.NAME, codex.looks_like),
               (gemini.NAME, gemini.looks_like), (copilot.NAME, copilot.looks_like),
               (cursor.NAME, cursor.looks_like))


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
        if gemini.looks_like_document(value):
            return False
        return openclaw.looks_like(value) or any(test(value) for _, test in _LINE_TESTS)
    try:
        json.loads(first)
    except (json.JSONDecodeError, RecursionError):
        # "{" on its own line: a pretty-printed document, whatever the file is called
        return _jsonl_name(path) and not _parses(text)
    return True  # a complete value on the first line and more after it


def _jsonl_name(path: Path) -> bool:
    """Named like JSON lines: `.jsonl`, or an OpenClaw transcript renamed by a reset or a
    deletion (`<id>.jsonl.reset.<time>`)."""
    return path.suffix == ".jsonl" or openclaw.renamed_transcript(path) is not None


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return False
    return True


def line_format(text: str) -> str | None:
    """The JSON-lines format whose lines these are (claude-code, codex, ...); None for others."""
    for number, line in enumerate(_nonempty_lines(text)):
        if number >= _SNIFF_LINES:
            break
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if number == 0 and openclaw.looks_like(item):
            return openclaw.NAME
        for name, test in _LINE_TESTS:
            if test(item):
                return name
    return None


def document_format(value: Any, path: Path) -> str | None:
    """The format of one JSON document: chatgpt for an export, gemini for an older Gemini CLI
    chat, cline, opencode or copilot for theirs (and their metadata files), OPENCLAW_STORE and
    GEMINI_PROJECTS for those index files, else None."""
    if chatgpt.looks_like(value):
        return chatgpt.NAME
    if gemini.looks_like_document(value):
        return gemini.NAME
    for module in (cline, opencode, copilot):
        if module.looks_like_document(value, path):
            return module.NAME
    if openclaw.looks_like_store(value):
        return OPENCLAW_STORE
    if gemini.looks_like_projects(value):
        return GEMINI_PROJECTS
    return None


def database_format(tables: set[str]) -> str | None:
    """cursor or opencode, from the tables of a SQLite database; None for any other database."""
    for module in (cursor, opencode):
        if module.looks_like_database(tables):
            return module.NAME
    return None


def detect_format(path: Path, text: str) -> str:
    """A format's name (FORMAT_NAMES, or the metadata of OPENCLAW_STORE and GEMINI_PROJECTS), or
    the archive's own `jsonl` (conversation lines) and `json` (session records). SQLite databases
    are told apart by their tables (database_format)."""
    if path.suffix == ".md" and aider.looks_like_text(text):
        return aider.NAME
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
