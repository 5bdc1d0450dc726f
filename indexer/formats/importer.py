"""`recall import FORMAT`: where each format's transcripts usually live, which files to read,
and a dry run that lists what an import would bring in without writing anything."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from indexer.formats import registry
from indexer.formats.common import FORMAT_NAMES, ImportOptions, NothingToImport
from indexer.formats.contract import Format
from indexer.formats.ledger import Fate, FileRead, Ledger, LedgerTotals
from indexer.formats.sources import Rejection, discover, normalize, read_path
from models import InvalidInput, RecallError

__all__ = ["FORMAT_NAMES", "Explained", "FileRead", "FoundSource", "Preview", "PreviewSession",
           "UnreadableFiles", "candidate_files", "default_paths", "explain", "find_sources", "preview",
           "unreadable_files"]

log = logging.getLogger(__name__)


def default_paths(fmt: str, home: Path | None = None,
                  env: Mapping[str, str] | None = None) -> list[Path]:
    """Where the format's transcripts are kept by default (e.g. ~/.claude/projects)."""
    return _format(fmt).default_paths(home or Path.home(), dict(os.environ if env is None else env))


class UnreadableFiles(msgspec.Struct, frozen=True):
    """Files of an agent that recall cannot read (encrypted), found in one of its folders."""

    what: str  # "Cascade conversations (encrypted)"
    folder: str
    files: int


class FoundSource(msgspec.Struct, frozen=True):
    """Where one agent keeps its transcripts on this machine, and what is there
    (`recall sources --json`)."""

    format: str
    found: list[str]  # default locations that exist
    missing: list[str]  # default locations that do not
    files: int  # transcript files there
    newest: str | None  # YYYY-MM-DD of the most recently written one
    environment: list[str] = []  # the variables that move the default locations
    unreadable: list[UnreadableFiles] = []  # files it keeps that recall cannot read


def find_sources(home: Path | None = None,
                 env: Mapping[str, str] | None = None) -> list[FoundSource]:
    """Every supported agent's default locations, looked up; files counted, none read."""
    out = []
    for fmt in registry.FORMATS:
        roots = default_paths(fmt.name, home, env)
        found = [p for p in roots if p.exists()]
        files = candidate_files(fmt.name, found) if found else []
        times = [p.stat().st_mtime for p in files if p.exists()]
        newest = time.strftime("%Y-%m-%d", time.localtime(max(times))) if times else None
        out.append(FoundSource(fmt.name, [str(p) for p in found],
                               [str(p) for p in roots if not p.exists()], len(files), newest,
                               list(fmt.environment), unreadable_files(fmt.name, home, env)))
    return out


def unreadable_files(fmt: str, home: Path | None = None,
                     env: Mapping[str, str] | None = None) -> list[UnreadableFiles]:
    """The files of the format's agent that cannot be read (encrypted), counted in each of its
    folders that has some."""
    environment = dict(os.environ if env is None else env)
    out = []
    for kind in _format(fmt).unreadable:
        for folder in kind.folders(home or Path.home(), environment):
            count = sum(1 for p in folder.glob(kind.pattern) if p.is_file()) \
                if folder.is_dir() else 0
            if count:
                out.append(UnreadableFiles(kind.what, str(folder), count))
    return out


def candidate_files(fmt: str, paths: Iterable[Path],
                    passed_over: list[Rejection] | None = None) -> list[Path]:
    """The files under paths that can hold the format; files named directly are always read.
    The other files in those folders are added to `passed_over` with why, when it is given."""
    format_ = _format(fmt)
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
        elif format_.walk_depth is not None:  # not the whole of a folder (ChatGPT's Downloads)
            found += _shallow(path, format_.is_candidate, format_.walk_depth)
        else:
            for p in discover([path], passed_over):
                if format_.is_candidate(p):
                    found.append(p)
                elif passed_over is not None:
                    passed_over.append(Rejection(str(p), f"not where {fmt} keeps a transcript"))
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
    files_read: list[FileRead] = field(default_factory=list)


def preview(fmt: str, files: Sequence[Path], options: ImportOptions, max_bytes: int) -> Preview:
    """Read every file as an import would (redacted, parsed), and write nothing."""
    report = Preview(fmt, files=len(files))
    for path in files:
        ledger = Ledger()
        read = FileRead(str(path), "read")
        try:
            transcripts = read_path(path, options, max_bytes, ledger)
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
                read.sessions += 1
                read.messages += len(session.messages)
        except NothingToImport as exc:
            report.empty.append(Rejection(str(path), exc.detail))
            read.outcome, read.reason = "empty", exc.detail
        except Exception as exc:  # noqa: BLE001  one file's failure never stops the run
            reason = _reason(exc)
            report.rejected.append(Rejection(str(path), reason))
            read.outcome, read.reason = "rejected", reason
        read.ledger = ledger.totals()
        report.files_read.append(read)
    return report


@dataclass
class Explained:
    """`recall import --explain FILE`: the fate of each of a file's records."""

    path: str
    fates: list[Fate]
    totals: LedgerTotals
    sessions: list[PreviewSession]
    reason: str | None  # why the file was rejected or had nothing to import


def explain(fmt: str | None, path: Path, options: ImportOptions, max_bytes: int) -> Explained:
    """Read one file as an import would and say what became of every record; write nothing."""
    ledger = Ledger()
    sessions: list[PreviewSession] = []
    reason = None
    try:
        transcripts = read_path(path, options, max_bytes, ledger)
        if transcripts is None:
            raise InvalidInput(f"not a {fmt or 'known'} transcript: recall's own archive format, "
                               "where each session is imported whole")
        for transcript in transcripts:
            session, _, _ = normalize(transcript.record, None)
            sessions.append(PreviewSession(str(path), session.session_id, len(session.messages),
                                           session.date, transcript.last_activity, session.title,
                                           transcript.skipped))
    except NothingToImport as exc:
        reason = exc.detail
    except Exception as exc:  # noqa: BLE001  the fates read so far are still worth showing
        reason = _reason(exc)
    return Explained(str(path), ledger.fates(), ledger.totals(), sessions, reason)


def _reason(exc: Exception) -> str:
    if isinstance(exc, RecallError):
        return exc.detail
    if isinstance(exc, OSError):
        return f"cannot read: {exc.strerror or exc}"
    log.info("reading failed", exc_info=exc)  # the traceback, for -v
    return f"the reader failed ({type(exc).__name__}: {str(exc)[:200]}); -v logs where"


def _format(fmt: str) -> Format:
    found = registry.named(fmt)
    if found is None:
        names = ", ".join(f.name for f in registry.FORMATS)
        raise InvalidInput(f"unknown format {fmt!r}: choose one of {names}")
    return found


def _shallow(root: Path, is_candidate: Callable[[Path], bool], depth: int) -> list[Path]:
    """The candidates in root and its visible folders down to `depth` levels below it."""
    found = []
    base = len(root.parts)
    for folder, dirs, files in os.walk(root):
        level = len(Path(folder).parts) - base
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if level < depth else []
        found += [p for p in (Path(folder, n) for n in sorted(files)) if is_candidate(p)]
    return found
