"""Memory relevance over HTTP (under /v1/memories): list, prune, decay, what was pruned."""

from __future__ import annotations

from typing import Annotated

from litestar import Router, get, post
from litestar.params import QueryParameter

from api.http.params import Service
from api.http.problems import problem_responses
from api.http.scopes import ADMIN, READ
from api.service.limits import MAX_ID_LENGTH, MAX_LISTED
from api.service.relevance import DecayReport, PrunedList, PruneReport, RelevanceList

__all__ = ["router"]

OptionalSession = Annotated[str | None, QueryParameter(
    min_length=1, max_length=MAX_ID_LENGTH, description="only this session's memories")]


@get("/memories/relevance", opt=READ, sync_to_thread=True, responses=problem_responses(400, 404),
     summary="Memories with their relevance now (decayed since last use), most relevant first")
def relevance_list_route(
    service: Service,
    session: OptionalSession = None,
    limit: Annotated[int, QueryParameter(ge=1, le=MAX_LISTED)] = 50,
    offset: Annotated[int, QueryParameter(ge=0)] = 0,
) -> RelevanceList:
    return service.relevance.listing(limit=limit, offset=offset, session_id=session)


@post("/memories/prune", opt=ADMIN, sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 409, 503),
      summary="Remove the least relevant memories past the maximum count; lists every one removed")
def relevance_prune_route(
    service: Service,
    dry_run: Annotated[bool, QueryParameter(description="list what would go; remove nothing")] = False,
    max_memories: Annotated[int | None, QueryParameter(
        ge=0, description="keep at most this many (default RECALL_RELEVANCE_MAX_MEMORIES)")] = None,
) -> PruneReport:
    return service.relevance.prune(dry_run=dry_run, max_memories=max_memories)


@post("/memories/decay", opt=ADMIN, sync_to_thread=True, status_code=200, responses=problem_responses(409),
      summary="Write every memory's decayed relevance down (reads compute it anyway)")
def relevance_decay_route(service: Service) -> DecayReport:
    return service.relevance.decay()


@get("/memories/pruned", opt=READ, sync_to_thread=True, responses=problem_responses(400),
     summary="Memories pruning removed, newest first (kept out of reindexing)")
def pruned_list_route(service: Service, session: OptionalSession = None) -> PrunedList:
    return service.relevance.pruned(session)


router = Router(path="/", route_handlers=[relevance_list_route, relevance_prune_route,
                                          relevance_decay_route, pruned_list_route])
