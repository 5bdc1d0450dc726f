"""Interfaces over the one service: the `recall` CLI, HTTP and MCP.

The names below are loaded on first use (PEP 562): importing an interface or `api.settings`
does not load the service, and importing `api.client` (the fast search client, standard library
only) loads nothing of recall's models either, so this file does without models.lazy."""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from api.service.core import RecallService
    from api.settings import Settings

__all__ = ["RecallService", "Settings"]

# where each name is defined
_MODULES = {"RecallService": "api.service.core", "Settings": "api.settings"}


if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    def __getattr__(name: str) -> object:
        if name not in _MODULES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = globals()[name] = getattr(importlib.import_module(_MODULES[name]), name)
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_MODULES})
