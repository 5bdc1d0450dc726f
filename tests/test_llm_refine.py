"""Optional memory refinement over real HTTP, against a local OpenAI-compatible endpoint."""

from __future__ import annotations

from dataclasses import replace

import pytest

from api import RecallService
from models import InvalidInput

UPGRADE = "t-zh-upgrade"


def _with_llm(service: RecallService, url: str) -> RecallService:
    return RecallService(replace(service.settings, llm_url=url, llm_model="tiny", llm_api_key="k-1",
                                 llm_timeout=5), embedder=service.embedder)


def test_refined_memories_are_checked_and_returned(writable: RecallService, endpoint) -> None:
    url, handler = endpoint
    ids = [m.id for m in writable.session(UPGRADE).messages]
    handler.answer = {"memories": [
        {"type": "project", "text": "团队决定用Postgres数据库。", "confidence": 0.9,
         "source_message_ids": [ids[-1], "invented-id"]},
        {"type": "gossip", "text": "not a type"},
        {"type": "reference", "text": "key sk-proj-Xk29fLq8Zt4WXk29fLq8Zt4WXk29fLq8Zt4W"},
        {"type": "user", "text": "", "confidence": 2},
    ]}
    service = _with_llm(writable, url)
    payload = service.memories.extract(UPGRADE, refine=True)
    assert payload.refined is True
    assert [(m.type, m.text, m.source_message_ids) for m in payload.memories] == [
        ("project", "团队决定用Postgres数据库。", [ids[-1]])]
    sent = handler.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == "Bearer k-1"
    assert sent["body"]["model"] == "tiny"
    prompt = sent["body"]["messages"][1]["content"]
    assert "最后决定用Postgres数据库" in prompt and f"[{ids[-1]}]" in prompt
    # refinement is an answer, not a change: the stored memories stay rule-based
    assert all(m.kind != "refined" for m in service.memories.of(UPGRADE))


@pytest.mark.parametrize("answer", [500, "not json", {"memories": "many"}])
def test_a_failing_endpoint_falls_back_to_rule_based(writable: RecallService, endpoint, answer) -> None:
    url, handler = endpoint
    handler.answer = answer
    payload = _with_llm(writable, url).memories.extract(UPGRADE, ["project"], refine=True)
    assert payload.refined is False and payload.refine_error
    assert [m.text for m in payload.memories] == \
        [m.text for m in writable.memories.of(UPGRADE, ["project"])]


def test_unreachable_endpoint_and_no_endpoint(writable: RecallService) -> None:
    payload = _with_llm(writable, "http://127.0.0.1:9").memories.extract(UPGRADE, refine=True)
    assert payload.refined is False and "unreachable" in payload.refine_error
    with pytest.raises(InvalidInput, match="RECALL_LLM_URL"):
        writable.memories.extract(UPGRADE, refine=True)
