"""Every format recall reads, in one list. The command line's names, detection by content
(detect.py), the readers by storage kind (readers.py), `recall import`'s default locations and
`recall sources` (importer.py) and `recall resume` (resume.py) are all read from it, when they
are used: a format is added by adding its FORMAT here (docs/architecture.md, "An input format").
"""

from __future__ import annotations

from indexer.formats import (
    aider,
    amp,
    chatgpt,
    claude_code,
    cline,
    codex,
    continuedev,
    copilot,
    crush,
    cursor,
    gemini,
    goose,
    grok,
    kimi,
    kiro,
    openclaw,
    opencode,
    qwen,
    warp,
    windsurf,
    zed,
)
from indexer.formats.common import FORMAT_NAMES
from indexer.formats.contract import Format, Metadata, Storage

__all__ = ["FORMATS", "metadata", "named", "storing"]

# In the order `recall sources`, `recall import --all` and the command line list them. Detection
# does not depend on it: each format recognizes only what its agent alone writes
# (tests/test_format_contract.py checks that on every sample).
FORMATS: list[Format] = [claude_code.FORMAT, codex.FORMAT, gemini.FORMAT, cursor.FORMAT,
                         aider.FORMAT, cline.FORMAT, opencode.FORMAT, copilot.FORMAT,
                         openclaw.FORMAT, chatgpt.FORMAT, zed.FORMAT, kimi.FORMAT,
                         goose.FORMAT, crush.FORMAT, qwen.FORMAT,
                         continuedev.FORMAT, warp.FORMAT, windsurf.FORMAT, grok.FORMAT, kiro.FORMAT,
                         amp.FORMAT]

# the names are also in common.py, which the command line reads without loading the readers
if tuple(f.name for f in FORMATS) != FORMAT_NAMES:
    raise ImportError("indexer.formats.common.FORMAT_NAMES is out of date: it lists the names "
                      "of registry.FORMATS, in the same order")


def named(name: str) -> Format | None:
    """The format of that name; None for a name no format has."""
    return next((f for f in FORMATS if f.name == name), None)


def storing(kind: Storage) -> list[Format]:
    """The formats stored as `kind`, in the list's order."""
    return [f for f in FORMATS if kind in f.stored_as]


def metadata(name: str) -> Metadata | None:
    """The metadata file of that name (detection's "openclaw-store"); None for any other."""
    return next((m for f in FORMATS for m in f.metadata if m.name == name), None)
