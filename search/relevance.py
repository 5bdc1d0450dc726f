"""Memory relevance as pure math: decay toward a floor over time, a boost on each use, and the
choice of what to prune past a maximum count. No I/O: indexer/stores/relevance.py keeps the state.

    decayed(r, days) = floor + (r - floor) * (1 - rate) ** days
    boosted(r)       = r + (1 - r) * boost

The decay is the knowledge engine's daily step `r * (1 - rate)`, applied to the part above the
floor and in continuous time: decaying 3 days and then 2 gives exactly the 5-day value, so the
value can be computed lazily from the time of the last write (no scheduled job), and writing it
down (`recall relevance decay`) never changes what a later read returns.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from models import InvalidInput

__all__ = ["DAY_SECONDS", "RelevancePolicy", "Scored", "is_memory_id", "lowest_first", "to_prune"]

DAY_SECONDS = 86_400.0


@dataclass(frozen=True, slots=True)
class RelevancePolicy:
    """rate: share of the distance above the floor lost per day (0 <= rate < 1);
    floor: the value a memory never decays below (0 <= floor < 1);
    boost: share of the distance up to 1 gained on each use (0 <= boost <= 1);
    max_memories: how many memories pruning keeps (None: no limit, nothing is pruned)."""

    rate: float = 0.05
    floor: float = 0.1
    boost: float = 0.5
    max_memories: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.rate < 1:
            raise InvalidInput(f"the relevance decay rate must be in [0, 1), not {self.rate}")
        if not 0 <= self.floor < 1:
            raise InvalidInput(f"the relevance floor must be in [0, 1), not {self.floor}")
        if not 0 <= self.boost <= 1:
            raise InvalidInput(f"the relevance boost must be in [0, 1], not {self.boost}")
        if self.max_memories is not None and self.max_memories < 0:
            raise InvalidInput(f"the maximum memory count must not be negative, not {self.max_memories}")

    def initial(self, confidence: float) -> float:
        """A new memory starts at the extractor's confidence in it (never below the floor)."""
        return min(1.0, max(self.floor, confidence))

    def decayed(self, relevance: float, days: float) -> float:
        """The relevance `days` after it was `relevance`; time running backwards (a clock
        change) decays nothing."""
        if days <= 0 or relevance <= self.floor:  # below: written under a lower floor
            return relevance
        # math.pow: the base is positive (rate < 1), and float ** float is typed Any (a negative
        # base would give a complex number)
        return self.floor + (relevance - self.floor) * math.pow(1.0 - self.rate, days)

    def boosted(self, relevance: float) -> float:
        return relevance + (1.0 - relevance) * self.boost

    def at(self, relevance: float, updated_at: float, now: float) -> float:
        """The value now of a relevance written at `updated_at` (epoch seconds); a value written
        below the floor (a new memory of low confidence, or a floor raised since) counts as the
        floor."""
        return self.decayed(max(relevance, self.floor), (now - updated_at) / DAY_SECONDS)


def is_memory_id(session_id: str, doc_id: str) -> bool:
    """Whether a document id is a memory id of that session (models/memory.py memory_id)."""
    return doc_id.startswith(f"{session_id}:mem:")


@dataclass(frozen=True, slots=True)
class Scored:
    """One memory's current standing, for ordering and pruning."""

    memory_id: str
    relevance: float
    last_accessed: float | None  # epoch seconds; None: never returned by a search or recovery


def lowest_first(items: Iterable[Scored]) -> list[Scored]:
    """Least relevant first; ties: never accessed before accessed, then longer ago, then id (so
    the order, and with it what pruning removes, is the same on every run)."""
    return sorted(items, key=lambda s: (s.relevance, s.last_accessed or 0.0, s.memory_id))


def to_prune(items: Sequence[Scored], max_memories: int | None) -> list[Scored]:
    """The memories to remove so that at most max_memories stay: the least relevant ones."""
    if max_memories is None or len(items) <= max_memories:
        return []
    return lowest_first(items)[: len(items) - max_memories]

