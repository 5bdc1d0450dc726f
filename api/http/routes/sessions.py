"""Sessions over HTTP: list, read, archive one (or start a live one), the versions writes
replaced and restoring one, delete; filter values."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, Router, delete, get, post
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Schema
from litestar.params import Body, QueryParameter

from api.http.audit import note_targets
from api.http.auth import require_scope
from api.http.params import OptionalDay, OptionalText, Service, SessionId
from api.http.problems import problem_responses
from api.http.scopes import ADMIN, READ, WRITE
from api.http.wire import SESSION_RECORD, START_SESSION
from api.service.indexing import IngestResult
from api.service.live import LiveSession, is_start_request
from api.service.sessions import ArchivedSession, Facets, SessionList
from api.service.versions import RestoreResult, VersionList
from models import ResumeHint, SessionStatus, record_session_id

__all__ = ["router"]


@get("/sessions", opt=READ, sync_to_thread=True, responses=problem_responses(400),
     summary="Session summaries, newest first")
def list_sessions_route(
    service: Service,
    since: OptionalDay = None,
    until: OptionalDay = None,
    channel: OptionalText = None,
    participant: OptionalText = None,
    status: Annotated[SessionStatus | None, QueryParameter(
        description="only sessions in this lifecycle status (ingested ones are archived)")] = None,
    category: OptionalText = None,
    limit: Annotated[int, QueryParameter(ge=1, le=500)] = 50,
    offset: Annotated[int, QueryParameter(ge=0)] = 0,
) -> SessionList:
    return service.list_sessions(since=since, until=until, channel=channel,
                                 participant=participant, status=status, category=category,
                                 limit=limit, offset=offset)


@get("/sessions/{session_id:str}", opt=READ, sync_to_thread=True,
     responses={200: ResponseSpec(ArchivedSession, description="the archive record as stored"),
                **problem_responses(400, 404)},
     summary="An archived session (redacted); with token_budget, its summary and newest messages")
def get_session_route(
    service: Service,
    session_id: SessionId,
    token_budget: Annotated[int | None, QueryParameter(ge=1)] = None,
) -> ArchivedSession:
    return service.session(session_id, token_budget)


@get("/sessions/{session_id:str}/resume", opt=READ, sync_to_thread=True, responses=problem_responses(400, 404),
     summary="The command that reopens an imported session in the agent that wrote it")
def resume_route(service: Service, session_id: SessionId) -> ResumeHint:
    return service.resume(session_id)


@post("/sessions", opt=WRITE, sync_to_thread=True, status_code=201,
      responses={200: ResponseSpec(IngestResult, description="the same session was already archived"),
                 **problem_responses(400, 409, 413, 503)},
      summary="Archive and index one session (archive format; unchanged sessions are a no-op), "
              "or, with no messages and no date, start a live session")
def post_session_route(request: Request, service: Service, data: Annotated[dict[str, Any], Body(
        schema_extra={"one_of": [Schema(**SESSION_RECORD), START_SESSION]})],
        replace: Annotated[bool, QueryParameter(description=(
            "replace the stored messages of an archived session (admin scope; without it, a "
            "record that drops or changes stored messages is refused with 409, and one that "
            "adds messages after them is taken); the replaced version is kept for restore"
        ))] = False,
        ) -> Response[IngestResult | LiveSession]:
    named = record_session_id(data)
    note_targets(request, [named] if named else [])
    if replace:
        require_scope(request, "admin", "replacing a session")
    if is_start_request(data):
        return Response(service.live.start(data), status_code=201)
    result = service.ingest_record(data, replace=replace)
    note_targets(request, [result.session_id])
    return Response(result, status_code=201 if result.changed else 200)


@get("/sessions/{session_id:str}/versions", opt=READ, sync_to_thread=True,
     responses=problem_responses(400, 404),
     summary="The versions of a session that writes replaced, kept for restore (newest first)")
def versions_route(service: Service, session_id: SessionId) -> VersionList:
    return service.versions.list(session_id)


@post("/sessions/{session_id:str}/restore", opt=ADMIN, sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 404, 409, 503),
      summary="Make a kept version the session again (the newest unless version is given); the "
              "version it replaces is kept in turn")
def restore_route(service: Service, session_id: SessionId,
                  version: Annotated[int | None, QueryParameter(ge=0)] = None) -> RestoreResult:
    return service.versions.restore(session_id, version)


@delete("/sessions/{session_id:str}", opt=ADMIN, sync_to_thread=True, status_code=204,
        responses=problem_responses(400, 404, 409, 503),
        summary="Remove a session from the archive and both indexes")
def delete_session_route(service: Service, session_id: SessionId) -> None:
    service.delete(session_id)


@get("/facets", opt=READ, sync_to_thread=True, responses=problem_responses(503),
     summary="Channels and participants with session counts, first and last date (for filters)")
def facets_route(service: Service) -> Facets:
    return service.facets()


router = Router(path="/", route_handlers=[list_sessions_route, get_session_route, resume_route,
                                          post_session_route, versions_route, restore_route,
                                          delete_session_route, facets_route])
