"""Snapshots, recovery decisions, change detection and compression, in English and Chinese."""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec
import pytest

from indexer import HashEmbedder
from models.errors import InvalidInput, NotFound, UnsafeSessionId
from models.recovery import RecoveryOptions, RecoveryWeights
from models.snapshot import Fact, Intent, Snapshot, Task, parse_snapshot, snapshot_tokens
from search.recovery import compress, detect_changes, recover

T0 = datetime.fromisoformat("2026-03-10T21:00:00+08:00")


def at(hours: float) -> str:
    return (T0 + timedelta(hours=hours)).isoformat()


def intent(id: str, text: str, *, fulfilled: bool = False, confidence: float = 0.9) -> Intent:
    return Intent(id=id, description=text, confidence=confidence, fulfilled=fulfilled,
                  created_at=at(0))


def fact(id: str, text: str, category: str = "context", *, active: bool = True,
         confidence: float = 0.9) -> Fact:
    return Fact(id=id, statement=text, category=category, confidence=confidence, active=active,
                created_at=at(0))


def task(id: str, text: str, status: str = "pending", priority: str = "medium", *,
         due: str | None = None, intents: tuple[str, ...] = (),
         depends: tuple[str, ...] = ()) -> Task:
    return Task(id=id, description=text, status=status, priority=priority,
                related_intent_ids=intents, dependencies=depends, due_date=due,
                created_at=at(0), updated_at=at(0))


def snap(id: str, hours: float, description: str = "", *, intents: tuple[Intent, ...] = (),
         facts: tuple[Fact, ...] = (), tasks: tuple[Task, ...] = (), context: str = "",
         session: str = "session-1") -> Snapshot:
    return Snapshot(id=id, session_id=session, created_at=at(hours), description=description,
                    intents=intents, facts=facts, tasks=tasks, context=context)


# An English session: a migration started (a), planned in full (b), then an unrelated follow-up (c).
EN_A = snap(
    "en-a", 0, "uv migration started, resolver error",
    intents=(intent("a-i1", "Migrate order-sync from poetry to uv"),),
    facts=(fact("a-f1", "One PR with two commits: uv first, Python bump second", "decision"),),
    tasks=(task("a-t1", "Fix uv lock failure (respx pins httpx<0.28)", "in_progress", "high"),),
    context="uv lock fails because respx requires httpx<0.28.",
)
EN_B = snap(
    "en-b", 1, "uv migration nearly done: lock green, ruff and mypy decided, deadline known",
    intents=(intent("b-i1", "Migrate order-sync from poetry to uv"),
             intent("b-i2", "Bump Python 3.11 to 3.12"),
             intent("b-i3", "Modernise lint and type-check config")),
    facts=(fact("b-f1", "One PR with two commits: uv first, Python bump second", "decision"),
           fact("b-f2", "Ruff rules E, F, I, B, UP; no SIM", "decision"),
           fact("b-f3", "Merge by February 6; code freeze February 9", "constraint"),
           fact("b-f4", "One-line conventional commit messages", "preference")),
    tasks=(task("b-t1", "Bump respx to 0.22 and relock", "completed", "high", intents=("b-i1",)),
           task("b-t2", "Move ruff settings to tool.ruff.lint", "in_progress", intents=("b-i3",)),
           task("b-t3", "Revoke the leaked GitHub token", "pending", "critical"),
           task("b-t4", "Update the Dockerfile to python:3.12-slim", depends=("b-t1",)),
           task("b-t5", "Merge the PR before the freeze", "pending", "high", due="2026-03-20",
                intents=("b-i1", "b-i2"), depends=("b-t2", "b-t4"))),
    context="Lock fixed by bumping respx. Ruff moved to the lint section. Dockerfile remains.",
)
EN_C = snap(
    "en-c", 5 * 24, "Follow-up chat about a failing test, unrelated to the migration",
    intents=(intent("c-i1", "Ask about a flaky test in CI", confidence=0.5),),
    tasks=(task("c-t1", "Look at flaky test_sync_orders", priority="low"),),
    context="Short question about a flaky test.",
)

# A Chinese session: launch preparation (a), the full plan (b), a nearly empty autosave (c).
ZH_A = snap(
    "zh-a", 0, "小账本上线准备：HTTPS和配置检查", session="会话-2",
    intents=(intent("za-i1", "小账本正式上线给家里用"),),
    facts=(fact("za-f1", "域名ledger.simonlab.cn，已ICP备案"),
           fact("za-f2", "用Caddy做HTTPS反向代理", "decision")),
    tasks=(task("za-t1", "把config.yaml里的明文密码改成环境变量", priority="high"),),
    context="Postgres在docker compose中运行，发现config.yaml有明文密码。",
)
ZH_B = snap(
    "zh-b", 0.5, "上线计划完整：日期、备份、任务优先级", session="会话-2",
    intents=(intent("zb-i1", "小账本正式上线给家里用"), intent("zb-i2", "建立可靠的数据库备份")),
    facts=(fact("zb-f1", "域名ledger.simonlab.cn，已ICP备案"),
           fact("zb-f2", "用Caddy做HTTPS反向代理，挂载caddy_data卷", "decision"),
           fact("zb-f3", "决定3月20日上线", "decision"),
           fact("zb-f4", "每天凌晨3点pg_dump，保留30天", "decision")),
    tasks=(task("zb-t1", "写备份脚本并用pg_restore验证一次", "in_progress", "high",
                due="2026-03-20"),
           task("zb-t2", "改数据库密码并改成环境变量", due="2026-03-20"),
           task("zb-t3", "给晓雯开账号", due="2026-03-20"),
           task("zb-t4", "导入2025全年CSV", priority="low")),
    context=("上线定在3月20日。备份优先级最高：cron 3点pg_dump，保留30天。"
             "其他任务：改密码、开账号、导入CSV。"),
)
ZH_C = snap("zh-c", 10 * 24, "上线夜之后自动保存（内容很少）", session="会话-2",
            facts=(fact("zc-f1", "上线推迟", confidence=0.4),))


@pytest.fixture(scope="module")
def embedder() -> HashEmbedder:
    return HashEmbedder()


def soon_after(snapshot: Snapshot) -> datetime:
    return datetime.fromisoformat(snapshot.created_at) + timedelta(hours=1)


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
                        "parts", "alternatives"}
    assert out["selected_snapshot"]["id"] == "en-b"
    assert out["selected_snapshot"]["sessionId"] == "session-1"
    assert out["selected_snapshot"]["tasks"][4]["dueDate"] == "2026-03-20"
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


# ---------------------------------------------------------------------------------------------
# change detection


def replace_item(snapshot: Snapshot, field: str, item_id: str, **changes: object) -> Snapshot:
    items = tuple(msgspec.structs.replace(i, **changes) if i.id == item_id else i
                  for i in getattr(snapshot, field))
    return msgspec.structs.replace(snapshot, **{field: items})


def test_no_changes() -> None:
    report = detect_changes(EN_B, EN_B)
    assert report.severity == "none" and not report.has_changes
    assert report.intents == report.facts == report.tasks == ()


def test_minor_changes_are_progress_and_additions() -> None:
    after = replace_item(EN_B, "tasks", "b-t2", status="completed")
    after = msgspec.structs.replace(after, facts=(*after.facts, fact("b-f9", "CI runs on uv")))
    report = detect_changes(EN_B, after)
    assert report.severity == "minor"
    assert [(c.kind, c.id) for c in report.tasks] == [("completed", "b-t2")]
    assert report.tasks[0].fields[0].before == "in_progress"
    assert [(c.kind, c.id) for c in report.facts] == [("added", "b-f9")]
    assert any("do not redo" in r for r in report.recommendations)


def test_moderate_change_when_a_due_date_moves() -> None:
    after = replace_item(EN_B, "tasks", "b-t5", due_date="2026-03-27")
    report = detect_changes(EN_B, after)
    assert report.severity == "moderate"
    (change,) = report.tasks
    assert change.kind == "modified"
    assert [(f.field, f.before, f.after) for f in change.fields] == [
        ("dueDate", "2026-03-20", "2026-03-27")]
    assert any("re-plan" in r for r in report.recommendations)


def test_moderate_change_when_an_intent_is_added() -> None:
    after = msgspec.structs.replace(
        EN_B, intents=(*EN_B.intents, intent("b-i4", "Publish the package to the internal index")))
    report = detect_changes(EN_B, after)
    assert report.severity == "moderate"
    assert [(c.kind, c.id) for c in report.intents] == [("added", "b-i4")]
    assert report.reasons == ("intent added: Publish the package to the internal index",)


def test_items_pair_by_wording_when_ids_differ() -> None:
    report = detect_changes(ZH_A, ZH_B)  # every id differs between the two snapshots
    assert [(c.kind, c.text) for c in report.intents] == [("added", "建立可靠的数据库备份")]
    caddy = next(c for c in report.facts if c.kind == "modified")
    assert (caddy.previous_id, caddy.id) == ("za-f2", "zb-f2")
    assert caddy.similarity is not None and caddy.similarity >= 0.5
    assert "za-f1" not in {c.previous_id for c in report.facts}  # same statement: no change
    # The high-priority password task was reworded past recognition: removed, which is major.
    assert report.severity == "major"
    assert "high priority task removed: 把config.yaml里的明文密码改成环境变量" in report.reasons


def test_major_change_when_a_decision_is_reversed() -> None:
    after = replace_item(ZH_B, "facts", "zb-f3", active=False)
    report = detect_changes(ZH_B, after)
    assert report.severity == "major"
    assert report.facts[0].kind == "deactivated"
    assert "fact deactivated: 决定3月20日上线" in report.reasons


def test_major_change_when_an_intent_is_dropped() -> None:
    after = msgspec.structs.replace(EN_B, intents=EN_B.intents[:2])
    report = detect_changes(EN_B, after)
    assert report.severity == "major"
    assert [(c.kind, c.id) for c in report.intents] == [("removed", "b-i3")]
    assert "1 intent removed" in report.summary


# ---------------------------------------------------------------------------------------------
# compression


def test_compress_within_budget_keeps_everything() -> None:
    out = compress(EN_B, 10_000)
    assert msgspec.structs.replace(out, token_count=0) == msgspec.structs.replace(EN_B,
                                                                                 token_count=0)
    assert out.token_count == snapshot_tokens(EN_B)


def test_compress_keeps_the_important_items() -> None:
    budget = 70
    assert snapshot_tokens(EN_B) > budget
    out = compress(EN_B, budget)
    assert snapshot_tokens(out) == out.token_count <= budget
    assert out.description == EN_B.description
    assert {i.id for i in out.intents} == {"b-i1", "b-i2", "b-i3"}  # all unfulfilled
    kept_tasks = {t.id for t in out.tasks}
    assert {"b-t3", "b-t5"} <= kept_tasks  # critical, and high with a due date
    assert "b-t1" not in kept_tasks  # completed goes first
    for t in out.tasks:  # no dangling references
        assert set(t.dependencies) <= kept_tasks
        assert set(t.related_intent_ids) <= {i.id for i in out.intents}


def test_compress_chinese_trims_the_context() -> None:
    budget = snapshot_tokens(ZH_B) - 10
    out = compress(ZH_B, budget)
    assert snapshot_tokens(out) <= budget
    assert len(out.intents) == 2 and len(out.tasks) >= 3
    assert out.context.endswith("…") and out.context.startswith("上线定在3月20日。")


@pytest.mark.parametrize("budget", [1, 3, 8])
def test_compress_tiny_budgets_still_fit(budget: int) -> None:
    out = compress(ZH_B, budget)
    assert snapshot_tokens(out) <= budget


def test_compress_rejects_a_zero_budget() -> None:
    with pytest.raises(InvalidInput, match="at least 1"):
        compress(EN_B, 0)


# ---------------------------------------------------------------------------------------------
# parsing


def test_parse_round_trip() -> None:
    raw = msgspec.json.decode(msgspec.json.encode(EN_B))
    assert raw["tasks"][0]["relatedIntentIds"] == ["b-i1"] and "dueDate" not in raw["tasks"][0]
    assert raw["tasks"][4]["dueDate"] == "2026-03-20" and "sourceMessageId" not in raw["facts"][0]
    assert parse_snapshot(raw) == EN_B
    assert parse_snapshot(msgspec.to_builtins(ZH_B)) == ZH_B


def test_parse_is_liberal() -> None:
    raw = {
        "snapshot_id": "s1", "session_id": "sess", "created_at": 1_773_000_000,
        "intents": [{"text": "plan the trip"}, {"description": "  "}],
        "facts": [{"statement": "budget 15k", "category": "Constraint"}],
        "tasks": [{"title": "book flights", "status": "In-Progress", "priority": "URGENT",
                   "dueDate": "2026-02-15"},
                  {"id": 7, "description": "renew passport", "status": "done"}],
    }
    s = parse_snapshot(raw)
    assert (s.id, s.session_id, s.created_at) == ("s1", "sess", "2026-03-08T20:00:00Z")
    assert [(i.id, i.confidence, i.fulfilled) for i in s.intents] == [("s1-i1", 1.0, False)]
    assert s.facts[0].category == "constraint" and s.facts[0].active
    assert [(t.id, t.status, t.priority) for t in s.tasks] == [
        ("s1-t1", "in_progress", "critical"), ("7", "completed", "medium")]
    assert s.tasks[0].created_at == s.tasks[0].updated_at == s.created_at
    assert s.description == s.context == "" and s.token_count == snapshot_tokens(s) > 0


def test_parse_takes_created_at_from_items_when_missing() -> None:
    s = parse_snapshot({"id": "s", "sessionId": "x",
                        "tasks": [{"description": "t", "updatedAt": "2026-01-02T03:04:05+08:00"}]})
    assert s.created_at == "2026-01-02T03:04:05+08:00"


@pytest.mark.parametrize(
    ("raw", "error", "message"),
    [
        ([], InvalidInput, "expected a JSON object"),
        ({"sessionId": "x", "createdAt": "2026-01-01"}, InvalidInput, "has no 'id'"),
        ({"id": "../etc", "sessionId": "x", "createdAt": "2026-01-01"}, UnsafeSessionId,
         "snapshot 'id' is unsafe"),
        ({"id": "s", "sessionId": "a/b", "createdAt": "2026-01-01"}, UnsafeSessionId,
         "snapshot 'sessionId' is unsafe: session id contains a path separator"),
        ({"id": "s", "sessionId": "x"}, InvalidInput, "has no 'createdAt'"),
        ({"id": "s", "sessionId": "x", "createdAt": "yesterday"}, InvalidInput,
         "createdAt must be an ISO-8601 time"),
        ({"id": "s", "sessionId": "x", "createdAt": "2026-01-01", "intents": {}}, InvalidInput,
         "'intents' must be a list"),
        ({"id": "s", "sessionId": "x", "createdAt": "2026-01-01", "facts": ["a fact"]},
         InvalidInput, "fact 1 must be an object"),
        ({"id": "s", "sessionId": "x", "createdAt": "2026-01-01",
          "tasks": [{"description": "t", "status": "someday"}]}, InvalidInput,
         "task 1 status must be one of pending, in_progress, blocked, completed, cancelled"),
        ({"id": "s", "sessionId": "x", "createdAt": "2026-01-01",
          "tasks": [{"description": "t", "priority": "p0"}]}, InvalidInput, "task 1 priority"),
        ({"id": "s", "sessionId": "x", "createdAt": "2026-01-01",
          "facts": [{"statement": "f", "category": "rumour"}]}, InvalidInput,
         "fact 1 category must be one of preference"),
        ({"id": "s", "sessionId": "x", "createdAt": "2026-01-01",
          "intents": [{"description": "i", "confidence": 1.5}]}, InvalidInput,
         "intent 1 confidence must be a number from 0 to 1"),
        ({"id": "s", "sessionId": "x", "createdAt": "2026-01-01",
          "intents": [{"description": "i", "fulfilled": "yes"}]}, InvalidInput,
         "'fulfilled' must be true or false"),
        ({"id": "s", "sessionId": "x", "createdAt": "2026-01-01", "tokenCount": -3},
         InvalidInput, "'tokenCount' must be a non-negative number"),
    ],
)
def test_parse_errors(raw: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")) as caught:
        parse_snapshot(raw)
    assert isinstance(caught.value, InvalidInput) and caught.value.status == 400
