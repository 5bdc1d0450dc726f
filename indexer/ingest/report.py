"""What an ingest, reindex, rewrite or repair did: counts, rejected files, redactions, time."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from indexer.formats.sources import Rejection

__all__ = ["IndexReport"]


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "rejected": [{"path": r.path, "reason": r.reason} for r in self.rejected],
            "seconds": round(self.seconds, 3),
            "messages": self.messages,
            "files": self.files,
            "snapshots": self.snapshots,
            "redacted": dict(self.redacted),
        }
