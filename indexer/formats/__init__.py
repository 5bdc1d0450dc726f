"""Importers for the transcripts people have: Claude Code, Codex, Gemini CLI, Cursor, aider,
Cline (and Roo, Kilo), opencode, GitHub Copilot, OpenClaw and ChatGPT exports.

Each turns a file into Transcripts whose records are the raw session records parse_session
accepts, so everything downstream (redaction, archive, both indexes, memories) is unchanged.
The names below are loaded on first use (PEP 562): the command line reads the format names
(`common.py`) without loading the readers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.lazy import lazy_names

if TYPE_CHECKING:
    from indexer.formats.common import (
        DEFAULT_TOOL_CHARS,
        FORMAT_NAMES,
        ImportOptions,
        NothingToImport,
        Transcript,
    )
    from indexer.formats.detect import (
        OPENCLAW_STORE,
        database_format,
        detect_format,
        document_format,
        is_json_lines,
        line_format,
    )
    from indexer.formats.registry import (
        FORMATS,
        looks_like_aider,
        read_database,
        read_document,
        read_lines,
        read_text,
    )

__all__ = [
    "DEFAULT_TOOL_CHARS",
    "FORMATS",
    "FORMAT_NAMES",
    "OPENCLAW_STORE",
    "ImportOptions",
    "NothingToImport",
    "Transcript",
    "database_format",
    "detect_format",
    "document_format",
    "is_json_lines",
    "line_format",
    "looks_like_aider",
    "read_database",
    "read_document",
    "read_lines",
    "read_text",
]

# where each name is defined
_MODULES = {
    **dict.fromkeys(("DEFAULT_TOOL_CHARS", "FORMAT_NAMES", "ImportOptions", "NothingToImport",
                     "Transcript"), "indexer.formats.common"),
    **dict.fromkeys(("OPENCLAW_STORE", "database_format", "detect_format", "document_format",
                     "is_json_lines", "line_format"), "indexer.formats.detect"),
    **dict.fromkeys(("FORMATS", "looks_like_aider", "read_database", "read_document",
                     "read_lines", "read_text"), "indexer.formats.registry"),
}

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    __getattr__, __dir__ = lazy_names(__name__, _MODULES, globals())
