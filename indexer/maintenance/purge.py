"""Purging: copy the live generation into a fresh one, so that deleted text is in no file.

A delete removes a session from every search at once, but both stores keep its bytes for a
while: Tantivy marks documents deleted until a merge rewrites their segment, and LanceDB keeps
deleted rows in data files (and older versions) until compaction rewrites them. tantivy-py has
no merge call, so `recall delete --purge` copies what is live, document by document and row by
row, into new files, switches to them, and removes the old generation. Nothing is re-embedded:
the vectors are copied."""

from __future__ import annotations

import pyarrow as pa

from indexer.ingest.progress import ProgressFactory, silent_progress
from indexer.stores.generation import Generation

__all__ = ["copy_generation"]

KEYWORD_BATCH = 5_000
VECTOR_BATCH = 20_000


def copy_generation(source: Generation, target: Generation,
                    progress: ProgressFactory = silent_progress) -> dict[str, int]:
    """Copy every live keyword document and vector row of source into target; build target's
    indexes. Returns how many documents and rows were copied."""
    docs = 0
    batch = []
    bar = progress(source.keyword.num_docs(), "copying keyword documents", "document")
    for doc in source.keyword.documents():
        batch.append(doc)
        if len(batch) >= KEYWORD_BATCH:
            target.keyword.add(batch)
            docs += len(batch)
            bar.update(len(batch))
            batch = []
    target.keyword.add(batch)
    target.keyword.commit()
    docs += len(batch)
    bar.update(len(batch))
    bar.close()
    rows = 0
    bar = progress(source.vectors.count(), "copying vectors", "vector")
    for name, table in source.vectors.tables.items():
        count = table.count_rows()
        if not count:
            continue
        reader = table.search().limit(count).to_batches(VECTOR_BATCH)
        for record_batch in reader:
            target.vectors.tables[name].add(pa.Table.from_batches([record_batch]))
            rows += record_batch.num_rows
            bar.update(record_batch.num_rows)
    bar.close()
    target.vectors.optimize()  # builds the ANN indexes: minutes on a large archive
    target.mark_changed()
    return {"keyword_documents": docs, "vector_rows": rows}
