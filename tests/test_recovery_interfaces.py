"""Change detection, compression and recovery options through the service, HTTP, CLI and MCP."""

from __future__ import annotations

import json

import msgspec
import pytest
from litestar.testing import TestClient

from api import RecallService
from api.http.app import create_app
from models import InvalidInput, NotFound, recovery_options

UPGRADE = "t-zh-upgrade"


def _changed_upgrade(service: RecallService) -> None:
    record = json.loads(msgspec.json.encode(service.session(UPGRADE)))  # the archive record
    record["messages"].append({"id": "m-new", "role": "user",
                               "content": "我们决定下周五之前把备份脚本改成每小时运行一次。"})
    record["messages"].append({"id": "m-new2", "role": "user",
                               "content": "Decision: we will switch the cache to Redis."})
    service.ingest_record(record)


def test_changes_since_the_newest_snapshot(writable: RecallService) -> None:
    saved = writable.snapshots.create(UPGRADE)
    unchanged = writable.snapshots.changes(UPGRADE)
    assert (unchanged.before_id, unchanged.after_id) == (saved.id, "current")
    assert unchanged.severity == "none" and not unchanged.has_changes
    _changed_upgrade(writable)
    report = writable.snapshots.changes(UPGRADE)
    assert report.has_changes and report.severity in ("moderate", "major")
    added = [c.text for c in (*report.facts, *report.tasks) if c.kind == "added"]
    assert any("Redis" in text for text in added)
    # between two saved snapshots, both named
    later = writable.snapshots.create(UPGRADE)
    between = writable.snapshots.changes(UPGRADE, saved.id, later.id)
    assert (between.before_id, between.after_id) == (saved.id, later.id) and between.has_changes
    with pytest.raises(NotFound, match="no snapshot"):
        writable.snapshots.changes(UPGRADE, "nope")
    with pytest.raises(NotFound, match="no snapshots"):
        writable.snapshots.changes("t-en-errors")


def test_recover_with_a_budget_compresses_the_choice(writable: RecallService) -> None:
    _changed_upgrade(writable)
    writable.snapshots.create(UPGRADE)
    whole = writable.snapshots.recover(UPGRADE)
    small = writable.snapshots.recover(UPGRADE, token_budget=25)
    assert small.selected.id == whole.selected.id
    assert small.selected.token_count <= 25 < whole.selected.token_count
    shown = writable.snapshots.get(UPGRADE, whole.selected.id, 25)
    assert shown == small.selected
    with pytest.raises(InvalidInput):
        writable.snapshots.recover(UPGRADE, token_budget=0)


def test_recovery_options_are_checked() -> None:
    options = recovery_options({"weights": {"relevance": 1, "recency": 0}, "time_window_hours": None})
    assert options.weights.relevance == 1 and options.time_window_hours is None
    # past the upper bounds the arithmetic overflowed (HTTP 500, or a NaN confidence)
    overflowing = ({"summarize_after_days": 1e308}, {"stale_task_days": 1e9},
                   {"weights": {"recency": 1e308, "completeness": 1e308}})
    for bad in ({"weights": {"relevance": -1}}, {"window": 3}, {"half_life_hours": "soon"}, [1],
                *overflowing):
        with pytest.raises(InvalidInput):
            recovery_options(bad)  # type: ignore[arg-type]


def test_http_changes_snapshot_and_recovery_options(writable: RecallService) -> None:
    with TestClient(create_app(writable.settings, writable), base_url="http://127.0.0.1") as client:
        saved = client.post(f"/v1/sessions/{UPGRADE}/snapshots").json()
        changes = client.get(f"/v1/sessions/{UPGRADE}/changes").json()
        assert changes["severity"] == "none" and changes["before_id"] == saved["id"]
        small = client.get(f"/v1/sessions/{UPGRADE}/snapshots/{saved['id']}",
                           params={"token_budget": 20}).json()
        assert small["id"] == saved["id"] and small["token_count"] <= 20
        assert client.get(f"/v1/sessions/{UPGRADE}/snapshots/nope").status_code == 404
        decision = client.post("/v1/recovery", json={
            "session_id": UPGRADE, "context": "数据库", "token_budget": 20,
            "options": {"weights": {"relevance": 0.7}, "time_window_hours": 48}})
        assert decision.status_code == 200
        assert decision.json()["selected_snapshot"]["token_count"] <= 20
        bad = client.post("/v1/recovery", json={"session_id": UPGRADE, "options": {"speed": 1}})
        assert bad.status_code == 400 and "speed" in bad.json()["detail"]
        older = client.get(f"/v1/sessions/{UPGRADE}/snapshots").json()["snapshots"]
        newest = client.post(f"/v1/sessions/{UPGRADE}/snapshots").json()
        pruned = client.delete(f"/v1/sessions/{UPGRADE}/snapshots", params={"keep": 1}).json()
        assert pruned["deleted"] == 1 and [s["id"] for s in pruned["snapshots"]] == [newest["id"]]
        for gone in older:  # a pruned snapshot is gone; the kept one still answers
            assert client.get(f"/v1/sessions/{UPGRADE}/snapshots/{gone['id']}").status_code == 404
        assert client.get(f"/v1/sessions/{UPGRADE}/snapshots/{newest['id']}").status_code == 200
        assert client.delete(f"/v1/sessions/{UPGRADE}/snapshots", params={"keep": 0}).status_code == 400


def test_cli_changes_recover_options_and_show(recall, writable: RecallService,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_HOME", str(writable.settings.home))
    saved = json.loads(recall("snapshot", UPGRADE, "--json").stdout)
    _changed_upgrade(writable)
    report = json.loads(recall("changes", UPGRADE, "--json").stdout)
    assert report["before_id"] == saved["id"] and report["has_changes"]
    assert "Redis" in recall("changes", UPGRADE).stdout
    decision = json.loads(recall("recover", UPGRADE, "--context", "backup", "--budget", "20",
                                 "--window-hours", "0", "--weight", "relevance=0.8", "--json").stdout)
    assert decision["selected_snapshot"]["token_count"] <= 20
    bad_weight = recall("recover", UPGRADE, "--weight", "fast", ok=False)
    assert bad_weight.returncode != 0 and "PART=NUMBER" in bad_weight.stderr
    shown = json.loads(recall("snapshots", UPGRADE, "--show", saved["id"], "--budget", "15").stdout)
    assert shown["id"] == saved["id"] and shown["token_count"] <= 15
