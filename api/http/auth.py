"""Guards of every HTTP route: bearer-token auth (the API, /mcp, /healthz, /metrics and the OpenAPI
schema) when RECALL_API_TOKEN is set, and no writes to a read-only replica."""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException
from litestar.handlers.base import BaseRouteHandler

if TYPE_CHECKING:
    from api.service import RecallService

__all__ = ["PUBLIC", "READING_POSTS", "bearer_ok", "replica_guard", "token_guard"]


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


# POST routes that only read: everything else but GET and HEAD writes
READING_POSTS = {"pack_route", "recovery_route", "memories_route"}


def replica_guard(service: RecallService):
    """On a read-only replica (`recall serve --from`), writes are refused before any body is
    read; MCP's write tools are not offered there (api/mcp/server.py)."""

    def guard(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
        methods: set[str] = getattr(handler, "http_methods", set()) or set()
        if (service.replica_of and methods - {"GET", "HEAD", "OPTIONS"}
                and handler.handler_name not in READING_POSTS):
            service.refuse_writes_if_replica()

    return guard


def token_guard(token: str | None):
    """A guard for the whole app: Litestar runs app-level guards for every route handler,
    mounted ASGI apps (/mcp) and the OpenAPI routes included, before any body is read."""

    def guard(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
        if handler.opt.get(PUBLIC):
            return
        if not bearer_ok(token, connection.headers.get("authorization", "")):
            raise NotAuthorizedException("a valid 'Authorization: Bearer <token>' header is required")

    return guard
