"""Records of recovery decisions, snapshot change reports and the options that steer them.

All are frozen msgspec Structs with snake_case keys (the CLI/API JSON style); the snapshot inside a
decision keeps its own camelCase wire shape. `msgspec.to_builtins(decision)` gives
`{"selected_snapshot": {...}, "confidence", "strategy", "reasons", "score", "parts",
"alternatives"}`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from models.errors import InvalidInput
from models.facts import TrackedFact
from models.snapshot import Snapshot

__all__ = [
    "Alternative",
    "ChangeKind",
    "ChangeReport",
    "FieldChange",
    "ItemChange",
    "RecoveryDecision",
    "RecoveryOptions",
    "RecoveryStrategy",
    "RecoveryWeights",
    "ScoreParts",
    "Severity",
    "recovery_options",
]

RecoveryStrategy = Literal[
    "full_restore",  # restore everything: intents, facts, tasks and context
    "partial_restore",  # restore the live items only (active facts, open tasks)
    "merge_current",  # restore, then merge with what the current context adds
    "summarize_only",  # the work is done or old: show a summary, restore nothing
    "confirm_first",  # not sure which snapshot (or whether any): ask the user first
]
Severity = Literal["none", "minor", "moderate", "major"]

# Bounds, checked when options are read from JSON (and documented in the OpenAPI schema):
# past them the arithmetic overflows (timedelta(days=1e9), weights summing to infinity).
MAX_WEIGHT = 1e6
MAX_HOURS = 24.0 * 365 * 100
MAX_DAYS = 365.0 * 100
Weight = Annotated[float, msgspec.Meta(ge=0, le=MAX_WEIGHT)]
Share = Annotated[float, msgspec.Meta(ge=0, le=1)]
Hours = Annotated[float, msgspec.Meta(gt=0, le=MAX_HOURS)]
Days = Annotated[float, msgspec.Meta(gt=0, le=MAX_DAYS)]
ChangeKind = Literal[
    "added", "removed", "modified", "fulfilled", "reopened", "deactivated", "reactivated",
    "completed", "cancelled", "status_changed",
]


class RecoveryWeights(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How much each score part counts; only their ratios matter (they are normalized)."""

    recency: Weight = 0.15
    completeness: Weight = 0.35
    relevance: Weight = 0.35
    freshness: Weight = 0.15

    def __post_init__(self) -> None:
        values = (self.recency, self.completeness, self.relevance, self.freshness)
        if any(v < 0 for v in values) or sum(values) <= 0:
            raise InvalidInput("recovery weights must be non-negative and not all zero")


class RecoveryOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Knobs of `search.recovery.recover`; the defaults are documented there."""

    weights: RecoveryWeights = RecoveryWeights()
    # Recency halves every half_life_hours behind the newest snapshot; snapshots more than
    # time_window_hours behind it are not considered at all (None: no window).
    half_life_hours: Hours = 24.0
    time_window_hours: Hours | None = 24.0 * 30
    # With a current context, how much completeness and freshness still count for a snapshot
    # that does not match it at all (they count fully at relevance 1).
    off_topic_share: Share = 0.3
    # Below this decision confidence the strategy is confirm_first.
    min_confidence: Share = 0.4
    # Intents and facts below this confidence count for nothing (guesses are not state).
    min_item_confidence: Share = 0.5
    # A best-vs-second score gap this large makes the margin part of the confidence full.
    decisive_margin: Annotated[float, msgspec.Meta(gt=0)] = 0.2
    # full_restore needs at least this freshness and (with a context) this relevance.
    full_restore_freshness: Share = 0.8
    full_restore_relevance: Share = 0.6
    # A snapshot with at least this share of its intents and tasks done (and no high or critical
    # task open) is only summarized.
    mostly_done_share: Share = 0.8
    # A selected snapshot older than this (relative to `now`) is only summarized.
    summarize_after_days: Days = 30.0
    # An open task untouched this long before its snapshot (or before `now`) is stale.
    stale_task_days: Days = 14.0

    def __post_init__(self) -> None:
        if self.half_life_hours <= 0:
            raise InvalidInput("half_life_hours must be positive")
        if self.time_window_hours is not None and self.time_window_hours <= 0:
            raise InvalidInput("time_window_hours must be positive (or None for no window)")
        for name in ("off_topic_share", "min_confidence", "min_item_confidence",
                     "mostly_done_share", "full_restore_freshness",
                     "full_restore_relevance"):
            if not 0 <= getattr(self, name) <= 1:
                raise InvalidInput(f"{name} must be between 0 and 1")
        if self.decisive_margin <= 0 or self.summarize_after_days <= 0 or self.stale_task_days <= 0:
            raise InvalidInput("decisive_margin, summarize_after_days and stale_task_days must be "
                               "positive")


class ScoreParts(msgspec.Struct, frozen=True):
    """The four parts of a snapshot's score, each from 0 to 1."""

    recency: float
    completeness: float
    relevance: float | None  # None: no current context, relevance did not count
    freshness: float


class Alternative(msgspec.Struct, frozen=True):
    """A snapshot that was considered and not selected (the caller holds the snapshots)."""

    snapshot_id: str
    created_at: str
    description: str
    score: float
    parts: ScoreParts
    reason: str


class RecoveryDecision(msgspec.Struct, frozen=True, rename={"selected": "selected_snapshot"}):
    """Which snapshot to resume from, how sure, why, and how to restore it."""

    selected: Snapshot
    confidence: float
    strategy: RecoveryStrategy
    reasons: tuple[str, ...]
    score: float
    parts: ScoreParts
    alternatives: tuple[Alternative, ...] = ()
    # facts the selected snapshot restores that a later statement superseded, each with what
    # replaced it (they count as no longer holding when snapshots are scored)
    superseded_facts: tuple[TrackedFact, ...] = ()


def recovery_options(values: dict[str, object] | None) -> RecoveryOptions:
    """Options from loose JSON (HTTP body, tool arguments, CLI flags), with a clear error."""
    if not values:
        return RecoveryOptions()
    if not isinstance(values, dict):
        raise InvalidInput("recovery options must be an object")
    try:
        return msgspec.convert(values, RecoveryOptions)
    except msgspec.ValidationError as exc:
        raise InvalidInput(f"bad recovery option: {exc}") from None


class FieldChange(msgspec.Struct, frozen=True):
    field: str  # status, priority, dueDate, description, statement, category, confidence
    before: str | None
    after: str | None


class ItemChange(msgspec.Struct, frozen=True, omit_defaults=True):
    """One intent, fact or task that differs between two snapshots."""

    kind: ChangeKind
    id: str  # the id in `after` (in `before` for removed items)
    text: str
    fields: tuple[FieldChange, ...] = ()
    # Set when paired by wording rather than by id: the item's id in `before`, and how alike.
    previous_id: str | None = None
    similarity: float | None = None


class ChangeReport(msgspec.Struct, frozen=True):
    """What changed from `before_id` to `after_id`, and how much that matters."""

    before_id: str
    after_id: str
    has_changes: bool
    severity: Severity
    intents: tuple[ItemChange, ...]
    facts: tuple[ItemChange, ...]
    tasks: tuple[ItemChange, ...]
    summary: str
    reasons: tuple[str, ...]  # why this severity
    recommendations: tuple[str, ...]
