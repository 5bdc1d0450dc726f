"""Which format a file holds, from its content: JSON lines or one JSON document, and whose."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from indexer.formats import aider, chatgpt, claude_code, codex, gemini, openclaw

__all__ = ["GEMINI_PROJECTS", "OPENCLAW_STORE", "detect_format", "document_format", "is_json_lines",
           "line_format"]

OPENCLAW_STORE = "openclaw-store"  # OpenClaw's sessions.json: metadata, nothing to import
GEMINI_PROJECTS = "gemini-projects"  # Gemini CLI's projects.json: metadata, nothing to import
_SNIFF_LINES = 30


def is_json_lines(path: Path, text: str) -> bool:
    """True for JSON lines, False for one JSON document (pretty-printed or on one line)."""
    lines = _nonempty_lines(text)
    first, second = next(lines, None), next(lines, None)
    if first is None:
        return path.suffix == ".jsonl"
    if second is None:  # one line: a single entry, or a minified document
        if first.startswith("["):
            return False  # a list (e.g. a ChatGPT export) is a document; skip parsing it twice
        if path.suffix == ".jsonl":
            return True
        try:
            value = json.loads(first)
        except (json.JSONDecodeError, RecursionError):
            return False
        return (openclaw.looks_like(value) or claude_code.looks_like(value)
                or codex.looks_like(value)
                or (gemini.looks_like(value) and not gemini.looks_like_document(value)))
    try:
        json.loads(first)
    except (json.JSONDecodeError, RecursionError):
        # "{" on its own line: a pretty-printed document, whatever the file is called
        return path.suffix == ".jsonl" and not _parses(text)
    return True  # a complete value on the first line and more after it


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return False
    return True


def line_format(text: str) -> str | None:
    """claude-code, codex, gemini or openclaw for their transcripts; None for other JSON lines."""
    for number, line in enumerate(_nonempty_lines(text)):
        if number >= _SNIFF_LINES:
            break
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if number == 0 and openclaw.looks_like(item):
            return openclaw.NAME
        if claude_code.looks_like(item):
            return claude_code.NAME
        if codex.looks_like(item):
            return codex.NAME
        if gemini.looks_like(item):
            return gemini.NAME
    return None


def document_format(value: Any) -> str | None:
    """chatgpt for an export, gemini for an older Gemini CLI chat, OPENCLAW_STORE for OpenClaw's
    session index, else None."""
    if chatgpt.looks_like(value):
        return chatgpt.NAME
    if gemini.looks_like_document(value):
        return gemini.NAME
    if openclaw.looks_like_store(value):
        return OPENCLAW_STORE
    if gemini.looks_like_projects(value):
        return GEMINI_PROJECTS
    return None


def detect_format(path: Path, text: str) -> str:
    """One of claude-code, codex, gemini, aider, openclaw, chatgpt, openclaw-store, or the
    archive's own `jsonl` (conversation lines) and `json` (session records)."""
    if path.suffix == ".md" and aider.looks_like_text(text):
        return aider.NAME
    if is_json_lines(path, text):
        return line_format(text) or "jsonl"
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return "json"
    return document_format(value) or "json"


def _nonempty_lines(text: str) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end].strip()
        if line:
            yield line
        start = end + 1
