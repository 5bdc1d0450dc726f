"""The one service that CLI, HTTP and MCP share, made of parts.

RecallService is loaded on first use (PEP 562): an interface importing a part such as
`api.service.search_params` does not load the service, its indexes and their libraries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.lazy import lazy_names

if TYPE_CHECKING:
    from api.service.core import RecallService

__all__ = ["RecallService"]

# where each name is defined
_MODULES = {"RecallService": "api.service.core"}

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    __getattr__, __dir__ = lazy_names(__name__, _MODULES, globals())
