"""What writing sessions reports, typed: indexing files, an import's dry run, one ingested record."""

from __future__ import annotations

import msgspec

from indexer import IndexReport
from indexer.formats.importer import Preview, PreviewSession

__all__ = ["ImportPreview", "IndexResult", "IngestResult", "PreviewSession", "Rejected"]


class Rejected(msgspec.Struct):
    path: str
    reason: str


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

    @classmethod
    def of(cls, report: IndexReport, format: str | None = None) -> IndexResult:
        return cls(indexed=report.indexed, unchanged=report.unchanged,
                   rejected=[Rejected(r.path, r.reason) for r in report.rejected],
                   seconds=round(report.seconds, 3), messages=report.messages,
                   files=report.files, snapshots=report.snapshots,
                   redacted=dict(report.redacted), format=format,
                   older_copies=report.older_copies)


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

    @classmethod
    def of(cls, preview: Preview) -> ImportPreview:
        return cls(format=preview.format, dry_run=True, files=preview.files,
                   sessions=list(preview.sessions),
                   messages=sum(s.messages for s in preview.sessions),
                   older_than_since=preview.older,
                   empty=[Rejected(r.path, r.reason) for r in preview.empty],
                   rejected=[Rejected(r.path, r.reason) for r in preview.rejected])


class IngestResult(msgspec.Struct, omit_defaults=True):
    session_id: str
    indexed: bool
    changed: bool
    replaced: bool = False  # its stored messages were replaced; the old version is kept
