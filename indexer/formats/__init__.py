"""Importers for the transcripts people have: Claude Code, OpenClaw and ChatGPT exports.

Each turns a file into Transcripts whose records are the raw session records parse_session
accepts, so everything downstream (redaction, archive, both indexes, memories) is unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from indexer.formats import chatgpt, claude_code, openclaw
from indexer.formats.common import DEFAULT_TOOL_CHARS, ImportOptions, NothingToImport, Transcript
from indexer.formats.detect import (
    OPENCLAW_STORE,
    detect_format,
    document_format,
    is_json_lines,
    line_format,
)
from models import InvalidSession

__all__ = [
    "DEFAULT_TOOL_CHARS",
    "FORMATS",
    "OPENCLAW_STORE",
    "ImportOptions",
    "NothingToImport",
    "Transcript",
    "detect_format",
    "document_format",
    "is_json_lines",
    "line_format",
    "read_document",
    "read_lines",
]

FORMATS = {m.NAME: m for m in (claude_code, openclaw, chatgpt)}
_LINE_FORMATS = {claude_code.NAME: claude_code.parse, openclaw.NAME: openclaw.parse}


def read_lines(fmt: str, path: Path, text: str, options: ImportOptions) -> list[Transcript]:
    if fmt in _LINE_FORMATS:
        return _LINE_FORMATS[fmt](path, text, options)
    if fmt == chatgpt.NAME:
        raise InvalidSession("not a ChatGPT export: that is one JSON document, this is JSON lines")
    raise InvalidSession(f"unknown transcript format {fmt!r}")


def read_document(fmt: str, path: Path, value: Any, options: ImportOptions) -> list[Transcript]:
    if fmt == chatgpt.NAME:
        return chatgpt.parse_value(path, value, options)
    if fmt == OPENCLAW_STORE:
        raise NothingToImport("OpenClaw session index (sessions.json): metadata, not a transcript")
    if fmt in _LINE_FORMATS:
        raise InvalidSession(
            f"not a {fmt} transcript: those are JSON lines, this is one JSON document")
    raise InvalidSession(f"unknown transcript format {fmt!r}")
