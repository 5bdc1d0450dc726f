"""What a batch of sessions becomes in the stores, computed apart from writing it.

Computing (extracting memories, analysing keyword text, embedding) is most of an ingest's time
and reads nothing of the data directory, so it can run anywhere: in the writer's process, or on
Ray workers (indexer/distributed/). The writer then commits the result (write.py), the same
way whichever computed it."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import pyarrow as pa

from indexer.embedding.embedders import Embedder, PassageCache
from indexer.ingest.prepare import Prepared
from indexer.memories.extract import extract_memories_batch
from indexer.stores.documents import memory_documents, session_documents, split_passages
from indexer.stores.facts import Statement, is_linked, statements_of
from indexer.stores.keyword import KeywordFields, keyword_fields
from indexer.stores.layout import DataDir
from indexer.stores.relevance import pruned_ids
from indexer.stores.vector import vector_rows
from models import Memory, Session

__all__ = ["BatchComputer", "Batches", "ComputedBatch", "LocalComputer", "compute_batch",
           "compute_prepared"]


@dataclass(frozen=True, slots=True)
class ComputedBatch:
    """Everything a batch writes besides its archive files and state rows."""

    session_ids: list[str]
    memories: list[list[Memory]]  # per session, the pruned ones left out
    statements: list[tuple[str, list[Statement]]]  # per session, for the fact store
    keyword: list[KeywordFields]  # analysed keyword documents
    vectors: dict[str, pa.Table]  # the passage rows of each vector table (Arrow)

    @property
    def passages(self) -> int:
        return sum(table.num_rows for table in self.vectors.values())


def compute_batch(sessions: Sequence[Session], embedder: Embedder,
                  pruned: Collection[str] = ()) -> ComputedBatch:
    """The documents, memories, statements and vectors of these sessions; memories whose ids
    are in `pruned` (tombstoned before) are left out, so a reindex does not bring them back."""
    cache = PassageCache(embedder)  # memory texts embedded for de-duplication are reused
    extracted = [[m for m in memories if m.id not in pruned]
                 for memories in extract_memories_batch(sessions, embedder=cache)]
    docs = [d for s in sessions for d in session_documents(s)]
    statements = []
    for session, memories in zip(sessions, extracted, strict=True):
        docs += memory_documents(session, memories)
        linked = [m for m in memories if is_linked(m)]
        statements.append((session.session_id,
                           statements_of(session, linked, cache.embed_passages(
                               [m.text for m in linked]))))
    passages = [passage for doc in docs for passage in split_passages(doc)]
    vectors = cache.embed_passages([p.embed_text for p in passages])
    return ComputedBatch([s.session_id for s in sessions], extracted, statements,
                         [keyword_fields(d) for d in docs],
                         vector_rows(passages, vectors, embedder.dim))


Batches = Iterable[Sequence[Prepared]]


class BatchComputer(Protocol):
    """Computes batches of prepared sessions, handing them back in the order given."""

    def compute(self, data: DataDir,
                batches: Batches) -> Iterator[tuple[Sequence[Prepared], ComputedBatch]]:
        """The batches, computed, for data's writer (its pruned memories are left out)."""
        ...


class LocalComputer:
    """Computes each batch in this process when the writer asks for it: nothing runs ahead."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def compute(self, data: DataDir,
                batches: Batches) -> Iterator[tuple[Sequence[Prepared], ComputedBatch]]:
        for batch in batches:
            yield batch, compute_prepared(data, batch, self.embedder)


def compute_prepared(data: DataDir, batch: Sequence[Prepared],
                     embedder: Embedder) -> ComputedBatch:
    """compute_batch for prepared sessions, leaving out what was pruned from them."""
    return compute_batch([p.session for p in batch], embedder,
                         pruned_ids(data, [p.session.session_id for p in batch]))
