"""Memories over HTTP: a session's typed memories, and the digest of a period."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from litestar import Router, get, post
from litestar.params import FromQuery, JSONBody, QueryParameter

from api.http.params import Service, SessionId
from api.http.problems import problem_responses
from api.http.scopes import READ
from api.service.facts import FactsPayload
from api.service.limits import MAX_PARAM_CHARS
from api.service.memories import MemoriesPayload
from models.memory import MemoryType
from search.digest import Digest

__all__ = ["router"]


class MemoriesRequest(msgspec.Struct):
    types: Annotated[list[MemoryType], msgspec.Meta(max_length=8)] | None = None
    refine: bool = False  # revise with the LLM endpoint (RECALL_LLM_URL), when one is set


@post("/sessions/{session_id:str}/memories", opt=READ, sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 404, 413),
      summary="Typed memories of a session (user, feedback, project, reference)")
def memories_route(service: Service, session_id: SessionId,
                   data: JSONBody[MemoriesRequest]) -> MemoriesPayload:
    return service.memories.extract(session_id, data.types, refine=data.refine)


@get("/digest", opt=READ, sync_to_thread=True, responses=problem_responses(400),
     summary="Topics, open tasks and daily activity for a period")
def digest_route(service: Service, period: FromQuery[Literal["day", "week", "month"]] = "week",
                 date: Annotated[str | None, QueryParameter(
                     max_length=MAX_PARAM_CHARS, description="a day in the period; default today",
                     schema_extra={"format": "date"})] = None,
                 ) -> Digest:
    return service.digest(period, date)


@get("/facts", opt=READ, sync_to_thread=True, responses=problem_responses(400),
     summary="Decisions and values with their status: current, or superseded by a later one")
def facts_route(service: Service,
                subject: Annotated[str | None, QueryParameter(
                    max_length=MAX_PARAM_CHARS,
                    description="only statements holding at least half of these words")] = None,
                when: Annotated[Literal["current", "history"] | None, QueryParameter(
                    description="current: only what stands now; history: each chain oldest "
                                "to newest; default: all, marked")] = None,
                limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 50) -> FactsPayload:
    return service.facts.list(subject, when, limit)


router = Router(path="/", route_handlers=[memories_route, digest_route, facts_route])
