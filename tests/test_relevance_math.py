"""Relevance math on hand-made values: decay toward the floor, boost, pruning order."""

from __future__ import annotations

import pytest

from models import InvalidInput
from search.relevance import (
    DAY_SECONDS,
    RelevancePolicy,
    Scored,
    is_memory_id,
    lowest_first,
    to_prune,
)

POLICY = RelevancePolicy(rate=0.5, floor=0.1, boost=0.5)


def test_decay_halves_the_height_above_the_floor_each_day_at_rate_one_half() -> None:
    assert POLICY.decayed(0.9, 1) == pytest.approx(0.5)
    assert POLICY.decayed(0.9, 2) == pytest.approx(0.3)
    assert POLICY.decayed(0.9, 0.5) == pytest.approx(0.1 + 0.8 * 0.5 ** 0.5)
    assert POLICY.decayed(0.9, 1000) == pytest.approx(0.1)
    assert POLICY.decayed(0.9, 1000) >= 0.1


def test_decay_composes_so_it_can_be_computed_lazily() -> None:
    policy = RelevancePolicy(rate=0.05, floor=0.1)
    assert policy.decayed(policy.decayed(0.83, 3), 2.5) == pytest.approx(policy.decayed(0.83, 5.5))


def test_no_decay_without_time_or_below_the_floor() -> None:
    assert POLICY.decayed(0.9, 0) == 0.9
    assert POLICY.decayed(0.9, -3) == 0.9  # a clock set back decays nothing
    assert POLICY.decayed(0.05, 10) == 0.05
    assert RelevancePolicy(rate=0, floor=0.1).decayed(0.7, 30) == 0.7


def test_at_reads_epoch_seconds_and_lifts_values_below_the_floor() -> None:
    assert POLICY.at(0.9, 1000.0, 1000.0 + DAY_SECONDS) == pytest.approx(0.5)
    assert POLICY.at(0.05, 0.0, 0.0) == 0.1


def test_boost_moves_a_share_of_the_way_up_to_one() -> None:
    assert POLICY.boosted(0.4) == pytest.approx(0.7)
    assert POLICY.boosted(1.0) == 1.0
    assert RelevancePolicy(boost=0).boosted(0.4) == 0.4
    assert RelevancePolicy(boost=1).boosted(0.4) == 1.0


def test_initial_relevance_is_the_confidence_within_floor_and_one() -> None:
    assert POLICY.initial(0.8) == 0.8
    assert POLICY.initial(0.02) == 0.1
    assert POLICY.initial(1.7) == 1.0


@pytest.mark.parametrize("values", [
    {"rate": 1.0}, {"rate": -0.1}, {"floor": 1.0}, {"floor": -0.5}, {"boost": 1.5},
    {"boost": -0.1}, {"max_memories": -1},
])
def test_bad_policies_are_refused(values: dict[str, float]) -> None:
    with pytest.raises(InvalidInput, match=r"relevance|memory count"):
        RelevancePolicy(**values)  # type: ignore[arg-type]


def test_lowest_first_breaks_ties_by_last_use_then_id() -> None:
    items = [Scored("b", 0.5, 200.0), Scored("a", 0.5, 200.0), Scored("c", 0.5, None),
             Scored("d", 0.5, 100.0), Scored("e", 0.2, 900.0), Scored("f", 0.9, None)]
    assert [s.memory_id for s in lowest_first(items)] == ["e", "c", "d", "a", "b", "f"]
    assert lowest_first([]) == []


def test_to_prune_removes_the_least_relevant_past_the_maximum() -> None:
    items = [Scored("a", 0.9, None), Scored("b", 0.1, None), Scored("c", 0.5, 10.0)]
    assert to_prune(items, None) == []
    assert to_prune(items, 3) == [] and to_prune(items, 5) == []
    assert [s.memory_id for s in to_prune(items, 2)] == ["b"]
    assert [s.memory_id for s in to_prune(items, 0)] == ["b", "c", "a"]
    assert to_prune([], 0) == []


def test_memory_ids_are_recognized_by_their_session_prefix() -> None:
    assert is_memory_id("s1", "s1:mem:0123456789ab")
    assert not is_memory_id("s1", "m-7")
    assert not is_memory_id("s1", "s10:mem:0123456789ab")
