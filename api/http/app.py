"""The HTTP app: one Litestar app over one RecallService, assembled here from the routers."""

from __future__ import annotations

from typing import Any

from litestar import Litestar, Request, Router
from litestar.datastructures import State
from litestar.di import Provide
from litestar.handlers import asgi
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme
from litestar.plugins.prometheus import PrometheusConfig
from litestar.types import Receive, Scope, Send

from api.http.audit import audit_response
from api.http.auth import auth_required, replica_guard, request_context, token_guard
from api.http.discovery import ServerFile, prover, withdraw
from api.http.gate import AllowedHosts, Refusal, check_request, normalize_path
from api.http.limits import read_body
from api.http.options import AllowHeader
from api.http.page import page_routes
from api.http.params import search_query
from api.http.problems import EXCEPTION_HANDLERS, send_problem
from api.http.rate_limits import RateLimiter
from api.http.refusals import Refusals
from api.http.routes import (
    live,
    maintenance,
    memories,
    relevance,
    search,
    sessions,
    snapshots,
    todos,
)
from api.http.routes.probes import health_route, metrics_route
from api.http.scopes import READ, check_declared
from api.mcp.server import build_mcp, mcp_lifespan, streamable_http_app
from api.service import RecallService
from api.service.tenants import TenantServices
from api.settings import Settings
from indexer.stores.audit import CURRENT_AUDIT, AuditEntry, AuditLog
from indexer.stores.layout import DataDir
from models.principal import CURRENT_PRINCIPAL

__all__ = ["RecallApp", "create_app"]


class RecallApp(Litestar):
    """Litestar with the front door before routing (api/http/gate.py): the path normalized, a
    foreign Host, a change sent from another origin's page, a body that is not JSON refused."""

    def __init__(self, *, hosts: AllowedHosts, refusals: Refusals, **config: Any) -> None:
        super().__init__(**config)
        self.hosts = hosts
        self.refusals = refusals

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            normalize_path(scope)
            refusal = check_request(scope, self.hosts)
            if refusal is not None:
                await self._refuse(scope, send, refusal)
                return
        await super().__call__(scope, receive, send)

    async def _refuse(self, scope: Scope, send: Send, refusal: Refusal) -> None:
        if refusal.status == 415:  # a client's mistake, not a page's attempt: no audit line
            await send_problem(send, 415, refusal.detail)
            return
        client = str((scope.get("client") or ("-", 0))[0])
        wait = self.refusals.wait_needed(client)
        status = 429 if wait else refusal.status
        self.refusals.note(AuditEntry(0.0, "-", "-", f"{scope.get('method', 'GET')} {scope['path']}", [],
                                      str(status), client=client, note=refusal.detail))
        if wait:
            await send_problem(send, 429, f"too many refused requests from {client}; try again "
                               f"in {wait:.0f}s", [(b"retry-after",
                                                    RateLimiter.retry_after(wait).encode())])
            return
        await send_problem(send, refusal.status, refusal.detail)


def openapi_config(token: bool) -> OpenAPIConfig:
    """The schema at /schema/openapi.json; with a token, it says every route needs it. Its
    routes are Litestar's own, declared READ on the router that holds them."""
    schema_router = Router(path="/schema", route_handlers=[], opt=READ, include_in_schema=False)
    if not token:
        return OpenAPIConfig(title="recall", version="1", path="/schema",
                             openapi_router=schema_router)
    return OpenAPIConfig(
        title="recall", version="1", path="/schema", security=[{"bearer": []}],
        components=Components(security_schemes={"bearer": SecurityScheme(type="http", scheme="bearer")}),
        openapi_router=schema_router)


def create_app(settings: Settings, service: RecallService | None = None, *,
               host: str = "127.0.0.1", announced: ServerFile | None = None) -> RecallApp:
    """Build the app; the service (and its model) is created once and shared by every request,
    HTTP and MCP alike. `host` is the bind address: a request's Host must name it (or a
    loopback name, or one of RECALL_ALLOWED_HOSTS; api/http/gate.py). `announced` is the file `recall
    serve` wrote for the CLI (api/http/discovery.py): responses prove they come from its
    server, and the app removes the file when it shuts down (uvicorn ends the process with the
    signal that stopped it, so the CLI cannot do it afterwards)."""
    shared = service or RecallService(settings)
    # each request is answered by its token's tenant's service (api/service/tenants.py); the
    # tokens, the audit log and the server's own files are the data directory's, not a tenant's
    tenants = TenantServices(shared)
    home = DataDir(settings.home)
    mcp_server = build_mcp(tenants.routed())  # one per app: its session manager runs once
    mcp_app = streamable_http_app(mcp_server)
    refusals = Refusals(AuditLog(home), rate=settings.refusals_per_minute / 60,
                        burst=settings.refusals_per_minute)

    max_body = int(settings.max_body_mb * 1_000_000)

    @asgi(path="/mcp", is_mount=True, copy_scope=True, opt=READ)
    async def mcp_mount(scope: Scope, receive: Receive, send: Send) -> None:
        # the app-wide token guard has run; the body limit is applied here, since the MCP app
        # reads the body itself
        # MCP's tools read who asks, and where to note writes, from context variables: set here,
        # they reach the tasks and threads the MCP app runs the request in
        principal, audit = request_context(scope)
        CURRENT_PRINCIPAL.set(principal)
        CURRENT_AUDIT.set(audit)
        await mcp_app(scope, await read_body(scope, receive, max_body), send)  # type: ignore[arg-type]

    def tenant_service(request: Request) -> RecallService:
        return tenants.for_principal(request_context(request.scope)[0])

    def warm_up(app: Litestar) -> None:
        # at start-up, not on the first requests, which would otherwise all wait for the model
        shared.warm()

    v1 = Router(
        path="/v1",
        signature_namespace={"SearchQuery": search_query(settings.max_query_chars)},
        route_handlers=[search.router, sessions.router, maintenance.router, memories.router,
                        snapshots.router, todos.router, relevance.router, live.router],
    )
    allow = AllowHeader()
    app = RecallApp(
        hosts=AllowedHosts.parse(host, settings.allowed_hosts),
        refusals=refusals,
        route_handlers=[v1, health_route, metrics_route, mcp_mount, *page_routes()],
        # every route: /v1, /mcp, /healthz, /metrics, /schema; not the page (api/http/page.py)
        guards=[token_guard(settings.api_token, home, RateLimiter(
            settings.rate_limit, settings.rate_burst) if settings.rate_limit else None, refusals),
            replica_guard(shared)],
        lifespan=[mcp_lifespan(mcp_server)],
        dependencies={"service": Provide(tenant_service, sync_to_thread=False)},
        exception_handlers=EXCEPTION_HANDLERS,
        state=State({"home": home.root}),  # for telling a fault of its disk (problems.py)
        middleware=[PrometheusConfig(app_name="recall", prefix="recall", group_path=True,
                                     exclude=["/metrics"]).middleware],
        openapi_config=openapi_config(auth_required(settings.api_token, home)),
        request_max_body_size=max_body,
        on_startup=[warm_up, allow.on_startup],
        before_send=[allow.before_send, audit_response(refusals),
                     *([prover(announced.secret)] if announced else [])],
        on_shutdown=[lambda: refusals.flush(), *([lambda: withdraw(home.root, announced)]
                                       if announced else [])],
        logging_config=None,  # logging belongs to the entry point (CLI), not the library
        debug=False,
    )
    check_declared(app)  # every route says what scope it needs (api/http/scopes.py)
    return app
