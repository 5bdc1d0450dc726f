"""`recall cleanup`: delete sessions inactive longer than an age (by category or channel), and
keep only the newest N snapshots of every session. A dry run unless asked to apply."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from indexer.maintenance.cleanup import parse_age, plan_deletions, plan_snapshots
from indexer.stores.snapshots import SnapshotStore
from models import InvalidInput
from search.dates import check_day

if TYPE_CHECKING:
    from api.service.core import RecallService

__all__ = ["MAX_FILTER_VALUES", "cleanup"]

MAX_FILTER_VALUES = 50


def cleanup(service: RecallService, *, older_than: str | None = None,
            categories: Sequence[str] = (), channels: Sequence[str] = (),
            keep_snapshots: int | None = None, apply: bool = False,
            today: str | None = None) -> dict[str, Any]:
    """What the cleanup deletes (ids, dates, last activity, category, channel, what goes with
    each session) and, with `apply`, the result of doing it."""
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
    doomed = plan_deletions(service.data, days, as_of, categories=categories,
                            channels=channels) if days is not None else []
    pruned = plan_snapshots(service.data, keep_snapshots, [d.session_id for d in doomed]) \
        if keep_snapshots is not None else []
    out: dict[str, Any] = {
        "dry_run": not apply, "as_of": as_of.isoformat(), "older_than_days": days,
        "categories": list(categories), "channels": list(channels),
        "keep_snapshots": keep_snapshots,
        "sessions": [d.to_dict() for d in doomed],
        "snapshots": [{"session_id": p.session_id, "deleted": p.deleted, "kept": p.kept}
                      for p in pruned],
        "totals": {"sessions": len(doomed), "messages": sum(d.messages for d in doomed),
                   "snapshots": sum(d.snapshots for d in doomed) + sum(p.deleted for p in pruned),
                   "promoted_todos": sum(d.promoted_todos for d in doomed)},
    }
    if apply:
        deleted = service.ingestor().delete_many({d.session_id: d.content_hash for d in doomed}) \
            if doomed else []
        store = SnapshotStore(service.data)
        snapshots = sum(store.keep_newest(p.session_id, keep_snapshots)  # type: ignore[arg-type]
                        for p in pruned)
        out["applied"] = {"sessions": deleted,
                          "skipped": [d.session_id for d in doomed if d.session_id not in deleted],
                          "snapshots_pruned": snapshots}
    return out
