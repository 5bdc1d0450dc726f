"""multilingual-e5-small as recall serves it: the int8 ONNX export, run without torch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from indexer.embedding.e5.stamp import ONNX_MARKER_NAME, read_marker
from indexer.embedding.onnx_encoder import OnnxEncoder

__all__ = ["E5Embedder"]


class E5Embedder:
    """Queries on a one-thread session; bulk passages on a session with every core.

    One thread for a single query: two threads stall when the other core is busy (an ingest,
    another process), because they wait on each other. Constructing it opens nothing: the
    query session opens on the first query or on `warm()`, the bulk one on the first bulk
    passages.
    """

    multilingual = True
    similarity_floor = 0.0  # e5 puts unrelated text at 0.78-0.86: only the margin separates
    SMALL = 32  # up to this many passages (a search's background lines), the query session

    def __init__(self, folder: Path, *, name: str, similarity_margin: float,
                 batch_size: int = 32, bulk_threads: int = 0) -> None:
        self.queries = OnnxEncoder(folder, threads=1)
        self.bulk = OnnxEncoder(folder, threads=bulk_threads)  # 0: one per physical core
        self.name = name
        self.similarity_margin = similarity_margin
        self.batch_size = batch_size
        # names the exact weights, for caches of derived vectors (search/background.py)
        marker = read_marker(Path(folder), ONNX_MARKER_NAME) or {}
        self.version: str | None = marker.get("weights_sha256")
        self._query_prompt = self.queries.prompts.get("query", "")
        self._passage_prompt = self.queries.prompts.get("passage", "")

    @property
    def dim(self) -> int:
        return self.queries.dim

    def warm(self) -> None:
        """Open the query session now (serve and mcp call this at start-up)."""
        self.queries.warm()

    def embed_query(self, text: str) -> np.ndarray:
        return self.queries.encode([text], self._query_prompt)[0]

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        encoder = self.queries if len(texts) <= self.SMALL else self.bulk
        return encoder.encode(texts, self._passage_prompt, self.batch_size)
