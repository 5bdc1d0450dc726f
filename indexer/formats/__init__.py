"""Importers for the transcripts people have: Claude Code, Codex, Gemini CLI, Cursor, aider,
Cline (and Roo, Kilo), opencode, GitHub Copilot, OpenClaw and ChatGPT exports.

Each turns a file into Transcripts whose records are the raw session records parse_session
accepts, so everything downstream (redaction, archive, both indexes, memories) is unchanged.
Each format is one `Format` record (contract.py) in the list of registry.py. The names below
are loaded on first use (PEP 562): the command line reads the format names (`common.py`)
without loading the readers.
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
    from indexer.formats.contract import Format, Metadata, Resume, Storage
    from indexer.formats.detect import (
        connection_format,
        database_format,
        detect_format,
        document_format,
        is_json_lines,
        line_format,
        text_format,
    )
    from indexer.formats.readers import read_database, read_document, read_lines, read_text
    from indexer.formats.registry import FORMATS

__all__ = [
    "DEFAULT_TOOL_CHARS",
    "FORMATS",
    "FORMAT_NAMES",
    "Format",
    "ImportOptions",
    "Metadata",
    "NothingToImport",
    "Resume",
    "Storage",
    "Transcript",
    "connection_format",
    "database_format",
    "detect_format",
    "document_format",
    "is_json_lines",
    "line_format",
    "read_database",
    "read_document",
    "read_lines",
    "read_text",
    "text_format",
]

# where each name is defined
_MODULES = {
    **dict.fromkeys(("DEFAULT_TOOL_CHARS", "FORMAT_NAMES", "ImportOptions", "NothingToImport",
                     "Transcript"), "indexer.formats.common"),
    **dict.fromkeys(("Format", "Metadata", "Resume", "Storage"), "indexer.formats.contract"),
    **dict.fromkeys(("connection_format", "database_format", "detect_format", "document_format",
                     "is_json_lines", "line_format", "text_format"), "indexer.formats.detect"),
    **dict.fromkeys(("read_database", "read_document", "read_lines", "read_text"),
                    "indexer.formats.readers"),
    "FORMATS": "indexer.formats.registry",
}

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    __getattr__, __dir__ = lazy_names(__name__, _MODULES, globals())
