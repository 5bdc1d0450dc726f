"""Cleanup: which sessions are older than an age (by last activity), optionally only those of
some categories or channels, and which snapshots fall outside the newest N of each session.

Planning writes nothing: the dry run shows the plan, and the real run deletes the planned
sessions through the normal delete path (archive, both indexes, memories, snapshots, promoted
todos) and prunes snapshots with SnapshotStore.keep_newest.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

import msgspec

from indexer.maintenance.retention import last_activity
from indexer.stores.layout import DataDir
from indexer.stores.snapshots import SnapshotStore
from indexer.stores.state import State
from indexer.stores.todos import TodoStore
from models import InvalidInput
from models.files import decode_session

__all__ = ["DoomedSession", "PrunedSnapshots", "parse_age", "plan_deletions", "plan_snapshots"]

_AGE = re.compile(r"^\s*(\d{1,6})\s*([dw]?)\s*$", re.IGNORECASE)
_MAX_DAYS = 365_000  # a thousand years: past any archive, inside what date arithmetic can hold


def parse_age(text: str) -> int:
    """An age in days from '90d', '12w' or '90' (days)."""
    match = _AGE.match(text) if isinstance(text, str) else None
    if not match:
        raise InvalidInput(f"cannot read age {text!r}: use days or weeks, e.g. 90d or 12w")
    days = int(match.group(1)) * (7 if match.group(2).lower() == "w" else 1)
    if days > _MAX_DAYS:
        raise InvalidInput(f"age {text!r} is too large (at most {_MAX_DAYS} days)")
    return days


@dataclass(frozen=True, slots=True)
class DoomedSession:
    session_id: str
    date: str
    last_activity: str
    category: str | None
    channel: str | None
    messages: int
    snapshots: int  # deleted with it
    promoted_todos: int  # deleted with it: their text came from the session
    linked_todos: int  # kept, their link to the session dropped
    content_hash: str  # the version planned: a session that changes meanwhile is not deleted


@dataclass(frozen=True, slots=True)
class PrunedSnapshots:
    session_id: str
    deleted: int
    kept: int


def plan_deletions(data: DataDir, older_than_days: int, today: date, *,
                   categories: Sequence[str] = (), channels: Sequence[str] = ()
                   ) -> list[DoomedSession]:
    """Sessions inactive for more than `older_than_days` days before `today`, oldest first;
    with categories or channels, only sessions in one of them (both: in one of each).
    Category and channel names match without regard to case."""
    if older_than_days < 0:
        raise InvalidInput("the age must not be negative")
    wanted_categories = {c.casefold() for c in categories}
    wanted_channels = {c.casefold() for c in channels}
    state = State(data.state_db)
    try:
        rows = list(state.sessions("indexed"))
    finally:
        state.close()
    snapshots = SnapshotStore(data)
    out = []
    for row in sorted(rows, key=lambda r: (r.date, r.session_id)):
        # a session's last activity is never before its date: the young ones need no reading
        if (today - date.fromisoformat(row.date)).days <= older_than_days:
            continue
        category = json.loads(row.meta).get("category")
        if wanted_categories and (category or "").casefold() not in wanted_categories:
            continue
        if wanted_channels and (row.channel or "").casefold() not in wanted_channels:
            continue
        try:
            session = decode_session((data.archive / row.archive_path).read_bytes())
        except (OSError, msgspec.DecodeError):
            continue  # `recall check` reports an unreadable archive file
        active = last_activity(session)
        if (today - date.fromisoformat(active[:10])).days <= older_than_days:
            continue
        out.append(DoomedSession(row.session_id, row.date, active, category, row.channel,
                                 row.message_count, _snapshot_count(snapshots, row.session_id),
                                 0, 0, row.content_hash))
    linked = TodoStore(data).linked([d.session_id for d in out]) if out else {}
    return [replace(d, promoted_todos=linked[d.session_id][0], linked_todos=linked[d.session_id][1])
            if d.session_id in linked else d for d in out]


def plan_snapshots(data: DataDir, keep: int, skip: Sequence[str] = ()) -> list[PrunedSnapshots]:
    """For every session with more than `keep` snapshots (except those in `skip`, which go
    whole), how many would be deleted."""
    if keep < 1:
        raise InvalidInput("keep-snapshots must be at least 1")
    store, skipped = SnapshotStore(data), set(skip)
    out = []
    for folder in sorted(store.root.iterdir()) if store.root.is_dir() else ():
        if not folder.is_dir() or folder.name in skipped:
            continue
        count = _snapshot_count(store, folder.name)
        if count > keep:
            out.append(PrunedSnapshots(folder.name, count - keep, keep))
    return out


def _snapshot_count(store: SnapshotStore, session_id: str) -> int:
    # the files SnapshotStore.list reads, without parsing them
    return sum(1 for _ in (store.root / session_id).glob("*.json"))
