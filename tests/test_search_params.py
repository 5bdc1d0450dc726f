"""One search request, declared once (api/service/search_params.py): the command line's
options, the HTTP query parameters and the MCP tool's arguments are made from it, and every
interface converts what it got the same way, with the same errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from api import RecallService, Settings
from api.cli.read import search
from api.http import create_app
from api.mcp.server import build_mcp
from api.service.search_params import OPTIONS, SEARCH_PARAMS, search_params
from indexer import HashEmbedder
from models import InvalidQuery


def test_every_interface_takes_every_parameter(tmp_path: Path) -> None:
    names = [p.name for p in OPTIONS]
    flags = {option.name for option in search.params}
    # --when is spelled --current/--history on the command line, --scope memories --memories
    assert set(names) - {"when"} <= flags and {"memories"} <= flags
    settings = Settings(home=tmp_path, embedder="hash")
    service = RecallService(settings, embedder=HashEmbedder())
    document = create_app(settings, service).openapi_schema.to_schema()
    query = document["paths"]["/v1/search"]["get"]["parameters"]
    assert [p["name"] for p in query] == ["q", *names]
    described = {p["name"]: p["description"] for p in query}
    assert all(described[p.name] == p.description for p in OPTIONS)
    tool = next(t for t in build_mcp(service)._tool_manager.list_tools()
                if t.name == "search_archive")
    assert list(tool.parameters["properties"]) == [p.name for p in SEARCH_PARAMS]


@pytest.mark.parametrize(("values", "error"), [
    ({"query": "x", "limit": 0}, "limit must be between 1 and 100"),
    ({"query": "x", "limit": "ten"}, "'limit' must be a whole number"),
    ({"query": "x", "mode": "fuzzy"}, "'mode' must be one of hybrid, keyword, vector (got 'fuzzy')"),
    ({"query": "x", "strict": "yes"}, "'strict' must be true or false"),
    ({"query": "x", "channel": "c" * 201}, "'channel' is longer than 200 characters"),
    ({"query": 42}, "'query' must be text"),
    ({"query": "x", "qid": 3}, "unknown parameter 'qid'"),
    ({}, "'query' is required"),
])
def test_a_bad_parameter_is_named_with_what_it_must_be(values: dict[str, object],
                                                       error: str) -> None:
    with pytest.raises(InvalidQuery) as caught:
        search_params(values)
    assert caught.value.detail == error


def test_query_strings_are_text_and_a_memory_type_searches_the_memories() -> None:
    params = search_params({"query": "v2.3", "limit": "5", "strict": "true",
                            "memory_type": "reference"}, from_text=True)
    request = params.request()
    assert (request.limit, request.strict, request.filters.scope) == (5, True, "memories")
    assert search_params({"query": "x", "date": "2026-03"}).request().filters.since == "2026-03-01"
