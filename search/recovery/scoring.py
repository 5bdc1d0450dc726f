"""The four parts of a snapshot's recovery score: recency, completeness, relevance, freshness.

The rules are documented in search/recovery/choose.py, which combines them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from models.recovery import RecoveryOptions, ScoreParts
from models.snapshot import Snapshot, Task, to_datetime
from models.tokens import estimate_tokens
from search.recovery.context_match import ContextMatch

__all__ = ["NEARLY_EMPTY", "Scored", "completeness", "freshness", "score_snapshot",
           "untouched_since"]

NEARLY_EMPTY = 0.2  # completeness below this reads as "nearly empty"
_TASK_AMOUNT = {"pending": 1.0, "in_progress": 1.0, "blocked": 1.0, "completed": 0.5,
                "cancelled": 0.25}


@dataclass
class Scored:
    snapshot: Snapshot
    time: datetime
    parts: ScoreParts
    score: float


def score_snapshot(snapshot: Snapshot, time: datetime, newest_time: datetime,
                   match: ContextMatch | None, options: RecoveryOptions) -> Scored:
    """Score one snapshot taken at `time`; see search/recovery/choose.py for the rules."""
    recency = 0.5 ** ((newest_time - time).total_seconds() / 3600 / options.half_life_hours)
    full = completeness(snapshot, options)
    fresh = freshness(snapshot, time, options)
    relevance = match.relevance[snapshot.id] if match else None
    w = options.weights
    # With a context, state about something else is of little use: completeness and freshness
    # count in proportion to relevance, down to off_topic_share for an unrelated snapshot.
    gate = 1.0 if relevance is None else (
        options.off_topic_share + (1 - options.off_topic_share) * relevance)
    pairs = [(w.recency, recency), (w.completeness, full * gate), (w.freshness, fresh * gate)]
    if relevance is not None:
        pairs.append((w.relevance, relevance))
    total = sum(weight for weight, _ in pairs)
    score = sum(weight * value for weight, value in pairs) / total if total else 0.0
    parts = ScoreParts(recency=round(recency, 4), completeness=round(full, 4),
                       relevance=None if relevance is None else round(relevance, 4),
                       freshness=round(fresh, 4))
    return Scored(snapshot, time, parts, score)


def _saturate(amount: float, k: float) -> float:
    return 1.0 - math.exp(-amount / k)


def completeness(s: Snapshot, options: RecoveryOptions) -> float:
    """How much state the snapshot holds, 0..1, with diminishing returns per kind of item."""
    floor = options.min_item_confidence
    intents = sum(i.confidence * (0.5 if i.fulfilled else 1.0)
                  for i in s.intents if i.confidence >= floor)
    facts = sum(f.confidence * (1.0 if f.active else 0.25)
                for f in s.facts if f.confidence >= floor)
    tasks = sum(_TASK_AMOUNT[t.status] for t in s.tasks)
    context = estimate_tokens(s.context) if s.context.strip() else 0
    return (0.25 * _saturate(intents, 1.5) + 0.35 * _saturate(facts, 3.0)
            + 0.30 * _saturate(tasks, 2.5) + 0.10 * _saturate(context, 60.0))


def freshness(s: Snapshot, time: datetime, options: RecoveryOptions) -> float:
    """Share of the snapshot's items still live when it was taken (0 for an empty snapshot)."""
    floor = options.min_item_confidence
    intents = [i for i in s.intents if i.confidence >= floor]
    facts = [f for f in s.facts if f.confidence >= floor]
    total = len(intents) + len(facts) + len(s.tasks)
    if not total:
        return 0.0
    stale_before = time - timedelta(days=options.stale_task_days)
    live = (sum(not i.fulfilled for i in intents) + sum(f.active for f in facts)
            + sum(t.is_open and not untouched_since(t, stale_before) for t in s.tasks))
    return live / total


def untouched_since(task: Task, cutoff: datetime) -> bool:
    """True when the task was last updated before cutoff."""
    try:
        return to_datetime(task.updated_at) < cutoff
    except ValueError:
        return False
