from __future__ import annotations

import pytest

from search import reciprocal_rank_fusion


def test_rrf_rewards_agreement() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "c", "a"]], k=60)
    assert [item for item, _ in fused] == ["b", "a", "c"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)


def test_rrf_empty_inputs() -> None:
    assert reciprocal_rank_fusion([]) == []
    assert reciprocal_rank_fusion([[], []]) == []
    assert reciprocal_rank_fusion([["a"], []]) == [("a", pytest.approx(1 / 61))]


def test_rrf_ties_keep_first_seen_order() -> None:
    fused = reciprocal_rank_fusion([["x", "y"], ["y", "x"]])
    assert [item for item, _ in fused] == ["x", "y"]
    assert fused[0][1] == fused[1][1]


def test_rrf_weights_and_zero_weight() -> None:
    fused = reciprocal_rank_fusion([["a", "b"], ["b", "a"]], weights=[1.0, 0.0])
    assert [item for item, _ in fused] == ["a", "b"]
    assert reciprocal_rank_fusion([["a"], ["b"]], weights=[1, 2])[0][0] == "b"


def test_rrf_duplicates_in_one_list_count_once() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "a", "b"]]))
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 63)


def test_rrf_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], weights=[1, 2])
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], k=-1)
