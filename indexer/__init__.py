"""Ingest archived sessions into the archive, a Tantivy keyword index and a LanceDB vector table."""

from .embedders import Embedder, HashEmbedder, SentenceTransformerEmbedder, load_embedder
from .ingest import IndexReport, Ingestor, Rejection
from .layout import DataDir

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
