"""The HTTP app: one Litestar app over one RecallService, assembled here from the routers."""

from __future__ import annotations

from litestar import Litestar, Request, Router
from litestar.datastructures import State
from litestar.di import Provide
from litestar.handlers import asgi
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components, SecurityScheme
from litestar.plugins.prometheus import PrometheusConfig
from litestar.types import Receive, Scope, Send

from api.http.auth import audit_response, replica_guard, request_context, token_guard
from api.http.discovery import ServerFile, prover, withdraw
from api.http.limits import read_body
from api.http.options import AllowHeader
from api.http.page import page_routes
from api.http.params import search_query
from api.http.problems import EXCEPTION_HANDLERS
from api.http.rate_limits import RateLimiter
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
from api.mcp.server import build_mcp, mcp_lifespan, streamable_http_app
from api.service import RecallService
from api.service.tenants import TenantServices
from api.settings import Settings
from indexer.stores.audit import CURRENT_AUDIT
from indexer.stores.layout import DataDir
from models.principal import CURRENT_PRINCIPAL

__all__ = ["create_app"]



def openapi_config(token: bool) -> OpenAPIConfig:
    """The schema at /schema/openapi.json; with a token, it says every route needs it."""
    if not token:
        return OpenAPIConfig(title="recall", version="1", path="/schema")
    return OpenAPIConfig(
        title="recall", version="1", path="/schema", security=[{"bearer": []}],
        components=Components(security_schemes={"bearer": SecurityScheme(type="http", scheme="bearer")}))


def create_app(settings: Settings, service: RecallService | None = None, *,
               host: str = "127.0.0.1", announced: ServerFile | None = None) -> Litestar:
    """Build the app; the service (and its model) is created once and shared by every request,
    HTTP and MCP alike. `host` is the bind address: on loopback, MCP also rejects requests
    whose Host/Origin is not local (DNS-rebinding protection). `announced` is the file `recall
    serve` wrote for the CLI (api/http/discovery.py): responses prove they come from its
    server, and the app removes the file when it shuts down (uvicorn ends the process with the
    signal that stopped it, so the CLI cannot do it afterwards)."""
    shared = service or RecallService(settings)
    # each request is answered by its token's tenant's service (api/service/tenants.py); the
    # tokens, the audit log and the server's own files are the data directory's, not a tenant's
    tenants = TenantServices(shared)
    home = DataDir(settings.home)
    mcp_server = build_mcp(tenants.routed())  # one per app: its session manager runs once
    mcp_app = streamable_http_app(mcp_server, host=host)

    max_body = int(settings.max_body_mb * 1_000_000)

    @asgi(path="/mcp", is_mount=True, copy_scope=True)
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
    return Litestar(
        route_handlers=[v1, health_route, metrics_route, mcp_mount, *page_routes()],
        # every route: /v1, /mcp, /healthz, /metrics, /schema; not the page (api/http/page.py)
        guards=[token_guard(settings.api_token, home, RateLimiter(
            settings.rate_limit, settings.rate_burst) if settings.rate_limit else None),
            replica_guard(shared)],
        lifespan=[mcp_lifespan(mcp_server)],
        dependencies={"service": Provide(tenant_service, sync_to_thread=False)},
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        state=State({"home": home.root}),  # for telling a fault of its disk (problems.py)
        middleware=[PrometheusConfig(app_name="recall", prefix="recall", group_path=True,
                                     exclude=["/metrics"]).middleware],
        openapi_config=openapi_config(bool(settings.api_token)),
        request_max_body_size=max_body,
        on_startup=[warm_up, allow.on_startup],
        before_send=[allow.before_send, audit_response,
                     *([prover(announced.secret)] if announced else [])],
        on_shutdown=[lambda: withdraw(home.root, announced)] if announced else [],
        logging_config=None,  # logging belongs to the entry point (CLI), not the library
        debug=False,
    )
