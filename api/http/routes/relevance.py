"""HTTP routes for memory relevance (under /v1/memories) and their wire shapes."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import QueryParameter

from api.http.problems import problem_responses
from api.service.core import RecallService
from api.service.limits import MAX_ID_LENGTH
from api.service.relevance import MAX_LISTED

__all__ = ["RELEVANCE_ROUTES"]

Service = NamedDependency[RecallService]
OptionalSession = Annotated[str | None, QueryParameter(
    min_length=1, max_length=MAX_ID_LENGTH, description="only this session's memories")]


class RelevancePolicyOut(msgspec.Struct):
    decay_rate: float
    floor: float
    boost: float
    max_memories: int | None


class MemoryRelevanceOut(msgspec.Struct):
    id: str
    session_id: str
    type: str
    text: str
    confidence: float
    relevance: float  # now, after decay
    access_count: int  # times a search returned it or a recovery used it
    last_accessed: str | None


class RelevanceList(msgspec.Struct):
    as_of: str
    policy: RelevancePolicyOut
    total: int
    limit: int
    offset: int
    pruned_total: int
    memories: list[MemoryRelevanceOut]


class PruneReport(msgspec.Struct):
    dry_run: bool
    as_of: str
    max_memories: int
    memories_before: int
    memories_after: int
    pruned: list[MemoryRelevanceOut]  # least relevant first; with dry_run, what would go


class DecayReport(msgspec.Struct):
    as_of: str
    policy: RelevancePolicyOut
    updated: int
    dropped: int


class PrunedMemoryOut(msgspec.Struct):
    id: str
    session_id: str
    type: str
    text: str
    relevance: float  # when it was pruned
    pruned_at: str


class PrunedList(msgspec.Struct):
    pruned: list[PrunedMemoryOut]


@get("/memories/relevance", sync_to_thread=True, responses=problem_responses(400, 404),
     summary="Memories with their relevance now (decayed since last use), most relevant first")
def relevance_list_route(
    service: Service,
    session: OptionalSession = None,
    limit: Annotated[int, QueryParameter(ge=1, le=MAX_LISTED)] = 50,
    offset: Annotated[int, QueryParameter(ge=0)] = 0,
) -> RelevanceList:
    page = service.relevance.listing(limit=limit, offset=offset, session_id=session)
    return msgspec.convert(page, RelevanceList)


@post("/memories/prune", sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 409, 503),
      summary="Remove the least relevant memories past the maximum count; lists every one removed")
def relevance_prune_route(
    service: Service,
    dry_run: Annotated[bool, QueryParameter(description="list what would go; remove nothing")] = False,
    max_memories: Annotated[int | None, QueryParameter(
        ge=0, description="keep at most this many (default RECALL_RELEVANCE_MAX_MEMORIES)")] = None,
) -> PruneReport:
    report = service.relevance.prune(dry_run=dry_run, max_memories=max_memories)
    return msgspec.convert(report, PruneReport)


@post("/memories/decay", sync_to_thread=True, status_code=200, responses=problem_responses(409),
      summary="Write every memory's decayed relevance down (reads compute it anyway)")
def relevance_decay_route(service: Service) -> DecayReport:
    return msgspec.convert(service.relevance.decay(), DecayReport)


@get("/memories/pruned", sync_to_thread=True, responses=problem_responses(400),
     summary="Memories pruning removed, newest first (kept out of reindexing)")
def pruned_list_route(service: Service, session: OptionalSession = None) -> PrunedList:
    return msgspec.convert(service.relevance.pruned(session), PrunedList)


RELEVANCE_ROUTES = [relevance_list_route, relevance_prune_route, relevance_decay_route,
                    pruned_list_route]
