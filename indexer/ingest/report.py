"""What an ingest, reindex, rewrite or repair did: counts, rejected files, redactions, time, and
for each input file read, its ledger (indexer/formats/ledger.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from indexer.formats.ledger import FileRead
from indexer.formats.sources import Rejection

__all__ = ["FileRead", "IndexReport"]


@dataclass
class IndexReport:
    indexed: int = 0
    unchanged: int = 0
    rejected: list[Rejection] = field(default_factory=list)
    seconds: float = 0.0
    messages: int = 0
    files: int = 0
    snapshots: int = 0
    redacted: Counter[str] = field(default_factory=Counter)
    older_copies: int = 0  # sessions left out: a newer copy was read or archived already
    replaced: list[str] = field(default_factory=list)  # sessions whose old version was kept
    files_read: list[FileRead] = field(default_factory=list)  # each file read (not unchanged)
    skipped_files: list[Rejection] = field(default_factory=list)  # passed over by name or shape
