"""The learned session ranker: its features, its model file, its floors, the order by date for
questions about now or about the start; and the cues of those questions."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from indexer.text.analysis import analyze_query
from search.candidates import Candidate
from search.query_intent import asks_for_history, asks_for_latest
from search.ranker import (
    ANSWER_FEATURES,
    DEFAULT_MODEL,
    FEATURES,
    QueryContext,
    Ranker,
    coverage,
    learned_ranker,
    query_term_list,
    session_features,
)

E5 = "intfloat/multilingual-e5-small"


def _model(path: Path, **changes: object) -> Path:
    # answerability: only the best session's probability counts, as its logit
    answer_weights = [1.0] + [0.0] * (len(ANSWER_FEATURES) - 1 + len(FEATURES))
    data = {"format": 2, "version": "test", "embedders": [E5], "features": list(FEATURES),
            "weights": [0.0] * len(FEATURES), "bias": 0.0, "answer_weights": answer_weights,
            "answer_bias": 0.0, "candidates": 30,
            "floors": {"learned": {"answer": 0.2, "keep": 0.0},
                       "strict": {"answer": 0.3, "keep": 0.1}}} | changes
    path.write_text(json.dumps(data))
    return path


def _row(rows: list[list[float]], i: int) -> dict[str, float]:
    return dict(zip(FEATURES, rows[i], strict=True))


def test_the_shipped_model_loads_for_the_default_embedder() -> None:
    ranker = Ranker.load(DEFAULT_MODEL)
    assert ranker is not None and ranker.applies_to(E5) and not ranker.applies_to("hash")
    assert "learned" not in ranker.floors  # the default shows every candidate
    assert 0 < ranker.floors["strict"][0] < 1 and 0 <= ranker.floors["strict"][1] < 1
    # what scripts/train_ranker.py learned: the query's rare words found in a session are
    # evidence, both that it is relevant and that the archive answers the question at all
    weights = dict(zip(FEATURES, ranker.weights, strict=True))
    answer_weights = dict(zip((*ANSWER_FEATURES, *FEATURES), ranker.answer_weights, strict=True))
    assert weights["coverage"] > 0 and answer_weights["coverage"] > 0


@pytest.mark.parametrize(("changes", "reason"), [
    ({"features": ["score"]}, "other features"),
    ({"format": 1}, "other features"),
    ({"answer_weights": [1.0]}, "weights"),
    ({"weights": [1.0]}, "1 weights"),
])
def test_a_model_for_other_features_is_not_used(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                changes: dict, reason: str) -> None:
    with caplog.at_level(logging.WARNING):
        assert Ranker.load(_model(tmp_path / "m.json", **changes)) is None
    assert reason in caplog.text and "not used" in caplog.text


def test_a_missing_or_damaged_model_leaves_ranking_to_fusion(tmp_path: Path,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    assert Ranker.load(tmp_path / "absent.json") is None
    (tmp_path / "bad.json").write_text("{not json")
    with caplog.at_level(logging.WARNING):
        assert Ranker.load(tmp_path / "bad.json") is None
    assert "bad.json" in caplog.text


def test_floors_drop_weak_sessions_and_answer_nothing_below_the_answer_floor(tmp_path: Path) -> None:
    ranker = Ranker.load(_model(tmp_path / "m.json"))
    assert ranker is not None
    strict = ranker.with_floors("strict")
    rows = [[0.0] * len(FEATURES)] * 4
    assert strict.kept([0.05, 0.7, 0.2, 0.7], rows) == [1, 3, 2]  # most probable first, ties in order
    # answerability here is sigmoid(logit(best)) = best: under 0.3, nothing
    assert strict.kept([0.25, 0.2], rows[:2]) == []
    assert ranker.with_floors("learned").kept([0.25, 0.01], rows[:2]) == [0, 1]
    assert ranker.kept([0.01], rows[:1]) == [0]  # loaded without a mode: no floors
    assert ranker.answerable([0.8, 0.1], rows[:2]) == pytest.approx(0.8)


def test_near_the_top_a_question_about_now_gets_the_newest_and_one_about_the_start_the_oldest(
        tmp_path: Path) -> None:
    ranker = Ranker.load(_model(tmp_path / "m.json"))
    assert ranker is not None and (ranker.latest_near_top, ranker.history_near_top) == (0.4, 0.2)
    recency = FEATURES.index("recency")
    days = [0.5, 1.0, 0.0, 0.8]  # 1 newest ... 0 oldest of the sessions ranked
    rows = [[d if n == recency else 0.0 for n in range(len(FEATURES))] for d in days]
    probabilities = [0.9, 0.5, 0.3, 0.1]
    assert ranker.kept(probabilities, rows) == [0, 1, 2, 3]
    # 0.5 is within 0.4 of the best (0.9 * 0.4 = 0.36), 0.3 and 0.1 are not
    assert ranker.kept(probabilities, rows, "latest") == [1, 0, 2, 3]
    # 0.9 * 0.2 = 0.18: the three best are ordered oldest first
    assert ranker.kept(probabilities, rows, "history") == [2, 0, 1, 3]
    assert ranker.kept(probabilities, rows, "other") == [0, 1, 2, 3]


def test_modes_choose_floors_or_fusion(tmp_path: Path) -> None:
    path = _model(tmp_path / "m.json")
    assert learned_ranker("fused", path) is None
    strict, learned = learned_ranker("strict", path), learned_ranker("learned", path)
    assert strict is not None and (strict.answer_floor, strict.keep_floor) == (0.3, 0.1)
    assert learned is not None and (learned.answer_floor, learned.keep_floor) == (0.2, 0.0)
    assert learned_ranker("learned", tmp_path / "absent.json") is None


def test_probabilities_follow_the_weights(tmp_path: Path) -> None:
    weights = [0.0] * len(FEATURES)
    weights[FEATURES.index("coverage")] = 4.0
    ranker = Ranker.load(_model(tmp_path / "m.json", weights=weights, bias=-2.0))
    assert ranker is not None
    row_full, row_none = [0.0] * len(FEATURES), [0.0] * len(FEATURES)
    row_full[FEATURES.index("coverage")] = 1.0
    high, low = ranker.probabilities([row_full, row_none]).tolist()
    assert high == pytest.approx(1 / (1 + 2.718281828 ** -2)) and low < 0.2


def _candidate(number: int, session: int, fused: float, **kw: object) -> Candidate:
    c = Candidate(number, session, fused=fused)
    for name, value in kw.items():
        setattr(c, name, value)
    return c


def test_session_features_describe_the_evidence() -> None:
    terms = analyze_query("restic retention policy")
    weights = {t: 1.0 for t in query_term_list(terms)}
    context = QueryContext(asks_latest=True, words_known=True, term_weights=weights)
    keyword_session = [_candidate(1, 10, 0.2, keyword=8.0, keyword_rank=1),
                       _candidate(2, 10, 0.1, keyword=4.0, keyword_rank=2)]
    vector_session = [_candidate(3, 11, 0.05, other_margin=0.03)]
    rows = session_features([keyword_session, vector_session], [20260301, 20260410],
                            ["restic keeps 7 daily snapshots: our retention policy", "备份"],
                            context)
    first, second = _row(rows, 0), _row(rows, 1)
    assert first["keyword"] == 1.0 and first["keyword_inverse_rank"] == 1.0
    assert first["coverage"] == 1.0 and second["coverage"] == 0.0
    assert second["other_found"] == 1.0 and second["other_margin"] == pytest.approx(0.3)
    assert first["inverse_rank"] == 1.0 and second["inverse_rank"] == 0.5
    # the newer session is the more recent one, and it counts for a latest-state question
    assert second["recency"] == 1.0 and first["recency"] == 0.0
    assert second["latest_recency"] == 1.0
    plain = session_features([keyword_session, vector_session], [20260301, 20260410], ["", ""],
                             QueryContext(asks_latest=False, words_known=True))
    assert _row(plain, 1)["latest_recency"] == 0.0


def test_rare_and_missing_words_weigh_more() -> None:
    terms = analyze_query("terraform backup")
    context = QueryContext.of("terraform backup", terms, {"terraform": 0, "backup": 50}, 100,
                              words_known=True)
    assert context.term_weights["terraform"] > context.term_weights["backup"]
    assert context.missing > 0.5  # most of the query's weight is a word no message holds
    assert coverage("the nightly backup ran", context.term_weights) < 0.5


@pytest.mark.parametrize("query", [
    "current restic retention policy", "where do the NAS backups go now, still B2?",
    "what's the latest plan", "NAS 备份现在每天几点跑", "目前的预算是多少", "最后决定用什么数据库",
])
def test_latest_state_questions_are_recognized(query: str) -> None:
    assert asks_for_latest(query)


@pytest.mark.parametrize("query", [
    "which dentist did I book", "restic retention policy", "去日本看樱花的旅行安排", "knowledge graph",
])
def test_other_questions_are_not(query: str) -> None:
    assert not asks_for_latest(query)


@pytest.mark.parametrize("query", [
    "What did we first decide about Friday deploys?", "the original Sentry sample rate",
    "What time was the standup before it moved to 10:30?", "NAS 备份最开始定的是几点跑？",
    "年糕的绝育原来约的是哪天？", "周报以前最多能写几条？",
])
def test_questions_about_how_things_stood_at_first_are_recognized(query: str) -> None:
    assert asks_for_history(query)


@pytest.mark.parametrize("query", [
    "timezonefinder first trackpoint", "我之前说过回复里不要用什么格式？", "what is the budget now",
    "what did I say about ruff",
])
def test_other_questions_are_not_about_the_start(query: str) -> None:
    assert not asks_for_history(query)
