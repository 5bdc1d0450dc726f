"""Context packs: cited evidence within a token budget, decisions first and newest first,
deduplicated; the same over the CLI, HTTP and MCP (by the same service call)."""

from __future__ import annotations

import json

import pytest
from litestar.testing import TestClient

from api import RecallService
from api.http.app import create_app
from models import InvalidQuery, estimate_tokens


def _session(session_id: str, date: str, decision: str, said: str) -> dict:
    return {"sessionId": session_id, "date": date, "channel": "codex", "title": "deploy rules",
            "decisions": [{"text": decision}],
            "messages": [{"role": "user", "content": "What are our deploy rules for Fridays?"},
                         {"role": "assistant", "content": said}]}


@pytest.fixture
def rules(writable: RecallService) -> RecallService:
    writable.ingest_record(_session("p-old", "2026-01-10", "Friday deploys are allowed until noon.",
                                    "Friday deploys are fine before noon."))
    writable.ingest_record(_session("p-new", "2026-04-20", "No deploys on Fridays at all.",
                                    "After the outage we stopped Friday deploys."))
    writable.ingest_record(_session("p-copy", "2026-04-21", "No deploys on Fridays at all.",
                                    "After the outage we stopped Friday deploys."))
    return writable


def test_excerpts_are_cited_and_fit_the_budget(service: RecallService) -> None:
    found = service.pack("数据库", 300)
    assert found.excerpts and found.estimated_tokens <= 300
    assert estimate_tokens(found.markdown) <= 300 + 1
    first = next(e for e in found.excerpts if e.message_id)
    assert first.session_id == "t-zh-upgrade" and first.message_id.startswith("t-zh-upgrade-m")
    assert f"session `{first.session_id}`" in found.markdown and first.date in found.markdown
    tight = service.pack("数据库", 100)
    assert tight.estimated_tokens <= 100 and tight.omitted > 0
    assert len(tight.excerpts) < len(found.excerpts)


def test_the_newest_decision_leads_and_nothing_is_said_twice(rules: RecallService) -> None:
    found = rules.pack("Friday deploy rules", 2000)
    decisions = [e for e in found.excerpts if e.kind == "decision"]
    assert [d.session_id for d in decisions] == ["p-copy", "p-old"]  # p-new's is p-copy's text
    assert found.excerpts[0].text == "No deploys on Fridays at all."
    texts = [e.text.lower() for e in found.excerpts]
    assert len(texts) == len(set(texts))
    assert texts.count("after the outage we stopped friday deploys.") == 1


def test_a_budget_out_of_range_is_refused(service: RecallService) -> None:
    with pytest.raises(InvalidQuery, match="between 100 and 50000"):
        service.pack("数据库", 10)


def test_over_http_and_the_command_line(service: RecallService, recall, built_home,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as http:
        body = http.post("/v1/pack", json={"query": "数据库", "budget": 300}).json()
        assert body["excerpts"][0]["session_id"] == "t-zh-upgrade" and body["markdown"]
        assert http.post("/v1/pack", json={"query": "数据库", "budget": 5}).status_code == 400
        assert http.post("/v1/pack", json={"q": "数据库"}).status_code == 400
    monkeypatch.setenv("RECALL_HOME", str(built_home))
    monkeypatch.setenv("RECALL_EMBEDDER", "hash")
    shown = recall("pack", "数据库", "--budget", "300").stdout
    assert shown.startswith("## Context from past sessions for: 数据库")
    as_json = json.loads(recall("pack", "数据库", "--json").stdout)
    assert as_json["budget"] == 1500 and as_json["excerpts"]
    assert recall("pack", "xylophone quasar", ok=False).returncode == 1
