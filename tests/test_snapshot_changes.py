"""What changed between two snapshots, compressing one to a budget, and parsing snapshots."""

from __future__ import annotations

import msgspec
import pytest

from models.errors import InvalidInput, UnsafeSessionId
from models.files import encode_snapshot
from models.snapshot import Snapshot, parse_snapshot, snapshot_tokens
from search.recovery import compress, detect_changes

from .snapshot_data import EN_B, ZH_A, ZH_B, fact, intent

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
    # the snapshot file's shape (camelCase, as the seed's) and the wire's (snake_case) both parse
    raw = msgspec.json.decode(encode_snapshot(EN_B))
    assert raw["tasks"][0]["relatedIntentIds"] == ["b-i1"] and "dueDate" not in raw["tasks"][0]
    assert raw["tasks"][4]["dueDate"] == "2026-03-20" and "sourceMessageId" not in raw["facts"][0]
    assert parse_snapshot(raw) == EN_B
    assert parse_snapshot(msgspec.to_builtins(EN_B)) == EN_B
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
