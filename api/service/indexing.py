"""What writing sessions reports, typed: indexing files, an import's dry run, one ingested record."""

from __future__ import annotations

import msgspec

from indexer import IndexReport
from indexer.formats.importer import Explained, Preview, PreviewSession
from indexer.formats.ledger import FileRead

__all__ = ["FileLedger", "ImportExplained", "ImportPreview", "IndexResult", "IngestResult",
           "PreviewSession", "RecordFate", "Rejected"]


class Rejected(msgspec.Struct):
    path: str
    reason: str


class FileLedger(msgspec.Struct, omit_defaults=True):
    """One input file read: its sessions and messages, and what became of its records
    (indexer/formats/ledger.py): records = imported + merged + left out."""

    path: str
    outcome: str  # read, empty (nothing to import), rejected
    sessions: int
    messages: int
    records: int
    imported: int
    merged: int
    left_out: dict[str, int]  # by reason
    parts_left_out: dict[str, int] = {}  # pieces of kept records (thinking blocks, ...)
    repaired: dict[str, int] = {}  # e.g. lone surrogates made U+FFFD
    reason: str | None = None  # why rejected, or why there was nothing to import

    @classmethod
    def of(cls, read: FileRead) -> FileLedger:
        t = read.ledger
        return cls(read.path, read.outcome, read.sessions, read.messages, t.records, t.imported,
                   t.merged, t.left_out, t.parts_left_out, t.repaired, read.reason)


class IndexResult(msgspec.Struct, omit_defaults=True):
    indexed: int
    unchanged: int
    rejected: list[Rejected]
    seconds: float
    messages: int
    files: int
    snapshots: int
    redacted: dict[str, int]  # secrets redacted, by kind
    format: str | None = None  # set by an import
    older_copies: int = 0  # sessions left out because a newer copy was read or archived
    files_read: list[FileLedger] = []  # each file read (not those skipped as unchanged)
    passed_over: list[Rejected] = []  # files in the folders not read, and why

    @classmethod
    def of(cls, report: IndexReport, format: str | None = None) -> IndexResult:
        return cls(indexed=report.indexed, unchanged=report.unchanged,
                   rejected=[Rejected(r.path, r.reason) for r in report.rejected],
                   seconds=round(report.seconds, 3), messages=report.messages,
                   files=report.files, snapshots=report.snapshots,
                   redacted=dict(report.redacted), format=format,
                   older_copies=report.older_copies,
                   files_read=[FileLedger.of(f) for f in report.files_read],
                   passed_over=[Rejected(r.path, r.reason) for r in report.skipped_files])


class ImportPreview(msgspec.Struct):
    """What an import would do (`recall import --dry-run`): nothing is written."""

    format: str
    dry_run: bool
    files: int
    sessions: list[PreviewSession]
    messages: int
    older_than_since: int  # sessions left out by --since
    empty: list[Rejected]  # readable, nothing to import
    rejected: list[Rejected]
    files_read: list[FileLedger] = []  # each file's ledger
    passed_over: list[Rejected] = []  # files in the folders not read, and why

    @classmethod
    def of(cls, preview: Preview) -> ImportPreview:
        return cls(format=preview.format, dry_run=True, files=preview.files,
                   sessions=list(preview.sessions),
                   messages=sum(s.messages for s in preview.sessions),
                   older_than_since=preview.older,
                   empty=[Rejected(r.path, r.reason) for r in preview.empty],
                   rejected=[Rejected(r.path, r.reason) for r in preview.rejected],
                   files_read=[FileLedger.of(f) for f in preview.files_read])


class IngestResult(msgspec.Struct, omit_defaults=True):
    session_id: str
    indexed: bool
    changed: bool
    replaced: bool = False  # its stored messages were replaced; the old version is kept


class RecordFate(msgspec.Struct, omit_defaults=True):
    where: str  # "line 12", "messages[3]", ...
    fate: str  # imported, merged, left out
    reason: str = ""


class LedgerCounts(msgspec.Struct):
    records: int
    imported: int
    merged: int
    left_out: dict[str, int]
    parts_left_out: dict[str, int]
    repaired: dict[str, int]


class ImportExplained(msgspec.Struct, omit_defaults=True):
    """`recall import --explain FILE`: what became of each record of one file."""

    path: str
    fates: list[RecordFate]
    totals: LedgerCounts
    sessions: list[PreviewSession]
    reason: str | None = None  # why the file was rejected or had nothing to import

    @classmethod
    def of(cls, explained: Explained) -> ImportExplained:
        t = explained.totals
        return cls(explained.path, [RecordFate(f.where, f.fate, f.reason) for f in explained.fates],
                   LedgerCounts(t.records, t.imported, t.merged, t.left_out, t.parts_left_out,
                                t.repaired),
                   explained.sessions, explained.reason)
