"""GET /v1/search: the same request and result as `recall search --json` and the MCP tool; and
POST /v1/pack, a context pack built from one search (`recall pack --json`)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from litestar import Router, get, post
from litestar.params import FromQuery, JSONBody, QueryParameter

from api.http.params import OptionalDay, OptionalText, SearchQuery, Service
from api.http.problems import problem_responses
from api.http.scopes import READ
from api.service.pack import ContextPack
from api.service.requests import search_request
from models import SearchResponse
from models.hits import MemoryRank, SearchScope, SearchWhen
from models.memory import MemoryType

__all__ = ["router"]

Limit = Annotated[int, QueryParameter(ge=1, le=100, description="sessions to return")]


@get("/search", opt=READ, sync_to_thread=True, responses=problem_responses(400, 503),
     summary="Search the archive (same result shape as `recall search --json`)")
def search_route(
    service: Service,
    q: SearchQuery,
    mode: FromQuery[Literal["hybrid", "keyword", "vector"]] = "hybrid",
    date: OptionalDay = None,
    since: OptionalDay = None,
    until: OptionalDay = None,
    channel: OptionalText = None,
    participant: OptionalText = None,
    role: OptionalText = None,
    session: OptionalText = None,
    search_scope: Annotated[SearchScope, QueryParameter(  # "scope" is a name Litestar reserves
        name="scope",
        description="messages (default), memories (extracted memories), or all")] = "messages",
    memory_type: Annotated[MemoryType | None, QueryParameter(
        description="only memories of this type (needs scope memories or all)")] = None,
    limit: Limit = 10,
    memory_rank: Annotated[MemoryRank, QueryParameter(
        description="match (default), or relevance: memory hits score match x memory relevance "
                    "(needs scope memories or all)")] = "match",
    strict: Annotated[bool, QueryParameter(
        description="only sessions with real evidence, and none when the archive likely holds "
                    "no answer: fewer wrong results, some right ones missed (hybrid search with "
                    "the learned ranker; RECALL_RANKER=strict makes it the default)")] = False,
    when: Annotated[SearchWhen | None, QueryParameter(
        description="current: how things stand now, the sessions near the top newest first; "
                    "history: how they stood at first, oldest first (default: as the query's "
                    "own words ask)")] = None,
) -> SearchResponse:
    values = {"mode": mode, "date": date, "since": since, "until": until, "channel": channel,
              "participant": participant, "role": role, "session": session, "scope": search_scope,
              "memory_type": memory_type, "limit": limit, "memory_rank": memory_rank,
              "strict": strict, "when": when}
    return service.search(search_request(values, q))


class PackRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    query: str
    budget: int = 1500


@post("/pack", opt=READ, sync_to_thread=True, status_code=200, responses=problem_responses(400, 413, 503),
      summary="The best evidence for a question within a token budget, cited by session, "
              "message, date and agent, in Markdown and JSON (`recall pack --json`)")
def pack_route(service: Service, data: JSONBody[PackRequest]) -> ContextPack:
    return service.pack(data.query, data.budget)


router = Router(path="/", route_handlers=[search_route, pack_route])
