"""The formats by name, and reading a file's text or JSON value with the reader of its format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from indexer.formats import aider, chatgpt, claude_code, codex, gemini, openclaw
from indexer.formats.common import FORMAT_NAMES, ImportOptions, NothingToImport, Transcript
from indexer.formats.detect import GEMINI_PROJECTS, OPENCLAW_STORE
from models import InvalidSession

__all__ = ["FORMATS", "looks_like_aider", "read_document", "read_lines", "read_text"]

FORMATS = {m.NAME: m for m in (claude_code, codex, gemini, aider, openclaw, chatgpt)}
# the names are also in common.py, which the command line reads without loading the readers
assert tuple(FORMATS) == FORMAT_NAMES, "indexer.formats.common.FORMAT_NAMES is out of date"
_LINE_FORMATS = {claude_code.NAME: claude_code.parse, codex.NAME: codex.parse,
                 gemini.NAME: gemini.parse, openclaw.NAME: openclaw.parse}


def looks_like_aider(text: str) -> bool:
    return aider.looks_like_text(text)


def read_text(path: Path, text: str, options: ImportOptions) -> list[Transcript]:
    """A Markdown transcript: an aider chat history."""
    return aider.parse(path, text, options)


def read_lines(fmt: str, path: Path, text: str, options: ImportOptions) -> list[Transcript]:
    if fmt in _LINE_FORMATS:
        return _LINE_FORMATS[fmt](path, text, options)
    if fmt == chatgpt.NAME:
        raise InvalidSession("not a ChatGPT export: that is one JSON document, this is JSON lines")
    raise InvalidSession(f"unknown transcript format {fmt!r}")


def read_document(fmt: str, path: Path, value: Any, options: ImportOptions) -> list[Transcript]:
    if fmt == chatgpt.NAME:
        return chatgpt.parse_value(path, value, options)
    if fmt == gemini.NAME:
        return gemini.parse_value(path, value, options)
    if fmt == OPENCLAW_STORE:
        raise NothingToImport("OpenClaw session index (sessions.json): metadata, not a transcript")
    if fmt == GEMINI_PROJECTS:
        raise NothingToImport("Gemini CLI project list (projects.json): metadata, not a transcript")
    if fmt in _LINE_FORMATS:
        raise InvalidSession(
            f"not a {fmt} transcript: those are JSON lines, this is one JSON document")
    raise InvalidSession(f"unknown transcript format {fmt!r}")
