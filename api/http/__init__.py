"""The HTTP API: a Litestar app over the service, its routes, limits and the search page.

`create_app` loads on first use: `api.http.discovery` is read by every CLI run, Litestar is not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.lazy import lazy_names

if TYPE_CHECKING:
    from api.http.app import create_app

__all__ = ["create_app"]

if not TYPE_CHECKING:  # mypy reads the import above; an unknown name stays an error for it
    __getattr__, __dir__ = lazy_names(__name__, {"create_app": "api.http.app"}, globals())
