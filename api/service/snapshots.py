"""Snapshots for the service: save one, list and prune them, recover from one, see what changed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import msgspec

from api.service.archive import Archive, safe_id
from api.service.memories import SessionMemories
from api.service.relevance import MemoryRelevance
from indexer.stores.snapshots import SnapshotStore, snapshot_from_memories
from models import (
    ChangeReport,
    InvalidInput,
    NotFound,
    RecoveryDecision,
    RecoveryOptions,
    Snapshot,
)
from search.fact_links import FactLinks
from search.recovery import compress, detect_changes, recover
from search.recovery.superseded import with_superseded, without_superseded

if TYPE_CHECKING:
    from indexer.embedding.embedders import Embedder

__all__ = ["PrunedSnapshots", "SnapshotList", "Snapshots"]


class SnapshotList(msgspec.Struct):
    session_id: str
    snapshots: list[Snapshot]


class PrunedSnapshots(msgspec.Struct):
    session_id: str
    deleted: int
    snapshots: list[Snapshot]


class Snapshots:
    def __init__(self, archive: Archive, memories: SessionMemories, relevance: MemoryRelevance,
                 embedder: Callable[[], Embedder], mark_recovered: Callable[[str], None]) -> None:
        self.archive = archive
        self.store = SnapshotStore(archive.data)
        self.memories = memories
        self.relevance = relevance
        self._embedder = embedder
        self._mark_recovered = mark_recovered  # an open live session becomes `recovered`

    def create(self, session_id: str) -> Snapshot:
        """Save the session's current state (its memories) as a new snapshot."""
        session = self.archive.session(session_id)
        created = datetime.now(UTC).isoformat(timespec="seconds")
        snapshot = snapshot_from_memories(session, self.memories.of(session_id), created)
        return self.store.save_new(snapshot)

    def of(self, session_id: str, keep: int | None = None) -> SnapshotList:
        """The session's snapshots, oldest first; with `keep`, only the newest N are kept."""
        if keep is not None:
            self.prune(session_id, keep)
        return SnapshotList(session_id, self.store.list(safe_id(session_id)))

    def prune(self, session_id: str, keep: int) -> PrunedSnapshots:
        """Delete all but the newest `keep` snapshots."""
        if keep < 1:
            raise InvalidInput("keep must be at least 1")
        deleted = self.store.keep_newest(safe_id(session_id), keep)
        return PrunedSnapshots(session_id, deleted, self.store.list(safe_id(session_id)))

    def get(self, session_id: str, snapshot_id: str, token_budget: int | None = None) -> Snapshot:
        """One snapshot, whole or compressed to about `token_budget` tokens."""
        snapshot = self._find(safe_id(session_id), snapshot_id)
        return snapshot if token_budget is None else compress(snapshot, token_budget)

    def recover(self, session_id: str, context: str | None = None, *,
                options: RecoveryOptions | None = None,
                token_budget: int | None = None) -> RecoveryDecision:
        """Which of the session's snapshots to resume from, how sure, why, and how; with a
        token budget, the selected snapshot comes compressed to fit it."""
        checked = safe_id(session_id)
        if self.archive.open_live(checked) and not self.store.list(checked):
            self.create(checked)  # an open live session without one: a snapshot of now
        snapshots, superseded = without_superseded(self.store.require(checked),
                                                   FactLinks.load(self.archive.data))
        embedder = self._embedder() if context and context.strip() else None
        decision = recover(snapshots, context, embedder=embedder,
                           options=options or RecoveryOptions())
        decision = with_superseded(decision, superseded)
        self.relevance.boost_recovery(session_id, decision.selected)
        self._mark_recovered(session_id)
        if token_budget is not None:
            decision = msgspec.structs.replace(decision,
                                               selected=compress(decision.selected, token_budget))
        return decision

    def changes(self, session_id: str, snapshot_id: str | None = None,
                against: str | None = None) -> ChangeReport:
        """What changed since a snapshot (default: the newest) up to another snapshot, or by
        default up to the session's current state (its memories now)."""
        session_id = safe_id(session_id)
        snapshots = self.store.require(session_id)
        before = self._find(session_id, snapshot_id) if snapshot_id else snapshots[-1]
        if against:
            after = self._find(session_id, against)
        else:
            now = datetime.now(UTC).isoformat(timespec="seconds")
            after = snapshot_from_memories(self.archive.session(session_id),
                                           self.memories.of(session_id), now)
            after = msgspec.structs.replace(after, id="current")
        return detect_changes(before, after)

    def _find(self, session_id: str, snapshot_id: str) -> Snapshot:
        for snapshot in self.store.require(session_id):
            if snapshot.id == snapshot_id:
                return snapshot
        raise NotFound(f"session {session_id!r} has no snapshot {snapshot_id!r}")
