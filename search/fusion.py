"""Rank fusion: pure functions over ranked id lists (best first)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

__all__ = ["RRF_K", "reciprocal_rank_fusion"]

RRF_K = 60
Id = TypeVar("Id", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Id]],
    weights: Sequence[float] | None = None,
    k: int = RRF_K,
) -> list[tuple[Id, float]]:
    """Weighted reciprocal rank fusion: score(id) = sum_i w_i / (k + rank_i(id)), rank from 1.

    Duplicates inside one list count once (their best rank). Ties keep the order in which ids
    were first seen, scanning lists in order, so results are deterministic.
    """
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    if k < 0:
        raise ValueError("k must be non-negative")
    scores: dict[Id, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        seen: set[Id] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
