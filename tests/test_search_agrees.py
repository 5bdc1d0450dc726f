"""The searcher's answer is the final one: `RecallService.search` gives the same sessions, in the
same order, with the same scores, messages and statements as `Searcher.search`; the service
only fills an untitled hit's `opening` (and notes which memories were used). On the project's
examples/ archive, with the hash embedder."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from api import RecallService
from api.service.search_params import search_params
from models import SearchResponse

from .helpers import EXAMPLES, make_service

QUERIES = ["deploy", "deploy on Friday", "what did we decide about the database", "周五上线",
           "Kyoto", "upgrade", "现在 能 周五 上线 吗", "what is the current rule for Friday deploys"]
FRIDAY_MARCH = "5973cc90-8e43-4d93-af48-24614faebc52"  # a trial allows Friday deploys
FRIDAY_APRIL = "ffc5daa7-fc63-4623-a3f2-174d04ce78ee"  # the vote bans them again


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> RecallService:
    service = make_service(tmp_path_factory.mktemp("agrees"))
    assert service.index([EXAMPLES]).indexed == 14
    return service


def _both(service: RecallService, **params: Any) -> tuple[SearchResponse, SearchResponse]:
    request = search_params(params).request()
    searched = service.searcher.search(request)  # first: the service's search notes memory use
    return searched, service.search(request)


def _without_opening(response: SearchResponse) -> list[dict[str, Any]]:
    return [{k: v for k, v in hit.items() if k != "opening"}
            for hit in msgspec.to_builtins(response)["results"]]


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "vector"])
def test_the_service_answers_what_the_searcher_answers(examples: RecallService, mode: str) -> None:
    answered = 0
    for query in QUERIES:
        searched, served = _both(examples, query=query, mode=mode)
        answered += bool(served.results)
        assert [(h.session_id, h.score) for h in served.results] == [
            (h.session_id, h.score) for h in searched.results], (mode, query)
        assert _without_opening(served) == _without_opening(searched), (mode, query)
    assert answered >= len(QUERIES) // 2  # something to compare (hash vectors miss a few)


@pytest.mark.parametrize("scope", ["messages", "memories", "all"])
def test_a_superseded_statement_is_marked_alike_by_both(examples: RecallService,
                                                        scope: str) -> None:
    searched, served = _both(examples, query="what is the current rule for Friday deploys",
                             scope=scope)
    assert _without_opening(served) == _without_opening(searched), scope
    march = next(h for h in served.results if h.session_id == FRIDAY_MARCH)
    assert any(f.status == "superseded" and f.superseded_by is not None
               and f.superseded_by.session_id == FRIDAY_APRIL for f in march.facts)


def test_what_the_service_adds_is_an_untitled_hits_opening(examples: RecallService) -> None:
    searched, served = _both(examples, query="Friday deploys", scope="all")
    untitled = [(a, b) for a, b in zip(searched.results, served.results, strict=True)
                if not b.title]
    assert untitled  # the examples hold sessions without a title: the check is not vacuous
    assert all(a.opening is None and b.opening for a, b in untitled)
