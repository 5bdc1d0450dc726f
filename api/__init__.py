"""Interfaces over the one service: the `recall` CLI, HTTP and MCP.

The names below are loaded on first use (PEP 562): importing an interface or `api.settings`
does not load the service."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.lazy import lazy_names

if TYPE_CHECKING:
    from api.service.core import RecallService
    from api.settings import Settings

__all__ = ["RecallService", "Settings"]

# where each name is defined
_MODULES = {"RecallService": "api.service.core", "Settings": "api.settings"}

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    __getattr__, __dir__ = lazy_names(__name__, _MODULES, globals())
