"""What an input format is to the rest of recall: one `Format` record per format, declared at the
bottom of its module (`FORMAT = Format(...)`) and listed once in `registry.FORMATS`.

A format says how its agent stores a session (`Storage`: JSON lines, one JSON document, a
SQLite database, Markdown) and, for each kind it uses, what it recognizes (a sniffer) and how it
reads one file (a reader, one signature per kind: `(path, text|value|connection, options,
ledger) -> list[Transcript]`). The record checks at construction that each kind it declares has
its reader and a sniffer, and that it has no reader or sniffer of a kind it does not declare.
Detection by content, the readers by name, `recall import`'s default locations, `recall sources`
and `recall resume` read these records and nothing else (docs/architecture.md, "An input
format").
"""

from __future__ import annotations

import re
import sqlite3
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, NamedTuple

from indexer.formats.common import ImportOptions, Transcript
from indexer.formats.ledger import Ledger

__all__ = ["DatabaseReader", "DocumentReader", "Format", "LinesReader", "Metadata", "Resume",
           "Storage", "TextReader", "Unreadable"]


class Storage(Enum):
    """How an agent keeps its sessions; the value is how an error message names the kind."""

    LINES = "JSON lines"  # one JSON value a line, read from the file's text
    DOCUMENT = "JSON documents"  # the whole file one JSON value, read once decoded
    DATABASE = "a SQLite database"  # read in place, from a read-only connection
    TEXT = "Markdown"  # a text file, read as it is


# the readers, one signature per kind: the file's path, its content, the options, its ledger
LinesReader = Callable[[Path, str, ImportOptions, Ledger], list[Transcript]]
DocumentReader = Callable[[Path, Any, ImportOptions, Ledger], list[Transcript]]
DatabaseReader = Callable[[Path, sqlite3.Connection, ImportOptions, Ledger], list[Transcript]]
TextReader = Callable[[Path, str, ImportOptions, Ledger], list[Transcript]]


class Resume(NamedTuple):
    """How an agent reopens one of its sessions, for `recall resume`."""

    command: str | None  # with `{id}` for the agent's own session id; None: no command can
    note: str  # what to know (where to run it, or how else to reopen the session)


class Unreadable(NamedTuple):
    """Files an agent keeps that recall cannot read (encrypted: Windsurf's Cascade
    conversations): `recall sources` names them with their count rather than passing over them
    in silence."""

    what: str  # "Cascade conversations (encrypted)"
    folders: Callable[[Path, dict[str, str]], list[Path]]  # (home, environment)
    pattern: str  # the files' names in those folders, a glob: "*.pb"


@dataclass(frozen=True, slots=True)
class Metadata:
    """A JSON file an agent keeps beside its transcripts that holds no conversation (an index of
    sessions, a list of projects): recognized by content, so that it is "nothing to import"
    rather than rejected."""

    name: str  # what detection calls it ("openclaw-store")
    description: str  # "OpenClaw session index (sessions.json)"
    looks_like: Callable[[Any], bool]  # the decoded document


_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
_VARIABLE = re.compile(r"[A-Z_][A-Z0-9_]*")


@dataclass(frozen=True, slots=True, kw_only=True)
class Format:
    """One input format: who wrote it, how it is stored, what it recognizes, how it is read,
    where it usually is, and how its agent reopens a session."""

    name: str  # what `recall import`, `watch --format` and `sources` call it: "claude-code"
    channel: str  # the sessions' channel (a search filter): usually the name
    stored_as: tuple[Storage, ...]  # every kind its agent writes, each with its reader below
    default_paths: Callable[[Path, dict[str, str]], list[Path]]  # (home, environment)
    is_candidate: Callable[[Path], bool]  # a file under the default paths worth reading
    environment: tuple[str, ...] = ()  # the variables default_paths reads (they move them)
    resume: Resume  # for sessions whose origin agent is `name`
    agents: Mapping[str, Resume] = field(default_factory=dict)  # other origin agents it reads
    # what it recognizes: a decoded line (any line among the first, or only the first: a
    # header), a decoded document, a database's tables or its content, a Markdown text
    sniff_line: Callable[[Any], bool] | None = None
    sniff_header: Callable[[Any], bool] | None = None
    sniff_document: Callable[[Any, Path], bool] | None = None
    sniff_tables: Callable[[set[str]], bool] | None = None
    sniff_connection: Callable[[sqlite3.Connection, set[str]], bool] | None = None
    sniff_text: Callable[[str], bool] | None = None
    # how it reads one file of each kind it is stored as
    read_lines: LinesReader | None = None
    read_document: DocumentReader | None = None
    read_database: DatabaseReader | None = None
    read_text: TextReader | None = None
    metadata: tuple[Metadata, ...] = ()  # its files without conversation, told by content
    lines_named: Callable[[Path], bool] | None = None  # JSON lines though not named *.jsonl
    walk_depth: int | None = None  # how deep under a default folder to look (None: all of it)
    unreadable: tuple[Unreadable, ...] = ()  # files it keeps that cannot be read, to be named

    def __post_init__(self) -> None:
        problems = _problems(self)
        if problems:
            raise TypeError(f"format {self.name!r}: " + "; ".join(problems))

    def resumes(self) -> dict[str, Resume]:
        """How each origin agent this format reads reopens a session: its own, then the others."""
        return {self.name: self.resume, **self.agents}

    def readers(self) -> dict[Storage, Callable[..., list[Transcript]] | None]:
        return {Storage.LINES: self.read_lines, Storage.DOCUMENT: self.read_document,
                Storage.DATABASE: self.read_database, Storage.TEXT: self.read_text}

    def sniffers(self) -> dict[Storage, tuple[Callable[..., bool] | None, ...]]:
        return {Storage.LINES: (self.sniff_line, self.sniff_header),
                Storage.DOCUMENT: (self.sniff_document,),
                Storage.DATABASE: (self.sniff_tables, self.sniff_connection),
                Storage.TEXT: (self.sniff_text,)}


def _problems(fmt: Format) -> list[str]:
    """What the record lacks or has too many of; empty when it keeps the contract."""
    out = []
    if not _NAME.fullmatch(fmt.name):
        out.append("the name is lowercase letters, digits and single hyphens")
    if not fmt.channel:
        out.append("no channel")
    if not fmt.stored_as or len(set(fmt.stored_as)) != len(fmt.stored_as):
        out.append("stored_as names each storage kind once, at least one")
    readers, sniffers = fmt.readers(), fmt.sniffers()
    for kind in Storage:
        declared = kind in fmt.stored_as
        field_name = f"read_{kind.name.lower()}"
        if declared and readers[kind] is None:
            out.append(f"stored as {kind.value} but no {field_name}")
        if not declared and readers[kind] is not None:
            out.append(f"{field_name} given but {kind.name} is not in stored_as")
        if declared and not any(sniffers[kind]):
            out.append(f"stored as {kind.value} but nothing recognizes it (a sniff_ function)")
        if not declared and any(sniffers[kind]):
            out.append(f"a sniff_ function for {kind.value}, which it is not stored as")
    if fmt.lines_named is not None and Storage.LINES not in fmt.stored_as:
        out.append("lines_named given but it is not stored as JSON lines")
    out += _resume_problems(fmt.name, fmt.resume)
    for agent, how in fmt.agents.items():
        if not _NAME.fullmatch(agent) or agent == fmt.name:
            out.append(f"agent {agent!r}: another agent's name, lowercase with hyphens")
        out += _resume_problems(agent, how)
    out += [f"{name!r} is not an environment variable's name" for name in fmt.environment
            if not _VARIABLE.fullmatch(name)]
    if fmt.walk_depth is not None and fmt.walk_depth < 0:
        out.append("walk_depth is not negative")
    return out


def _resume_problems(agent: str, how: Resume) -> list[str]:
    if not isinstance(how, Resume):
        return [f"{agent}: resume is a Resume(command, note)"]
    if how.command is None:
        return [] if how.note else [f"{agent}: a resume without a command says why in its note"]
    fields = {name for _, name, _, _ in string.Formatter().parse(how.command) if name is not None}
    return [] if fields <= {"id"} else [f"{agent}: the resume command's only field is {{id}}"]
