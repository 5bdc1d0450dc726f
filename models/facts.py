"""Statements with their supersession status: what stands now, and what it replaced."""

from __future__ import annotations

from typing import Literal, get_args

import msgspec

__all__ = ["FACT_STATUSES", "FactRef", "FactStatus", "TrackedFact"]

FactStatus = Literal["current", "superseded"]
FACT_STATUSES: tuple[str, ...] = get_args(FactStatus)


class FactRef(msgspec.Struct, frozen=True):
    """Another statement of the same chain: which, from which session and day, saying what."""

    id: str
    session_id: str
    date: str
    text: str


class TrackedFact(msgspec.Struct, frozen=True, omit_defaults=True):
    """A statement whose value can change (a decision, a value, a preference), marked current
    or superseded; `reason` and `confidence` say why it was superseded, when it was. In a
    subject's history, `maybe_superseded_by` names a later statement linked too unsure to mark
    it superseded (it stays current; `reason` and `confidence` are that link's)."""

    id: str
    session_id: str
    type: str
    text: str
    valid_from: str  # the day it was said
    status: FactStatus
    kind: str | None = None
    superseded_by: FactRef | None = None
    supersedes: tuple[FactRef, ...] = ()
    reason: str | None = None
    confidence: float | None = None
    maybe_superseded_by: FactRef | None = None
