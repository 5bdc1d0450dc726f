"""A batch read and computed without the writer lock, checked again once the lock is taken.

`Ingestor.index_paths` reads, redacts and computes each batch of an import without the lock and
takes it for each batch's write only, so a live append or an HTTP ingest waits one batch at most.
Another writer may have written meanwhile: what it changed is judged again under the lock
(FilePreparer.still_to_write), and a batch whose sessions or pruned memories changed is computed
again under the lock rather than written as computed (rare: a conflict costs one batch)."""

from __future__ import annotations

from collections.abc import Sequence

from indexer.ingest.compute import ComputedBatch
from indexer.ingest.prepare import FilePreparer, Prepared
from indexer.ingest.report import IndexReport
from indexer.stores.layout import DataDir
from indexer.stores.relevance import pruned_ids
from indexer.stores.state import State

__all__ = ["still_to_write"]


def still_to_write(data: DataDir, preparer: FilePreparer, batch: Sequence[Prepared],
                   computed: ComputedBatch, state: State,
                   report: IndexReport) -> tuple[list[Prepared], ComputedBatch | None]:
    """The sessions of the batch still to write (the caller holds the writer lock), with the
    computed batch when it still holds for them; None when the writer must compute it again."""
    kept = [p for p in batch if preparer.still_to_write(p, state, report)]
    pruned = pruned_ids(data, [p.session.session_id for p in kept])
    pruned_since = any(m.id in pruned for memories in computed.memories for m in memories)
    if len(kept) == len(batch) and not pruned_since:
        return kept, computed
    return kept, None
