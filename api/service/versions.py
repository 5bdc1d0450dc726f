"""Versions of a session that writes replaced (indexer/stores/replaced.py): listing them, and
`recall restore` bringing one back."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import msgspec

from api.service.archive import safe_id
from indexer.stores.layout import DataDir
from indexer.stores.replaced import ReplacedVersions

if TYPE_CHECKING:
    from indexer.ingest.ingestor import Ingestor

__all__ = ["RestoreResult", "SessionVersion", "VersionList", "Versions"]


class SessionVersion(msgspec.Struct):
    version: int  # milliseconds since the epoch when a write replaced it
    replaced_at: str  # the same, as ISO-8601 (UTC)
    messages: int
    title: str | None


class VersionList(msgspec.Struct):
    session_id: str
    versions: list[SessionVersion]  # newest first
    keep_days: float  # how long a replaced version is kept


class RestoreResult(msgspec.Struct):
    session_id: str
    restored_version: int
    messages: int
    kept_current: bool  # the version it replaced is kept in turn: restore again to undo


class Versions:
    def __init__(self, data: DataDir, ingestor: Callable[[], Ingestor], keep_days: float) -> None:
        self.store = ReplacedVersions(data)
        self.ingestor = ingestor
        self.keep_days = keep_days

    def list(self, session_id: str) -> VersionList:
        found = []
        for kept in self.store.versions(safe_id(session_id)):
            session = kept.session()
            found.append(SessionVersion(
                kept.version, datetime.fromtimestamp(kept.replaced_at, UTC).isoformat(
                    timespec="seconds"), len(session.messages), session.title))
        return VersionList(session_id, found, self.keep_days)

    def restore(self, session_id: str, version: int | None = None) -> RestoreResult:
        """Make a kept version the session again (the newest kept when none is named)."""
        kept = self.store.version(safe_id(session_id), version)
        record = msgspec.json.decode(kept.path.read_bytes())
        outcome = self.ingestor().ingest_record(record, replace=True)
        return RestoreResult(session_id, kept.version, len(record.get("messages") or []),
                             outcome.replaced)
