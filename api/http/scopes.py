"""What each route needs, declared where the route is: `@get("/stats", opt=READ)`.

Three scopes rank read < write < admin (indexer/stores/tokens.py). A route that only reads is
READ, whatever its method (a search sent as a POST body); one that changes what others rely on
(deletes, cleanup, restore, pruning) is ADMIN; the rest WRITE. PUBLIC is for what holds no data
and must load without a token (the search page, the health probe). The token guard, the audit
log and a replica's refusal of writes all read this declaration; `check_declared` refuses to
build an app with a route that makes none.
"""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.handlers.base import BaseRouteHandler
from litestar.routes import ASGIRoute, HTTPRoute

__all__ = ["ADMIN", "PUBLIC", "PUBLIC_KEY", "READ", "SCOPE_KEY", "WRITE", "check_declared",
           "declared_scope"]

SCOPE_KEY, PUBLIC_KEY = "recall_scope", "public"
READ: dict[str, Any] = {SCOPE_KEY: "read"}
WRITE: dict[str, Any] = {SCOPE_KEY: "write"}
ADMIN: dict[str, Any] = {SCOPE_KEY: "admin"}
PUBLIC: dict[str, Any] = {PUBLIC_KEY: True}


def declared_scope(handler: BaseRouteHandler) -> str | None:
    """The scope a route declared: read, write or admin; None for a public one."""
    if handler.opt.get(PUBLIC_KEY):
        return None
    if getattr(handler, "http_methods", None) == {"OPTIONS"}:
        return "read"  # Litestar's own answer with a path's allowed methods
    scope = handler.opt.get(SCOPE_KEY)
    if scope not in ("read", "write", "admin"):
        raise LookupError(f"route {handler.handler_name or handler} declares no scope")
    return str(scope)


def check_declared(app: Litestar) -> None:
    """Every route of the app says what it needs (or that it is public)."""
    missing = []
    for route in app.routes:
        if isinstance(route, HTTPRoute):
            handlers: list[BaseRouteHandler] = list(route.route_handlers)
        elif isinstance(route, ASGIRoute):
            handlers = [route.route_handler]
        else:
            continue
        for handler in handlers:
            try:
                declared_scope(handler)
            except LookupError:
                missing.append(f"{route.path} ({handler.handler_name})")
    if missing:
        raise RuntimeError("routes without a declared scope (opt=READ, WRITE, ADMIN or "
                           "PUBLIC): " + ", ".join(missing))
