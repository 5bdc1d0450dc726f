"""Ingest archived sessions into the archive, a Tantivy keyword index and a LanceDB vector table.

The names below are loaded on first use (PEP 562): importing a part of the package, such as
`indexer.stores.layout`, must not load the write path, LanceDB or a model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.lazy import lazy_names

if TYPE_CHECKING:
    from indexer.embedding.embedders import (
        Embedder,
        HashEmbedder,
        SentenceTransformerEmbedder,
        load_embedder,
    )
    from indexer.formats.sources import Rejection
    from indexer.ingest.ingestor import Ingestor
    from indexer.ingest.report import IndexReport
    from indexer.stores.layout import DataDir

__all__ = [
    "DataDir",
    "Embedder",
    "HashEmbedder",
    "IndexReport",
    "Ingestor",
    "Rejection",
    "SentenceTransformerEmbedder",
    "load_embedder",
]

# where each name is defined
_MODULES = {
    "DataDir": "indexer.stores.layout",
    "Embedder": "indexer.embedding.embedders",
    "HashEmbedder": "indexer.embedding.embedders",
    "IndexReport": "indexer.ingest.report",
    "Ingestor": "indexer.ingest.ingestor",
    "Rejection": "indexer.formats.sources",
    "SentenceTransformerEmbedder": "indexer.embedding.embedders",
    "load_embedder": "indexer.embedding.embedders",
}

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    __getattr__, __dir__ = lazy_names(__name__, _MODULES, globals())
