"""Guards of every HTTP route: bearer-token auth (the API, /mcp, /healthz, /metrics and the OpenAPI
schema) once RECALL_API_TOKEN is set or `recall tokens` made a token, and no writes to a
read-only replica."""

from __future__ import annotations

import hmac
import time
from typing import TYPE_CHECKING

from litestar.connection import ASGIConnection
from litestar.exceptions import (
    NotAuthorizedException,
    PermissionDeniedException,
    TooManyRequestsException,
)
from litestar.handlers.base import BaseRouteHandler
from litestar.types import Scope

from api.http.rate_limits import RateLimiter
from api.http.refusals import Refusals
from api.http.scopes import PUBLIC_KEY, declared_scope
from indexer.stores.audit import AuditLog
from indexer.stores.layout import DataDir
from indexer.stores.tokens import TokenStore, scope_covers
from models.principal import DEFAULT_TENANT, LOCAL, Principal

if TYPE_CHECKING:
    from api.service import RecallService

__all__ = ["Unauthenticated", "auth_required", "authenticate", "needed_scope", "replica_guard",
           "require_scope", "token_guard"]


# what the guard leaves in a request's scope state: the audit log, who the request acts for, the
# scope it needs, and, for a refused one, who it named (for its audit line)
AUDIT_KEY, PRINCIPAL_KEY, SCOPE_KEY = "recall_audit", "recall_principal", "recall_scope"
REFUSED_KEY = "recall_refused"


def request_context(scope: Scope) -> tuple[Principal | None, AuditLog | None]:
    """Who a request acts for, and the audit log, as the guard left them in its scope."""
    state = scope.get("state", {})
    return state.get(PRINCIPAL_KEY), state.get(AUDIT_KEY)


# A client may name the tenant it means to act for; a token of another tenant is then refused
# (403) instead of answering from its own tenant's data, which is what a request without it gets.
TENANT_HEADER = "x-recall-tenant"

def replica_guard(service: RecallService):
    """On a read-only replica (`recall serve --from`), writes are refused before any body is
    read; MCP's write tools are not offered there (api/mcp/server.py)."""

    def guard(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
        if service.replica_of and needed_scope(handler) != "read":
            service.refuse_writes_if_replica()

    return guard


def needed_scope(handler: BaseRouteHandler) -> str:
    """The scope a route declared where it is defined (api/http/scopes.py); /mcp needs read to
    connect, and each tool checks its own (api/mcp/results.py)."""
    return declared_scope(handler) or "read"


def require_scope(request: ASGIConnection, needed: str, what: str) -> None:
    """403 unless the request's principal holds `needed`: for what a route does only on some
    requests (POST /v1/sessions with replace=true)."""
    principal = request.scope.get("state", {}).get(PRINCIPAL_KEY)
    if principal is not None and not scope_covers(principal.scope, needed):
        request.scope["state"][REFUSED_KEY] = (principal.tenant, principal.name,
                                               f"scope {principal.scope}")
        raise PermissionDeniedException(
            f"token {principal.name!r} has scope {principal.scope}; {what} needs {needed}")


def token_guard(token: str | None, data: DataDir, limiter: RateLimiter | None = None,
                refusals: Refusals | None = None):
    """A guard for the whole app: Litestar runs app-level guards for every route handler,
    mounted ASGI apps (/mcp) and the OpenAPI routes included, before any body is read. 401 for
    no token or one unknown, expired or revoked; 403 for one whose scope is too narrow or that
    belongs to another tenant than the request names; past a client's budget of refusals, 429
    (api/http/refusals.py)."""

    def guard(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
        if handler.opt.get(PUBLIC_KEY):
            return
        # kept in the request's scope for the audit log (api/http/audit.py) and MCP's tools
        # (api/http/app.py hands them on): Litestar may run a guard outside the request's task
        needed = needed_scope(handler)
        state = connection.state
        state[AUDIT_KEY] = AuditLog(data)
        state[SCOPE_KEY] = needed
        state[PRINCIPAL_KEY] = None
        try:
            principal = _admit(token, data, connection, needed)
        except (NotAuthorizedException, PermissionDeniedException):
            client = connection.client.host if connection.client else "-"
            wait = refusals.wait_needed(client) if refusals else 0.0
            if wait:
                raise TooManyRequestsException(
                    f"too many refused requests from {client}; try again in {wait:.0f}s",
                    headers={"Retry-After": RateLimiter.retry_after(wait)}) from None
            raise
        state[PRINCIPAL_KEY] = principal
        wait = limiter.wait_needed(principal.name) if limiter else 0.0
        if limiter and wait:
            raise TooManyRequestsException(
                f"token {principal.name!r} may send {limiter.rate:g} requests a second (bursts "
                f"of {limiter.burst}); try again in {wait:.1f}s",
                headers={"Retry-After": RateLimiter.retry_after(wait)})

    return guard


def _admit(token: str | None, data: DataDir, connection: ASGIConnection,
           needed: str) -> Principal:
    """The principal a request acts for, once its token, tenant and scope hold; what a refused
    one named is left in its state for the audit line."""
    state = connection.state
    try:
        principal = authenticate(token, data, connection.headers.get("authorization", ""))
    except Unauthenticated as refused:
        state[REFUSED_KEY] = (refused.tenant, refused.name, refused.reason)
        raise
    named = connection.headers.get(TENANT_HEADER)
    if named is not None and named != principal.tenant:
        state[REFUSED_KEY] = (principal.tenant, principal.name, f"named tenant {named!r}")
        raise PermissionDeniedException(
            f"token {principal.name!r} is for tenant {principal.tenant!r}; this request "
            f"names tenant {named[:80]!r}")
    if not scope_covers(principal.scope, needed):
        state[REFUSED_KEY] = (principal.tenant, principal.name, f"scope {principal.scope}")
        raise PermissionDeniedException(
            f"token {principal.name!r} has scope {principal.scope}; this needs {needed}")
    return principal


class Unauthenticated(NotAuthorizedException):
    """401: the request names no live token. A token known but revoked or expired is named
    (to its holder, and in the audit log); an unknown one is not."""

    def __init__(self, detail: str, name: str = "-", tenant: str = "-", reason: str = "") -> None:
        super().__init__(detail)
        self.name, self.tenant, self.reason = name, tenant, reason


def auth_required(token: str | None, data: DataDir) -> bool:
    """Whether requests need a token: RECALL_API_TOKEN is set, or the token store holds one."""
    if token is not None:
        return True
    with TokenStore(data) as store:
        return store.any()


def authenticate(token: str | None, data: DataDir, header: str) -> Principal:
    """Who a request's Authorization header names; Unauthenticated when nobody."""
    scheme, _, given = header.partition(" ")
    given = given.strip() if scheme.lower() == "bearer" else ""
    with TokenStore(data) as store:
        if token is None and not store.any():
            return LOCAL  # no token set anywhere: one person's machine, as before tokens
        # compare in constant time, so response timing says nothing about the token
        if token is not None and given and hmac.compare_digest(given.encode(), token.encode()):
            return Principal("RECALL_API_TOKEN", DEFAULT_TENANT, "admin")
        found = store.find(given) if given else None
    if found is None:
        raise Unauthenticated("a valid 'Authorization: Bearer <token>' header is required",
                              reason="no token" if not given else "unknown token")
    now = time.time()
    if found.live(now):
        return Principal(found.name, found.tenant, found.scope)
    reason = "revoked" if found.revoked is not None else "expired"
    raise Unauthenticated(f"token {found.name!r} was {reason}: ask for a new one",
                          found.name, found.tenant, reason)
