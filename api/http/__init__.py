"""The HTTP API: a Litestar app over the service, its routes, limits and the search page."""

from api.http.app import create_app

__all__ = ["create_app"]
