"""The one service that CLI, HTTP and MCP share, made of parts.

RecallService is loaded on first use (PEP 562): an interface importing a part such as
`api.service.requests` does not load the service, its indexes and their libraries."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from api.service.core import RecallService

__all__ = ["RecallService"]

# where each name is defined
_MODULES = {"RecallService": "api.service.core"}

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it

    def __getattr__(name: str) -> object:
        if name not in _MODULES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = globals()[name] = getattr(importlib.import_module(_MODULES[name]), name)
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
