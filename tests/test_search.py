from __future__ import annotations

from pathlib import Path

import pytest

from api import RecallService, Settings
from indexer import HashEmbedder
from models import InvalidQuery, SearchFilters, SearchRequest


def ids(service: RecallService, query: str, mode: str = "hybrid", **filters: str) -> list[str]:
    request = SearchRequest(query=query, mode=mode, filters=SearchFilters(**filters))
    return [r.session_id for r in service.search(request).results]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("升级", "t-zh-upgrade"),
        ("数据库", "t-zh-upgrade"),
        ("OpenClaw升级和记忆系统", "t-zh-upgrade"),
        ("snake_case_name", "t-en-errors"),
        ("ERR_CONNECTION_REFUSED", "t-en-errors"),
        ("v2.3.1", "t-en-errors"),
        ('"connection reset by peer while reading response header"', "t-en-errors"),
        ("grandmother birthday dumplings", "t-en-birthday"),
        ("Kyoto trip", "t-kyoto"),  # only in the session's summary and topics
        ("redis cache TTL", "conv-a1"),  # from the JSONL conversation store
    ],
)
def test_finds_the_right_session_first(service: RecallService, mode: str, query: str, expected: str) -> None:
    assert ids(service, query, mode)[0] == expected


def test_identifier_pieces_are_findable(service: RecallService) -> None:
    assert ids(service, "connection refused", "keyword")[0] == "t-en-errors"


def test_phrase_must_match_in_order(service: RecallService) -> None:
    assert ids(service, '"peer by reset connection"', "keyword") == []


def test_results_are_grouped_with_at_most_three_messages(service: RecallService) -> None:
    response = service.search(SearchRequest(query="v2.3.1 snake_case_name header", mode="keyword"))
    top = response.results[0]
    assert top.session_id == "t-en-errors"
    assert 1 <= len(top.messages) <= 3
    assert len({r.session_id for r in response.results}) == len(response.results)
    message = top.messages[0]
    assert message.id and message.id.startswith("t-en-errors-m")
    start, end = message.highlights[0]
    assert message.snippet[start:end].lower() in {"v2.3.1", "snake_case_name", "header", "headers"}
    assert top.date == "2026-02-10" and top.channel == "cli"
    assert top.score_parts["keyword"] > 0


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
@pytest.mark.parametrize("query", ["xylophone quasar zebra", "量子纠缠望远镜", "the and of"])
def test_no_real_match_returns_nothing(service: RecallService, mode: str, query: str) -> None:
    assert ids(service, query, mode) == []


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_filters_apply_before_the_cut(service: RecallService, mode: str) -> None:
    # "postgres" occurs in several sessions; each filter must leave only its own
    if mode != "vector":  # the hash embedder cannot see one word in a long config paste
        assert set(ids(service, "postgres", mode)) >= {"t-zh-upgrade", "t-secrets"}
    assert ids(service, "postgres", mode, since="2026-03-29", until="2026-03-29") == ["t-zh-upgrade"]
    assert ids(service, "postgres", mode, channel="webchat") == ["t-zh-upgrade"]
    assert ids(service, "postgres", mode, channel="WebChat") == ["t-zh-upgrade"]
    assert ids(service, "postgres", mode, participant="simon") == ["t-zh-upgrade"]
    assert ids(service, "postgres", mode, session="t-zh-upgrade") == ["t-zh-upgrade"]
    assert ids(service, "postgres", mode, session="t-en-birthday") == []
    assert "t-secrets" not in ids(service, "postgres", mode, until="2026-03-01")


def test_role_filter(service: RecallService) -> None:
    request = SearchRequest(query="v2.3.1", mode="keyword", filters=SearchFilters(role="user"))
    hits = service.search(request).results[0].messages
    assert hits and all(m.role == "user" for m in hits)
    assert ids(service, "filesystem mounted", "keyword", role="tool") == ["t-blocks"]


def test_secrets_never_reach_the_index(service: RecallService) -> None:
    for secret in ["hunter2-blue", "tiger-lily-88", "S3cretPassw0rd", "AKIAIOSFODNN7EXAMPLE"]:
        assert ids(service, secret, "keyword") == []
    assert ids(service, "REDACTED", "keyword") == ["t-secrets"]


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (SearchRequest(query="  "), "empty"),
        (SearchRequest(query="x", limit=0), "limit"),
        (SearchRequest(query="x", limit=101), "limit"),
        (SearchRequest(query="x" * 2001), "longer"),
        (SearchRequest(query="x", filters=SearchFilters(since="2026-02-01", until="2026-01-01")), "after"),
    ],
)
def test_invalid_requests(service: RecallService, request_: SearchRequest, reason: str) -> None:
    with pytest.raises(InvalidQuery, match=reason):
        service.search(request_)


def test_hostile_query_text_is_just_text(service: RecallService) -> None:
    for query in ['title:"unclosed', "AND OR NOT (", "*:*", "body:[a TO", "'; DROP TABLE x; --"]:
        service.search(SearchRequest(query=query))


def test_query_length_limit_is_a_setting(built_home: Path) -> None:
    service = RecallService(Settings(home=built_home, embedder="hash", max_query_chars=10),
                            embedder=HashEmbedder())
    assert service.search(SearchRequest(query="升级 " * 3)).results
    with pytest.raises(InvalidQuery, match="the query is longer than 10 characters"):
        service.search(SearchRequest(query="x" * 11))
