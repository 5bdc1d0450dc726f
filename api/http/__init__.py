"""The HTTP API: a Litestar app over the service, its routes, limits and the search page."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from api.http.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    # loaded on first use: `api.http.discovery` is read by every CLI run, Litestar is not
    if name == "create_app":
        from api.http.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
