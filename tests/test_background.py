"""The relevance floor's reference lines: embedded once per process, and with an embedder that
names its exact weights, once per model (kept in the data directory's cache)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from indexer.embedding.embedders import HashEmbedder
from search.background import GENERIC_LINES_EN, GENERIC_LINES_ZH, Background


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting the passages it embeds."""

    def __init__(self, version: str | None) -> None:
        super().__init__(64)
        self.version = version
        self.embedded = 0

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        return super().embed_passages(texts)


LINES = len(GENERIC_LINES_EN) + len(GENERIC_LINES_ZH)


def test_lines_are_embedded_once_and_kept_for_the_next_process(tmp_path: Path) -> None:
    first = CountingEmbedder("weights-1")
    query = HashEmbedder(64).embed_query("which database did we pick")
    floor = Background(first, tmp_path).floor(query)
    assert first.embedded == LINES and len(list(tmp_path.glob("background-*.npy"))) == 1

    later = CountingEmbedder("weights-1")  # another process, the same model
    assert Background(later, tmp_path).floor(query) == floor
    assert later.embedded == 0


def test_other_weights_or_no_version_embed_again(tmp_path: Path) -> None:
    Background(CountingEmbedder("weights-1"), tmp_path).prepare()
    other = CountingEmbedder("weights-2")
    Background(other, tmp_path).prepare()
    unnamed = CountingEmbedder(None)
    Background(unnamed, tmp_path).prepare()
    assert other.embedded == LINES and unnamed.embedded == LINES
    assert len(list(tmp_path.glob("background-*.npy"))) == 2


def test_a_damaged_cache_file_is_replaced(tmp_path: Path) -> None:
    Background(CountingEmbedder("weights-1"), tmp_path).prepare()
    (cached,) = tmp_path.glob("background-*.npy")
    cached.write_bytes(b"not numpy")
    again = CountingEmbedder("weights-1")
    Background(again, tmp_path).prepare()
    assert again.embedded == LINES and np.load(cached).shape == (LINES, 64)
