"""The HTTP API: a thin Litestar app over one RecallService, built once at start-up."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

import msgspec
from litestar import Litestar, Response, Router, delete, get, post
from litestar.di import NamedDependency, Provide
from litestar.handlers import asgi
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.spec import Components, Schema, SecurityScheme
from litestar.params import Body, FromQuery, JSONBody, PathParameter, QueryParameter
from litestar.plugins.prometheus import PrometheusConfig
from litestar.types import Receive, Scope, Send
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Gauge, generate_latest

from api.http.auth import token_guard
from api.http.limits import read_body
from api.http.options import AllowHeader
from api.http.page import page_routes
from api.http.problems import EXCEPTION_HANDLERS, problem_responses
from api.http.routes.live import START_SESSION, LiveSession, live_routes
from api.http.routes.relevance import RELEVANCE_ROUTES
from api.http.routes.todos import todo_routes
from api.http.wire import (
    SESSION_RECORD,
    ArchivedSession,
    ConsistencyReport,
    Digest,
    Health,
    IngestResult,
    MemoriesPayload,
    PrunedSnapshots,
    SessionList,
    SnapshotList,
    Stats,
)
from api.mcp.server import build_mcp, mcp_lifespan, streamable_http_app
from api.service.core import RecallService
from api.service.limits import (
    MAX_CONTEXT_CHARS,
    MAX_ID_LENGTH,
    MAX_PARAM_CHARS,
    MAX_SNAPSHOT_ID_LENGTH,
)
from api.service.live import is_start_request
from api.service.requests import search_request
from api.settings import Settings
from models import (
    ChangeReport,
    RecallError,
    RecoveryDecision,
    RecoveryOptions,
    SearchRequest,
    SearchResponse,
    SessionStatus,
    Snapshot,
)
from models.hits import MemoryRank, SearchScope
from models.memory import MemoryType

__all__ = ["create_app"]

log = logging.getLogger(__name__)

SESSIONS_INDEXED = Gauge("recall_sessions_indexed", "Sessions in the archive and both indexes")
MESSAGES_INDEXED = Gauge("recall_messages_indexed", "Messages in the archive and both indexes")

Service = NamedDependency[RecallService]
Limit = Annotated[int, QueryParameter(ge=1, le=100, description="sessions to return")]
OptionalText = Annotated[str | None, QueryParameter(max_length=MAX_PARAM_CHARS)]
# schema_extra documents a rule the service checks itself, with a clearer message
OptionalDay = Annotated[str | None, QueryParameter(
    max_length=MAX_PARAM_CHARS, description="YYYY-MM-DD, YYYY-MM or YYYY; empty: no limit",
    schema_extra={"pattern": "^([0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?)?$"})]
SessionId = Annotated[str, PathParameter(min_length=1, max_length=MAX_ID_LENGTH)]
SnapshotId = Annotated[str, PathParameter(min_length=1, max_length=MAX_SNAPSHOT_ID_LENGTH)]
OptionalSnapshotId = Annotated[str | None, QueryParameter(max_length=MAX_SNAPSHOT_ID_LENGTH)]
# The query's length limit is a setting (the searcher checks it, for every interface):
# create_app puts this name into the signature namespace with the configured limit, so the
# schema says what the app checks.
SearchQuery = Annotated[str, QueryParameter()]


def _search_query(max_chars: int) -> Any:
    return Annotated[str, QueryParameter(
        description="the query (not blank); quote phrases with \"...\"",
        schema_extra={"min_length": 1, "max_length": max_chars, "pattern": r"\S"})]


@get("/search", sync_to_thread=True, responses=problem_responses(400, 503),
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
) -> SearchResponse:
    values = {"mode": mode, "date": date, "since": since, "until": until, "channel": channel,
              "participant": participant, "role": role, "session": session, "scope": search_scope,
              "memory_type": memory_type, "limit": limit, "memory_rank": memory_rank}
    return service.search(search_request(values, q))


@get("/sessions", sync_to_thread=True, responses=problem_responses(400),
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
    page = service.list_sessions(since=since, until=until, channel=channel, participant=participant,
                                 status=status, category=category, limit=limit, offset=offset)
    return msgspec.convert(page, SessionList)


@get("/sessions/{session_id:str}", sync_to_thread=True,
     responses={200: ResponseSpec(ArchivedSession, description="the archive record as stored"),
                **problem_responses(400, 404)},
     summary="An archived session (redacted); with token_budget, its summary and newest messages")
def get_session_route(
    service: Service,
    session_id: SessionId,
    token_budget: Annotated[int | None, QueryParameter(ge=1)] = None,
) -> dict[str, Any]:
    return service.session(session_id, token_budget)  # as stored: see ArchivedSession


@post("/sessions", sync_to_thread=True, status_code=201,
      responses={200: ResponseSpec(IngestResult, description="the same session was already archived"),
                 **problem_responses(400, 409, 413, 503)},
      summary="Archive and index one session (archive format; unchanged sessions are a no-op), "
              "or, with no messages and no date, start a live session")
def post_session_route(service: Service, data: Annotated[dict[str, Any], Body(
        schema_extra={"one_of": [Schema(**SESSION_RECORD), START_SESSION]})]
        ) -> Response[IngestResult | LiveSession]:
    if is_start_request(data):
        return Response(msgspec.convert(service.start_session(data), LiveSession), status_code=201)
    session_id, changed = service.ingest_record(data)
    return Response(IngestResult(session_id, True, changed), status_code=201 if changed else 200)


@delete("/sessions/{session_id:str}", sync_to_thread=True, status_code=204,
        responses=problem_responses(400, 404, 409, 503),
        summary="Remove a session from the archive and both indexes")
def delete_session_route(service: Service, session_id: SessionId) -> None:
    service.delete(session_id)


class MemoriesRequest(msgspec.Struct):
    types: Annotated[list[MemoryType], msgspec.Meta(max_length=8)] | None = None
    refine: bool = False  # revise with the LLM endpoint (RECALL_LLM_URL), when one is set


class RecoveryRequest(msgspec.Struct):
    session_id: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LENGTH)]
    context: Annotated[str, msgspec.Meta(max_length=MAX_CONTEXT_CHARS)] | None = None
    options: RecoveryOptions | None = None
    # compress the selected snapshot to about this many tokens
    token_budget: Annotated[int, msgspec.Meta(ge=1)] | None = None


@post("/sessions/{session_id:str}/memories", sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 404, 413),
      summary="Typed memories of a session (user, feedback, project, reference)")
def memories_route(service: Service, session_id: SessionId,
                   data: JSONBody[MemoriesRequest]) -> MemoriesPayload:
    payload = service.memories_payload(session_id, data.types, refine=data.refine)
    return msgspec.convert(payload, MemoriesPayload)


@get("/sessions/{session_id:str}/snapshots", sync_to_thread=True,
     responses=problem_responses(400, 404), summary="A session's snapshots, oldest first")
def list_snapshots_route(service: Service, session_id: SessionId) -> SnapshotList:
    return SnapshotList(session_id, service.snapshots(session_id))


@post("/sessions/{session_id:str}/snapshots", sync_to_thread=True, status_code=201,
      responses=problem_responses(400, 404),
      summary="Save the session's current state (its memories) as a snapshot")
def create_snapshot_route(service: Service, session_id: SessionId) -> Snapshot:
    return service.create_snapshot(session_id)


@post("/recovery", sync_to_thread=True, status_code=200, responses=problem_responses(400, 404, 413),
      summary="Choose the snapshot to resume a session from, with confidence, reasons, strategy")
def recovery_route(service: Service, data: JSONBody[RecoveryRequest]) -> RecoveryDecision:
    return service.recover(data.session_id, data.context, options=data.options,
                           token_budget=data.token_budget)


@delete("/sessions/{session_id:str}/snapshots", sync_to_thread=True, status_code=200,
        responses=problem_responses(400, 404),
        summary="Cleanup: delete all but the newest `keep` snapshots of a session")
def prune_snapshots_route(service: Service, session_id: SessionId,
                          keep: Annotated[int, QueryParameter(ge=1, description="how many to keep")]
                          ) -> PrunedSnapshots:
    deleted = service.prune_snapshots(session_id, keep)
    return PrunedSnapshots(session_id, deleted, service.snapshots(session_id))


@get("/sessions/{session_id:str}/snapshots/{snapshot_id:str}", sync_to_thread=True,
     responses=problem_responses(400, 404),
     summary="One snapshot; with token_budget, compressed to about that many tokens")
def get_snapshot_route(service: Service, session_id: SessionId, snapshot_id: SnapshotId,
                       token_budget: Annotated[int | None, QueryParameter(ge=1)] = None) -> Snapshot:
    return service.snapshot(session_id, snapshot_id, token_budget)


@get("/sessions/{session_id:str}/changes", sync_to_thread=True, responses=problem_responses(400, 404),
     summary="What changed since a snapshot (default the newest) up to now or another snapshot")
def changes_route(service: Service, session_id: SessionId, snapshot: OptionalSnapshotId = None,
                  against: OptionalSnapshotId = None) -> ChangeReport:
    return service.snapshot_changes(session_id, snapshot, against)


@get("/digest", sync_to_thread=True, responses=problem_responses(400),
     summary="Topics, open tasks and daily activity for a period")
def digest_route(service: Service, period: FromQuery[Literal["day", "week", "month"]] = "week",
                 date: Annotated[str | None, QueryParameter(
                     max_length=MAX_PARAM_CHARS, description="a day in the period; default today",
                     schema_extra={"format": "date"})] = None,
                 ) -> Digest:
    return msgspec.convert(service.digest(period, date), Digest)


@get("/facets", sync_to_thread=True, responses=problem_responses(503),
     summary="Channels and participants with session counts, first and last date (for filters)")
def facets_route(service: Service) -> dict[str, Any]:
    return service.facets()


@get("/stats", sync_to_thread=True, responses=problem_responses(503), summary="What is archived and indexed")
def stats_route(service: Service) -> Stats:
    return msgspec.convert(service.stats(), Stats)


@get("/check", sync_to_thread=True, responses=problem_responses(),
     summary="Whether archive, state, both indexes and memories agree (`recall check --json`)")
def check_route(service: Service) -> ConsistencyReport:
    return msgspec.convert(service.check(), ConsistencyReport)


@get("/healthz", sync_to_thread=True, responses=problem_responses(503),
     summary="200 when both indexes are open and consistent")
def health_route(service: Service) -> Health:
    return msgspec.convert(service.health(), Health)


@get("/metrics", sync_to_thread=True, include_in_schema=False)
def metrics_route(service: Service) -> Response[bytes]:
    """Prometheus text format: request counts and latencies by route, plus archive size."""
    try:
        counts = service.stats()
        SESSIONS_INDEXED.set(counts["sessions"])
        MESSAGES_INDEXED.set(counts["messages"])
    except RecallError:  # metrics must answer even when the index is down
        log.warning("could not read counts for /metrics", exc_info=True)
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)


def openapi_config(token: bool) -> OpenAPIConfig:
    """The schema at /schema/openapi.json; with a token, it says every route needs it."""
    if not token:
        return OpenAPIConfig(title="recall", version="1", path="/schema")
    return OpenAPIConfig(
        title="recall", version="1", path="/schema", security=[{"bearer": []}],
        components=Components(security_schemes={"bearer": SecurityScheme(type="http", scheme="bearer")}))


def create_app(settings: Settings, service: RecallService | None = None, *,
               host: str = "127.0.0.1") -> Litestar:
    """Build the app; the service (and its model) is created once and shared by every request,
    HTTP and MCP alike. `host` is the bind address: on loopback, MCP also rejects requests
    whose Host/Origin is not local (DNS-rebinding protection)."""
    service = service or RecallService(settings)
    mcp_server = build_mcp(service)  # one per app: its session manager runs once
    mcp_app = streamable_http_app(mcp_server, host=host)

    max_body = int(settings.max_body_mb * 1_000_000)

    @asgi(path="/mcp", is_mount=True, copy_scope=True)
    async def mcp_mount(scope: Scope, receive: Receive, send: Send) -> None:
        # the app-wide token guard has run; the body limit is applied here, since the MCP app
        # reads the body itself
        await mcp_app(scope, await read_body(scope, receive, max_body), send)  # type: ignore[arg-type]

    def warm_up(app: Litestar) -> None:
        # load the model (and the relevance floor's reference lines) at start-up, not on the
        # first requests, which would otherwise all wait for it
        if service.data.current_generation():
            try:
                service.search(SearchRequest(query="warm up"))
            except RecallError as exc:  # e.g. an index built with another model: say so, serve anyway
                log.warning("warm-up search failed: %s", exc.detail)

    v1 = Router(
        path="/v1",
        signature_namespace={"SearchQuery": _search_query(settings.max_query_chars)},
        route_handlers=[search_route, list_sessions_route, get_session_route, post_session_route,
                        delete_session_route, stats_route, memories_route, list_snapshots_route,
                        create_snapshot_route, prune_snapshots_route, get_snapshot_route, changes_route, recovery_route,
                        digest_route, facets_route, check_route, *todo_routes(), *RELEVANCE_ROUTES, *live_routes()],
    )
    allow = AllowHeader()
    app = Litestar(
        route_handlers=[v1, health_route, metrics_route, mcp_mount, *page_routes()],
        # every route: /v1, /mcp, /healthz, /metrics, /schema; not the page (api/page.py)
        guards=[token_guard(settings.api_token)],
        lifespan=[mcp_lifespan(mcp_server)],
        dependencies={"service": Provide(lambda: service, sync_to_thread=False)},
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        middleware=[PrometheusConfig(app_name="recall", prefix="recall", group_path=True,
                                     exclude=["/metrics"]).middleware],
        openapi_config=openapi_config(bool(settings.api_token)),
        request_max_body_size=max_body,
        on_startup=[warm_up, allow.on_startup],
        before_send=[allow.before_send],
        logging_config=None,  # logging belongs to the entry point (CLI), not the library
        debug=False,
    )
    return app
