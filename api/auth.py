"""Bearer-token auth for /v1 routes when RECALL_API_TOKEN is set."""

from __future__ import annotations

import hmac

from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException
from litestar.handlers.base import BaseRouteHandler

__all__ = ["token_guard"]


def token_guard(token: str | None):  # noqa: ANN201 - a Litestar guard
    def guard(connection: ASGIConnection, _: BaseRouteHandler) -> None:
        if token is None:
            return
        header = connection.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        # compare in constant time, so response timing says nothing about the token
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
            raise NotAuthorizedException("a valid 'Authorization: Bearer <token>' header is required")

    return guard
