"""Package names loaded on first use (PEP 562), so that importing one part of a package does not
load the rest of it and the libraries behind it."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, homes: dict[str, str], namespace: dict[str, Any],
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__`: each name of ``homes`` (name -> module) is
    imported from its module the first time it is asked for, then kept in ``namespace``.

        if not TYPE_CHECKING:  # mypy reads the real imports; an unknown name stays an error
            __getattr__, __dir__ = lazy_names(__name__, {"Searcher": "search.searcher"}, globals())
    """

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = namespace[name] = getattr(importlib.import_module(homes[name]), name)
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *homes})

    return __getattr__, __dir__
