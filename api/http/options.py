"""OPTIONS answers list every method of a path.

Litestar 2 builds a path's default OPTIONS handler when the path's first handler is registered,
and later handlers on the same path never reach its Allow header (litestar#4169, fixed in 3):
`OPTIONS /v1/sessions` said "GET, OPTIONS" and left out POST. This hook rewrites Allow on OPTIONS
responses from the app's finished routes.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.routes import HTTPRoute
from litestar.types import Message, Scope

__all__ = ["AllowHeader"]


class AllowHeader:
    def __init__(self) -> None:
        self._allow: dict[str, bytes] = {}

    def on_startup(self, app: Litestar) -> None:
        self._allow = {route.path_format: ", ".join(sorted(route.methods)).encode()
                       for route in app.routes if isinstance(route, HTTPRoute)}

    async def before_send(self, message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start" or scope.get("method") != "OPTIONS":
            return
        allow = self._allow.get(scope.get("path_template", ""))
        if allow is not None:
            headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"allow"]
            message["headers"] = [*headers, (b"allow", allow)]
