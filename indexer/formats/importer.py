"""`recall import FORMAT`: where each format's transcripts usually live, which files to read,
and a dry run that lists what an import would bring in without writing anything."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from indexer.formats.chatgpt import FILE_NAMES as CHATGPT_FILE_NAMES
from indexer.formats.common import FORMAT_NAMES, ImportOptions, NothingToImport
from indexer.formats.registry import FORMATS
from indexer.formats.sources import Rejection, discover, normalize, read_path
from models import InvalidInput, RecallError

__all__ = ["FORMAT_NAMES", "FoundSource", "Preview", "PreviewSession", "candidate_files",
           "default_paths", "find_sources", "preview"]

# ChatGPT exports are unzipped somewhere under Downloads; do not walk all of it
_CHATGPT_DEPTH = 3


def default_paths(fmt: str, home: Path | None = None,
                  env: Mapping[str, str] | None = None) -> list[Path]:
    """Where the format's transcripts are kept by default (e.g. ~/.claude/projects)."""
    module = _module(fmt)
    return module.default_paths(home or Path.home(), dict(os.environ if env is None else env))


class FoundSource(msgspec.Struct, frozen=True):
    """Where one agent keeps its transcripts on this machine, and what is there
    (`recall sources --json`)."""

    format: str
    found: list[str]  # default locations that exist
    missing: list[str]  # default locations that do not
    files: int  # transcript files there
    newest: str | None  # YYYY-MM-DD of the most recently written one


def find_sources(home: Path | None = None,
                 env: Mapping[str, str] | None = None) -> list[FoundSource]:
    """Every supported agent's default locations, looked up; files counted, none read."""
    out = []
    for fmt in FORMAT_NAMES:
        roots = default_paths(fmt, home, env)
        found = [p for p in roots if p.exists()]
        files = candidate_files(fmt, found) if found else []
        times = [p.stat().st_mtime for p in files if p.exists()]
        newest = time.strftime("%Y-%m-%d", time.localtime(max(times))) if times else None
        out.append(FoundSource(fmt, [str(p) for p in found],
                               [str(p) for p in roots if not p.exists()], len(files), newest))
    return out


def candidate_files(fmt: str, paths: Iterable[Path]) -> list[Path]:
    """The files under paths that can hold the format; files named directly are always read."""
    module = _module(fmt)
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
        elif fmt == "chatgpt":  # not the whole of Downloads: see _CHATGPT_DEPTH
            found += _shallow(path, CHATGPT_FILE_NAMES, _CHATGPT_DEPTH)
        else:
            found += [p for p in discover([path]) if module.is_candidate(p)]
    return list(dict.fromkeys(found))


class PreviewSession(msgspec.Struct, frozen=True):
    """One session an import would read (a typed record: `recall import --dry-run --json`)."""

    file: str
    session_id: str
    messages: int
    date: str
    last_activity: str | None
    title: str | None
    skipped: dict[str, int]


@dataclass
class Preview:
    """What an import would do: sessions it would read, files it would reject or find empty."""

    format: str
    files: int = 0
    sessions: list[PreviewSession] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    empty: list[Rejection] = field(default_factory=list)  # readable, nothing to import
    older: int = 0  # sessions left out by --since


def preview(fmt: str, files: Sequence[Path], options: ImportOptions, max_bytes: int) -> Preview:
    """Read every file as an import would (redacted, parsed), and write nothing."""
    report = Preview(fmt, files=len(files))
    for path in files:
        try:
            transcripts = read_path(path, options, max_bytes)
            if transcripts is None:
                raise InvalidInput(f"not a {fmt} transcript")
            for transcript in transcripts:
                if not options.keeps(transcript):
                    report.older += 1
                    continue
                session, _, _ = normalize(transcript.record, None)
                report.sessions.append(PreviewSession(
                    str(path), session.session_id, len(session.messages), session.date,
                    transcript.last_activity, session.title, transcript.skipped))
        except NothingToImport as exc:
            report.empty.append(Rejection(str(path), exc.detail))
        except OSError as exc:
            report.rejected.append(Rejection(str(path), f"cannot read: {exc.strerror}"))
        except RecallError as exc:
            report.rejected.append(Rejection(str(path), exc.detail))
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            report.rejected.append(Rejection(str(path), f"unreadable session: {exc}"))
    return report


def _module(fmt: str) -> Any:
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown format {fmt!r}: choose one of {', '.join(FORMAT_NAMES)}")
    return FORMATS[fmt]


def _shallow(root: Path, names: Sequence[str], depth: int) -> list[Path]:
    found = []
    base = len(root.parts)
    for folder, dirs, files in os.walk(root):
        level = len(Path(folder).parts) - base
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if level < depth else []
        found += [Path(folder, n) for n in sorted(files) if n in names]
    return found
