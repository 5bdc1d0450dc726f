"""Extracted memories are stored at ingest, searchable on request, and follow their session."""

from __future__ import annotations

import copy
import json

import pytest
from litestar.testing import TestClient

from api import RecallService
from api.http.app import create_app
from indexer.stores.memories import MemoryStore
from models import InvalidQuery, SearchFilters, SearchRequest

STYLE_SESSION = {
    "sessionId": "t-style",
    "date": "2026-05-04",
    "channel": "webchat",
    "participants": ["Lin", "Atlas"],
    "messages": [
        {"id": "m1", "role": "user", "content": "请帮我整理一下周报的格式。", "time": "2026-05-04T09:00:00+08:00"},
        {"id": "m2", "role": "assistant", "content": "好的，下面用表格列出本周的进展。"},
        {"id": "m3", "role": "user", "content": "不要用Markdown表格，改成编号列表。"},
        {"id": "m4", "role": "user", "content": "Also, stop adding emojis to the headings."},
        {"id": "m5", "role": "assistant", "content": "Understood: numbered lists, no emojis."},
    ],
}


def _search(service: RecallService, query: str, **filters: str) -> list[tuple[str, str | None, str]]:
    response = service.search(SearchRequest(query=query, filters=SearchFilters(**filters)))
    return [(r.session_id, m.memory_type, m.role) for r in response.results for m in r.messages]


@pytest.fixture
def styled(writable: RecallService) -> RecallService:
    writable.ingest_record(copy.deepcopy(STYLE_SESSION))
    return writable


def test_memories_are_stored_when_a_session_is_indexed(styled: RecallService) -> None:
    stored = MemoryStore(styled.data).load("t-style")
    assert stored is not None
    feedback = {m.text for m in stored if m.type == "feedback"}
    assert any("Markdown表格" in text for text in feedback)
    assert any("emojis" in text for text in feedback)
    # the service answers from what was stored, in the same shape as a fresh extraction
    assert styled.memories.of("t-style") == stored
    assert {m.type for m in styled.memories.of("t-style", ["feedback"])} == {"feedback"}


def test_memories_scope_finds_memories_and_the_default_scope_does_not(styled: RecallService) -> None:
    memory_hits = _search(styled, "Markdown表格", scope="memories")
    assert memory_hits and memory_hits[0][:2] == ("t-style", "feedback")
    assert all(role == "memory" for _, _, role in memory_hits)
    assert all(role != "memory" for _, _, role in _search(styled, "Markdown表格"))
    assert all(kind is None for _, kind, _ in _search(styled, "emojis headings"))
    everything = _search(styled, "Markdown表格", scope="all")
    assert {role for _, _, role in everything} >= {"memory", "user"}


def test_memory_type_filter(styled: RecallService) -> None:
    assert _search(styled, "emojis", scope="memories", memory_type="feedback")
    assert not _search(styled, "emojis", scope="memories", memory_type="reference")
    with pytest.raises(InvalidQuery, match="memories scope"):
        styled.search(SearchRequest(query="x", filters=SearchFilters(memory_type="feedback")))
    with pytest.raises(InvalidQuery, match="memory type"):
        styled.search(SearchRequest(query="x", filters=SearchFilters(scope="memories",
                                                                     memory_type="gossip")))


def test_a_changed_session_is_re_extracted(styled: RecallService) -> None:
    changed = copy.deepcopy(STYLE_SESSION)
    changed["messages"][2]["content"] = "不要用项目符号，写成完整的段落。"
    styled.ingest_record(changed, replace=True)  # a stored message changed
    texts = [m.text for m in styled.memories.of("t-style")]
    assert not any("Markdown表格" in t for t in texts)
    assert any("项目符号" in t for t in texts)
    assert not _search(styled, "Markdown表格", scope="memories")
    assert _search(styled, "项目符号", scope="memories")[0][:2] == ("t-style", "feedback")


def test_deleting_a_session_deletes_its_memories(styled: RecallService) -> None:
    styled.delete("t-style")
    assert MemoryStore(styled.data).load("t-style") is None
    assert not _search(styled, "Markdown表格", scope="memories")


def test_reindex_keeps_memories_searchable(styled: RecallService) -> None:
    styled.maintenance.reindex()
    assert _search(styled, "emojis", scope="memories")[0][:2] == ("t-style", "feedback")


def test_http_memories_scope(styled: RecallService) -> None:
    with TestClient(create_app(styled.settings, styled), base_url="http://127.0.0.1") as client:
        body = client.get("/v1/search", params={"q": "emojis", "scope": "memories"}).json()
        first = body["results"][0]["messages"][0]
        assert (first["role"], first["memory_type"]) == ("memory", "feedback")
        assert client.get("/v1/search", params={"q": "emojis", "scope": "nope"}).status_code == 400


def test_cli_search_memories(recall, styled: RecallService,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_HOME", str(styled.settings.home))
    found = json.loads(recall("search", "Markdown表格", "--memories", "--json").stdout)
    assert found["results"][0]["messages"][0]["memory_type"] == "feedback"
    assert "[memory feedback" in recall("search", "emojis", "--memory-type", "feedback").stdout
