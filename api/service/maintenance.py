"""Maintenance for the service: reindex, purge, the consistency check, retention and cleanup."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import TYPE_CHECKING

import msgspec

from api.service.indexing import IndexResult
from api.settings import Settings
from indexer.maintenance.check import CheckReport
from indexer.maintenance.check import check as check_consistency
from indexer.maintenance.cleanup import parse_age, plan_deletions, plan_snapshots
from indexer.maintenance.permissions import tighten
from indexer.maintenance.retention import RetentionPolicy, plan_session, trim
from indexer.maintenance.retention import now_iso as retention_now
from indexer.maintenance.retention import plan as plan_retention
from indexer.stores.layout import DataDir
from indexer.stores.snapshots import SnapshotStore
from models import InvalidInput, Memory, Session
from search.dates import check_day

if TYPE_CHECKING:
    from indexer.ingest.compute import BatchComputer
    from indexer.ingest.ingestor import Ingestor

__all__ = ["MAX_FILTER_VALUES", "CleanupReport", "ConsistencyReport", "Maintenance",
           "PurgeReport", "RepairReport", "RetentionReport"]

MAX_FILTER_VALUES = 50  # categories or channels a cleanup may name


class PurgeReport(msgspec.Struct):
    keyword_documents: int  # copied into fresh files
    vector_rows: int


class Difference(msgspec.Struct):
    session_id: str | None  # None: about the whole index
    kind: str
    detail: str


class Repaired(msgspec.Struct):
    rebuilt: bool  # the whole index was rebuilt from the archive
    sessions: int  # else: the sessions re-indexed
    rejected: list[str]  # archive files that could not be read


class ConsistencyReport(msgspec.Struct):
    ok: bool
    sessions: int
    generation: str | None
    keyword_documents: int
    vector_passages: int
    differences: list[Difference]


class RepairReport(ConsistencyReport, omit_defaults=True):
    """The check after a repair (`differences`: what is left), with what was found and done;
    both absent when there was nothing to repair."""

    found: list[Difference] | None = None
    repaired: Repaired | None = None


class PlannedTrimOut(msgspec.Struct):
    session_id: str
    date: str
    last_activity: str
    tier: str  # now
    target: str
    drops: list[str]  # what the move drops, in words
    messages_dropped: int
    characters_dropped: int
    summary_built: bool  # the session had no summary: one is built


class RetentionReport(msgspec.Struct, omit_defaults=True):
    enabled: bool
    dry_run: bool
    full_days: int | None
    summary_days: int | None
    as_of: str
    sessions: list[PlannedTrimOut]
    messages_dropped: int
    characters_dropped: int
    applied: int | None = None  # sessions moved, when applied


class DoomedSessionOut(msgspec.Struct):
    session_id: str
    date: str
    last_activity: str
    category: str | None
    channel: str | None
    messages: int
    snapshots: int
    promoted_todos: int
    linked_todos: int


class PrunedSnapshotsOut(msgspec.Struct):
    session_id: str
    deleted: int
    kept: int


class CleanupTotals(msgspec.Struct):
    sessions: int
    messages: int
    snapshots: int
    promoted_todos: int


class CleanupApplied(msgspec.Struct):
    sessions: list[str]
    skipped: list[str]  # changed since they were chosen: left alone
    snapshots_pruned: int


class CleanupReport(msgspec.Struct, omit_defaults=True):
    dry_run: bool
    as_of: str
    older_than_days: int | None
    categories: list[str]
    channels: list[str]
    keep_snapshots: int | None
    sessions: list[DoomedSessionOut]
    snapshots: list[PrunedSnapshotsOut]
    totals: CleanupTotals
    applied: CleanupApplied | None = None  # only when dry_run is false


class Maintenance:
    def __init__(self, data: DataDir, settings: Settings, ingestor: Callable[[], Ingestor],
                 embedder_name: Callable[[], str]) -> None:
        self.data = data
        self.settings = settings
        self._ingestor = ingestor
        self._embedder_name = embedder_name  # loads the model: call only when needed

    def reindex(self, computer: BatchComputer | None = None) -> IndexResult:
        return IndexResult.of(self._ingestor().reindex(computer))

    def purge(self) -> PurgeReport:
        copied = self._ingestor().purge()
        return PurgeReport(copied["keyword_documents"], copied["vector_rows"])

    def check(self) -> ConsistencyReport:
        """Whether archive, state, both indexes and stored memories agree (`recall check`)."""
        return _consistency(check_consistency(self.data, self._embedder_name()))

    def repair(self) -> RepairReport:
        """Check, fix what differs from the archive, then check again (`recall check --repair`)."""
        found = check_consistency(self.data, self._embedder_name())
        if found.ok:
            return RepairReport(**msgspec.structs.asdict(_consistency(found)))
        kinds = {d.kind for d in found.differences}
        if "permissions" in kinds:
            tighten(self.data)
        # another vector space or no usable generation: rebuild everything
        whole = {"embedder", "generation"} & kinds
        fixed = self._ingestor().reindex() if whole else self._ingestor().repair(found.affected())
        after = _consistency(check_consistency(self.data, self._embedder_name()))
        return RepairReport(
            **msgspec.structs.asdict(after), found=_consistency(found).differences,
            repaired=Repaired(bool(whole), fixed.indexed, [r.path for r in fixed.rejected]))

    def retention(self, *, full_days: int | None = None, summary_days: int | None = None,
                  apply: bool = False, today: str | None = None) -> RetentionReport:
        """Which sessions the retention policy moves to a lighter tier and what that drops; with
        `apply`, do it. The policy comes from the arguments, else from the settings; with
        neither, retention is off and nothing is planned."""
        if full_days is None and summary_days is None:
            full_days = self.settings.retention_full_days
            summary_days = self.settings.retention_summary_days
        policy = RetentionPolicy(full_days, summary_days)
        as_of = date.fromisoformat(check_day(today)) if today else date.today()
        planned = plan_retention(self.data, policy, as_of)
        report = RetentionReport(
            enabled=policy.enabled, dry_run=not apply, full_days=policy.full_days,
            summary_days=policy.summary_days, as_of=as_of.isoformat(),
            sessions=[PlannedTrimOut(p.session_id, p.date, p.last_activity, p.tier, p.target,
                                     p.drops, p.messages, p.characters, p.summary_built)
                      for p in planned],
            messages_dropped=sum(p.messages for p in planned),
            characters_dropped=sum(p.characters for p in planned))
        if apply and planned:
            stamp = retention_now()

            def move(session: Session, memories: list[Memory]) -> Session | None:
                again = plan_session(session, policy, as_of)  # read afresh under the lock
                return trim(session, again.target, memories, stamp) if again else None

            moved = self._ingestor().rewrite([p.session_id for p in planned], move)
            report = msgspec.structs.replace(report, applied=moved.indexed)
        return report

    def cleanup(self, *, older_than: str | None = None, categories: Sequence[str] = (),
                channels: Sequence[str] = (), keep_snapshots: int | None = None,
                apply: bool = False, today: str | None = None) -> CleanupReport:
        """Sessions inactive longer than `older_than` (90d, 12w), optionally only of some
        categories or channels, and snapshots beyond the newest `keep_snapshots` of each
        session: what would go (ids, dates, last activity, what goes with each session), or
        with `apply`, gone."""
        # the messages name the options as both the CLI (--older-than) and HTTP (older_than) do
        if (categories or channels) and older_than is None:
            raise InvalidInput("category and channel choose sessions to delete: give an age too "
                               "(older-than, e.g. 90d)")
        if older_than is None and keep_snapshots is None:
            raise InvalidInput("nothing to clean up: give an age (older-than, e.g. 90d) or a "
                               "number of snapshots to keep (keep-snapshots)")
        for values in (categories, channels):
            if len(values) > MAX_FILTER_VALUES or any(
                    not isinstance(v, str) or not v.strip() or len(v) > 200 for v in values):
                raise InvalidInput(f"categories and channels are up to {MAX_FILTER_VALUES} names "
                                   "of 1 to 200 characters")
        days = parse_age(older_than) if older_than is not None else None
        as_of = date.fromisoformat(check_day(today)) if today else date.today()
        doomed = plan_deletions(self.data, days, as_of, categories=categories,
                                channels=channels) if days is not None else []
        pruned = plan_snapshots(self.data, keep_snapshots, [d.session_id for d in doomed]) \
            if keep_snapshots is not None else []
        report = CleanupReport(
            dry_run=not apply, as_of=as_of.isoformat(), older_than_days=days,
            categories=list(categories), channels=list(channels), keep_snapshots=keep_snapshots,
            sessions=[DoomedSessionOut(d.session_id, d.date, d.last_activity, d.category,
                                       d.channel, d.messages, d.snapshots, d.promoted_todos,
                                       d.linked_todos) for d in doomed],
            snapshots=[PrunedSnapshotsOut(p.session_id, p.deleted, p.kept) for p in pruned],
            totals=CleanupTotals(
                sessions=len(doomed), messages=sum(d.messages for d in doomed),
                snapshots=sum(d.snapshots for d in doomed) + sum(p.deleted for p in pruned),
                promoted_todos=sum(d.promoted_todos for d in doomed)))
        if apply:
            deleted = self._ingestor().delete_many({d.session_id: d.content_hash for d in doomed}) \
                if doomed else []
            store = SnapshotStore(self.data)
            snapshots = sum(store.keep_newest(p.session_id, p.kept) for p in pruned)
            report = msgspec.structs.replace(report, applied=CleanupApplied(
                deleted, [d.session_id for d in doomed if d.session_id not in deleted], snapshots))
        return report


def _consistency(r: CheckReport) -> ConsistencyReport:
    return ConsistencyReport(
        ok=r.ok, sessions=r.sessions, generation=r.generation,
        keyword_documents=r.keyword_documents, vector_passages=r.vector_passages,
        differences=[Difference(d.session_id, d.kind, d.detail) for d in r.differences])
