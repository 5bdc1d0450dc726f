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

from indexer.embedding.embedders import Embedder
from indexer.ingest.generations import open_generation
from indexer.stores.layout import DataDir
from indexer.stores.vector_build import AnnBuild

__all__ = ["build_ann_unlocked"]

log = logging.getLogger(__name__)

Lock = Callable[[], AbstractContextManager[object]]


def build_ann_unlocked(data: DataDir, embedder: Embedder, lock: Lock) -> list[str]:
    """Train the ANN indexes the live generation's tables are due for (VectorIndex.due_indexes),
    holding the writer lock only to start; the tables built."""
    with lock():
        gen = open_generation(data, embedder)
        due = gen.vectors.due_indexes()
        build = AnnBuild(gen.vectors.path)
        if not due or not build.take():  # nothing to build, or another import is building it
            gen.close()
            return []
    try:
        with build:
            try:
                gen.vectors.build(due)
            except RuntimeError as exc:  # Lance's commit conflict, or a build that failed
                log.warning("ANN build without the writer lock failed (%s); building under it",
                            exc)
                with lock():
                    gen.vectors.build(due)
        gen.mark_changed()  # searchers reopen the tables: the new index is theirs
    finally:
        gen.close()
    return due
