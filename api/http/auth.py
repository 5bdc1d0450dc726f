"""Guards of every HTTP route: bearer-token auth (the API, /mcp, /healthz, /metrics and the OpenAPI
schema) when RECALL_API_TOKEN is set, and no writes to a read-only replica."""

from __future__ import annotations

import hmac
import time
from typing import TYPE_CHECKING
from urllib.parse import unquote

from litestar.connection import ASGIConnection
from litestar.exceptions import (
    NotAuthorizedException,
    PermissionDeniedException,
    TooManyRequestsException,
)
from litestar.handlers.base import BaseRouteHandler
from litestar.types import Message, Scope

from api.http.rate_limits import RateLimiter
from indexer.stores.audit import AuditLog
from indexer.stores.layout import DataDir
from indexer.stores.tokens import TokenStore, scope_covers
from models.principal import DEFAULT_TENANT, LOCAL, Principal

if TYPE_CHECKING:
    from api.service import RecallService

__all__ = ["PUBLIC", "READING_POSTS", "authenticate", "bearer_ok", "needed_scope",
           "replica_guard", "token_guard"]


def bearer_ok(token: str | None, header: str | bytes) -> bool:
    """True when no token is configured, or the Authorization header carries it."""
    if token is None:
        return True
    if isinstance(header, bytes):
        header = header.decode("latin-1")
    scheme, _, given = header.partition(" ")
    # compare in constant time, so response timing says nothing about the token
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


# a route handler's opt key for what holds no data and must load without the token (the
# search page, which is what asks the user for it)
PUBLIC = "public"


# what the guard leaves in a request's scope state
AUDIT_KEY, PRINCIPAL_KEY, SCOPE_KEY = "recall_audit", "recall_principal", "recall_scope"


def request_context(scope: Scope) -> tuple[Principal | None, AuditLog | None]:
    """Who a request acts for, and the audit log, as the guard left them in its scope."""
    state = scope.get("state", {})
    return state.get(PRINCIPAL_KEY), state.get(AUDIT_KEY)


# A client may name the tenant it means to act for; a token of another tenant is then refused
# (403) instead of answering from its own tenant's data, which is what a request without it gets.
TENANT_HEADER = "x-recall-tenant"

# POST routes that only read: everything else but GET and HEAD writes
READING_POSTS = {"pack_route", "recovery_route", "memories_route"}


def replica_guard(service: RecallService):
    """On a read-only replica (`recall serve --from`), writes are refused before any body is
    read; MCP's write tools are not offered there (api/mcp/server.py)."""

    def guard(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
        if service.replica_of and needed_scope(handler) != "read":
            service.refuse_writes_if_replica()

    return guard


# handlers that change or remove what others rely on: admin scope (deletes need it too)
ADMIN_HANDLERS = {"cleanup_route", "relevance_prune_route", "relevance_decay_route"}


def needed_scope(handler: BaseRouteHandler) -> str:
    """read for what only reads, admin for deletes and maintenance, write for the rest; /mcp
    needs read to connect, and each tool checks its own (api/mcp/results.py)."""
    methods: set[str] = getattr(handler, "http_methods", set()) or set()
    if not methods or methods <= {"GET", "HEAD", "OPTIONS"} or handler.handler_name in READING_POSTS:
        return "read"
    if "DELETE" in methods or handler.handler_name in ADMIN_HANDLERS:
        return "admin"
    return "write"


def token_guard(token: str | None, data: DataDir, limiter: RateLimiter | None = None):
    """A guard for the whole app: Litestar runs app-level guards for every route handler,
    mounted ASGI apps (/mcp) and the OpenAPI routes included, before any body is read. 401 for
    no token or one unknown, expired or revoked; 403 for one whose scope is too narrow."""

    def guard(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
        if handler.opt.get(PUBLIC):
            return
        # kept in the request's scope for the audit log (audit_response) and MCP's tools
        # (api/http/app.py hands them on): Litestar may run a guard outside the request's task
        needed = needed_scope(handler)
        connection.state[AUDIT_KEY] = AuditLog(data)
        connection.state[SCOPE_KEY] = needed
        connection.state[PRINCIPAL_KEY] = None
        principal = authenticate(token, data, connection.headers.get("authorization", ""))
        connection.state[PRINCIPAL_KEY] = principal
        named = connection.headers.get(TENANT_HEADER)
        if named is not None and named != principal.tenant:
            raise PermissionDeniedException(
                f"token {principal.name!r} is for tenant {principal.tenant!r}; this request "
                f"names tenant {named[:80]!r}")
        if not scope_covers(principal.scope, needed):
            raise PermissionDeniedException(
                f"token {principal.name!r} has scope {principal.scope}; this needs {needed}")
        wait = limiter.wait_needed(principal.name) if limiter else 0.0
        if limiter and wait:
            raise TooManyRequestsException(
                f"token {principal.name!r} may send {limiter.rate:g} requests a second (bursts "
                f"of {limiter.burst}); try again in {wait:.1f}s",
                headers={"Retry-After": RateLimiter.retry_after(wait)})

    return guard


async def audit_response(message: Message, scope: Scope) -> None:
    """before_send: note each write over /v1 and each refused request (401, 403) in the audit
    log, with the ids in its path; MCP's tools note their own writes (api/mcp/results.py)."""
    if message["type"] != "http.response.start":
        return
    state = scope.get("state", {})
    audit, status = state.get(AUDIT_KEY), int(message["status"])
    # a mounted app's (/mcp) scope path is what lies below the mount: the request's own is raw
    raw = scope.get("raw_path")
    path = unquote(raw.decode("latin-1")) if raw else scope.get("path", "")
    method = scope.get("method", "GET")
    denied = status in (401, 403)
    writes = state.get(SCOPE_KEY, "read") != "read" and path.startswith("/v1/")
    if audit is None or not (denied or writes):
        return
    principal = state.get(PRINCIPAL_KEY)
    parts = path.strip("/").split("/")
    targets = [parts[2]] if len(parts) > 2 and parts[1] in ("sessions", "todos") else []
    audit.append(principal.tenant if principal else "-", principal.name if principal else "-",
                 f"{method} {path}", targets, str(status))


def authenticate(token: str | None, data: DataDir, header: str) -> Principal:
    """Who a request's Authorization header names; NotAuthorizedException when nobody."""
    with TokenStore(data) as store:
        if token is None and not store.any():
            return LOCAL  # no token set anywhere: one person's machine, as before tokens
        scheme, _, given = header.partition(" ")
        given = given.strip()
        if scheme.lower() == "bearer" and given:
            if token is not None and hmac.compare_digest(given.encode(), token.encode()):
                return Principal("RECALL_API_TOKEN", DEFAULT_TENANT, "admin")
            found = store.find(given)
            if found is not None and found.live(time.time()):
                return Principal(found.name, found.tenant, found.scope)
    raise NotAuthorizedException("a valid 'Authorization: Bearer <token>' header is required")
