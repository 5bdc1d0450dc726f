"""An import's ANN build, without the writer lock.

Training the ANN index of a table that has grown (IVF_HNSW_SQ at 100k sessions: a minute or
more on two cores) held the writer lock at the end of every large import, and live appends
waited for it until they were answered 409. Lance commits an index trained on an older version
over the appends and deletes committed since, so the build runs without the writer lock; it
holds the vector index's AnnBuild lock instead, taken under the writer lock, so that no writer
compacts the fragments it reads meanwhile (indexer/stores/vector_build.py). Should its commit
still meet a conflict, the build is done again under the writer lock, as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from indexer.embedding.embedders import Embedder
from indexer.ingest.generations import open_generation
from indexer.stores.generation import Generation
from indexer.stores.layout import DataDir
from indexer.stores.vector_build import AnnBuild

__all__ = ["PendingAnnBuild", "start_ann_build"]

log = logging.getLogger(__name__)

Lock = Callable[[], AbstractContextManager[object]]


@dataclass
class PendingAnnBuild:
    """An ANN build started under the writer lock (the tables due, AnnBuild held), to be run
    without it."""

    gen: Generation
    due: list[str]
    build: AnnBuild
    lock: Lock

    def run(self) -> list[str]:
        """Train the due tables' indexes; the tables built."""
        try:
            with self.build:
                try:
                    self.gen.vectors.build(self.due)
                except RuntimeError as exc:  # Lance's commit conflict, or a build that failed
                    log.warning("ANN build without the writer lock failed (%s); building under it",
                                exc)
                    with self.lock():
                        self.gen.vectors.build(self.due)
            self.gen.mark_changed()  # searchers reopen the tables: the new index is theirs
        finally:
            self.gen.close()
        return self.due


def start_ann_build(data: DataDir, embedder: Embedder, lock: Lock) -> PendingAnnBuild | None:
    """Under the writer lock, briefly: the tables the live generation's tables are due for
    (VectorIndex.due_indexes), with AnnBuild taken; None when nothing is due or another import
    is building them."""
    with lock():
        gen = open_generation(data, embedder)
        due = gen.vectors.due_indexes()
        build = AnnBuild(gen.vectors.path)
        if not due or not build.take():
            gen.close()
            return None
    return PendingAnnBuild(gen, due, build, lock)

