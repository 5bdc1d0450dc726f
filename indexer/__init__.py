"""Ingest archived sessions into the archive, a Tantivy keyword index and a LanceDB vector table."""

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
