"""Choosing the snapshot to resume from, and the strategy rules, in English and Chinese."""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec
import pytest

from indexer import HashEmbedder
from models.errors import InvalidInput, NotFound
from models.recovery import RecoveryOptions, RecoveryWeights
from search.recovery import recover

from .snapshot_data import (
    EN_A,
    EN_B,
    EN_C,
    T0,
    ZH_A,
    ZH_B,
    ZH_C,
    at,
    fact,
    intent,
    snap,
    soon_after,
    task,
)


@pytest.fixture(scope="module")
def embedder() -> HashEmbedder:
    return HashEmbedder()


# ---------------------------------------------------------------------------------------------
# choosing the snapshot


def test_no_snapshots_is_not_found() -> None:
    with pytest.raises(NotFound, match="no snapshots"):
        recover([])


def test_newest_is_best_when_it_is_the_fullest(embedder: HashEmbedder) -> None:
    decision = recover([EN_A, EN_B], "finish the uv migration and the Python 3.12 bump",
                       embedder=embedder, now=soon_after(EN_B))
    assert decision.selected.id == "en-b"
    assert decision.reasons[0] == "newest snapshot of 2"
    assert [a.snapshot_id for a in decision.alternatives] == ["en-a"]
    assert decision.alternatives[0].score < decision.score
    assert 0 < decision.confidence <= 1


def test_nearly_empty_newest_loses_to_an_older_full_snapshot(embedder: HashEmbedder) -> None:
    for context in ("继续写备份脚本，pg_dump每天凌晨3点跑", None):
        decision = recover([ZH_A, ZH_B, ZH_C], context, embedder=embedder, now=soon_after(ZH_C))
        assert decision.selected.id == "zh-b", context
        assert "older than the newest snapshot 'zh-c'" in decision.reasons[0]
        assert any("newest snapshot 'zh-c' is nearly empty" in r for r in decision.reasons)
        assert any("has 2 open intents, 4 active facts and 4 open tasks" in r
                   for r in decision.reasons)


def test_context_about_the_older_topic_beats_a_newer_unrelated_snapshot(
        embedder: HashEmbedder) -> None:
    decision = recover([EN_A, EN_B, EN_C], "Pick the uv migration back up and merge the PR",
                       embedder=embedder, now=soon_after(EN_C))
    assert decision.selected.id == "en-b"
    assert any("matches the current context" in r and "cos" in r for r in decision.reasons)
    newest = next(a for a in decision.alternatives if a.snapshot_id == "en-c")
    assert newest.parts.relevance == 0
    assert "about something else" in newest.reason


def test_context_about_the_newer_topic_picks_it(embedder: HashEmbedder) -> None:
    decision = recover([EN_A, EN_B, EN_C], "Why is test_sync_orders flaky in CI?",
                       embedder=embedder, now=soon_after(EN_C))
    assert decision.selected.id == "en-c"
    assert decision.parts.relevance == 1


def test_without_an_embedder_words_decide_relevance() -> None:
    decision = recover([ZH_A, ZH_B, EN_C], "小账本的备份脚本和pg_dump", now=soon_after(EN_C))
    assert decision.selected.id == "zh-b"
    assert any("holds" in r and "of its words" in r for r in decision.reasons)


def test_time_window_leaves_old_snapshots_out(embedder: HashEmbedder) -> None:
    options = RecoveryOptions(time_window_hours=48)
    decision = recover([EN_A, EN_B, EN_C], None, embedder=embedder, options=options,
                       now=soon_after(EN_C))
    assert decision.selected.id == "en-c"
    assert decision.alternatives == ()
    assert any("2 snapshot(s) more than 2 days older" in r for r in decision.reasons)


def test_equal_scores_go_to_the_newer_snapshot() -> None:
    later = msgspec.structs.replace(EN_A, id="en-a3", created_at=at(2))
    decision = recover([EN_A, later], None, options=RecoveryOptions(
        weights=RecoveryWeights(recency=0, completeness=1, relevance=0, freshness=0)))
    assert decision.selected.id == "en-a3"


def test_decision_is_json_friendly(embedder: HashEmbedder) -> None:
    decision = recover([EN_A, EN_B], "uv migration", embedder=embedder, now=soon_after(EN_B))
    out = msgspec.to_builtins(decision)
    assert set(out) == {"selected_snapshot", "confidence", "strategy", "reasons", "score",
                        "parts", "alternatives", "superseded_facts"}
    assert not out["superseded_facts"]  # nothing links these snapshots' facts
    assert out["selected_snapshot"]["id"] == "en-b"
    assert out["selected_snapshot"]["session_id"] == "session-1"
    assert out["selected_snapshot"]["tasks"][4]["due_date"] == "2026-03-20"
    assert set(out["alternatives"][0]) == {"snapshot_id", "created_at", "description", "score",
                                           "parts", "reason"}
    assert set(out["parts"]) == {"recency", "completeness", "relevance", "freshness"}
    assert msgspec.json.decode(msgspec.json.encode(decision))["strategy"] == decision.strategy


def test_a_bad_created_at_is_invalid_input() -> None:
    broken = msgspec.structs.replace(EN_A, created_at="last tuesday")
    with pytest.raises(InvalidInput, match="snapshot 'en-a' has an invalid createdAt"):
        recover([broken, EN_B])


def test_a_naive_now_is_taken_as_utc() -> None:
    decision = recover([EN_B], None, now=datetime(2026, 3, 10, 14, 0))  # 22:00 at +08:00
    assert decision.strategy == "full_restore"


def test_bad_options_are_rejected() -> None:
    with pytest.raises(InvalidInput):
        RecoveryWeights(recency=-1)
    with pytest.raises(InvalidInput):
        RecoveryWeights(recency=0, completeness=0, relevance=0, freshness=0)
    with pytest.raises(InvalidInput):
        RecoveryOptions(min_confidence=1.5)
    with pytest.raises(InvalidInput):
        RecoveryOptions(half_life_hours=0)


# ---------------------------------------------------------------------------------------------
# strategy rules, one test each


def test_rule_confirm_first_when_the_snapshot_is_empty() -> None:
    empty = snap("empty", 0, "会话结束时的空快照")
    decision = recover([empty], "继续")
    assert decision.strategy == "confirm_first"
    assert "nothing to restore" in decision.reasons[-1]


def test_rule_confirm_first_when_too_close_to_call() -> None:
    twin = msgspec.structs.replace(EN_A, id="en-a-copy")
    decision = recover([EN_A, twin], None, now=soon_after(EN_A))
    assert decision.confidence < 0.4
    assert decision.strategy == "confirm_first"
    assert "is below 0.40" in decision.reasons[-1]


def test_rule_confirm_first_when_the_context_matches_nothing(embedder: HashEmbedder) -> None:
    decision = recover([EN_A, EN_B], "bake sourdough bread with rye flour", embedder=embedder,
                       now=soon_after(EN_B))
    assert decision.strategy == "confirm_first"
    assert any("matches none of the snapshots" in r for r in decision.reasons)


def test_rule_summarize_only_when_everything_is_done(embedder: HashEmbedder) -> None:
    dinner = snap("dinner", 0, "晚饭吃什么",
                  intents=(intent("d-i1", "决定今晚做什么菜", fulfilled=True),),
                  facts=(fact("d-f1", "家里有鸡蛋、西红柿、豆腐"),),
                  tasks=(task("d-t1", "做番茄炒蛋和家常豆腐", "completed", "low"),),
                  context="晓雯加班，Simon和朵朵在家吃番茄炒蛋和家常豆腐。")
    decision = recover([dinner], "那天晚上吃的番茄炒蛋怎么做？", embedder=embedder,
                       now=soon_after(dinner))
    assert decision.strategy == "summarize_only"
    assert "nothing is left open" in decision.reasons[-1]


def test_rule_summarize_only_when_mostly_done() -> None:
    mostly = snap("mostly", 0, "Release 1.4 wrap-up",
                  intents=(intent("m-i1", "Ship release 1.4", fulfilled=True),),
                  tasks=(*(task(f"m-t{n}", f"Release step {n}", "completed") for n in range(4)),
                         task("m-t9", "Tidy the changelog wording", priority="low")))
    decision = recover([mostly], None, now=soon_after(mostly))
    assert decision.strategy == "summarize_only"
    assert "5 of 6 intents and tasks are done" in decision.reasons[-1]


def test_rule_summarize_only_when_old() -> None:
    decision = recover([EN_B], None, now=T0 + timedelta(days=90))
    assert decision.strategy == "summarize_only"
    assert "days old" in decision.reasons[-1]


def test_rule_merge_current_when_the_context_adds_an_intent(embedder: HashEmbedder) -> None:
    context = ("Continue the order-sync migration from poetry to uv. "
               "Also plan the team dinner on Friday.")
    decision = recover([EN_B], context, embedder=embedder, now=soon_after(EN_B))
    assert decision.strategy == "merge_current"
    assert '"Also plan the team dinner on Friday."' in decision.reasons[-1]


def test_rule_full_restore_when_open_fresh_and_relevant(embedder: HashEmbedder) -> None:
    decision = recover([EN_A, EN_B], "Continue the order-sync migration from poetry to uv",
                       embedder=embedder, now=soon_after(EN_B))
    assert decision.strategy == "full_restore"
    assert "restore it all" in decision.reasons[-1]


def test_rule_partial_restore_when_part_is_stale(embedder: HashEmbedder) -> None:
    # Resumed the day after the launch date: the dated tasks are overdue.
    decision = recover([ZH_A, ZH_B], "继续写备份脚本，pg_dump每天凌晨3点跑", embedder=embedder,
                       now=datetime.fromisoformat("2026-03-21T09:00:00+08:00"))
    assert decision.selected.id == "zh-b"
    assert decision.strategy == "partial_restore"
    assert "3 open task(s) past their due date" in decision.reasons[-1]
