"""The ANN index of a vector table: its type and settings by table size, and the query settings
that go with them (docs/performance.md)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lancedb.index import IvfHnswSq, IvfPq

__all__ = ["ANN_MIN_ROWS", "ANN_REBUILD_GROWTH", "NPROBES", "REFINE_FACTOR", "VECTOR_INDEX", "ann_config"]

# A flat scan costs ~2 ms per 1k rows on one core, and hybrid search runs two (one per
# language): past this size an ANN index pays (docs/performance.md).
ANN_MIN_ROWS = 10_000
# Two ANN index types, by table size (docs/performance.md, "Latest round"):
# - IVF_HNSW_SQ (one partition, m=16, ef_construction=100) below PQ_MIN_ROWS: builds in seconds
#   and searches a 112k-row table in ~5 ms, but keeps its graph and 8-bit codes in memory,
#   ~800 bytes a row (+911 MB for 1.1M rows).
# - IVF_PQ from PQ_MIN_ROWS: ~sqrt(rows) partitions of product-quantized vectors (one byte per 8
#   dimensions), NPROBES partitions searched. On 1.1M rows: 10.6 vs 8.0 ms a search, better
#   recall (0.89 vs 0.82 on hash vectors; 0.977 vs 0.974 on e5 vectors) and +85 vs +911 MB of
#   resident memory; on small tables slower to train (~20 s even at 10k rows) and to search.
PQ_MIN_ROWS = 250_000
ANN_M = 16
ANN_EF_CONSTRUCTION = 100
DIMS_PER_SUB_VECTOR = 8
NPROBES = 64
# Each search re-scores REFINE_FACTOR x limit of the index's nearest with the stored vectors: the
# index returns quantized distances, and the searcher compares similarities with a per-query
# floor. Twice the 50 hits search asks for keeps the recall of re-scoring 100 (e5 vectors, IVF_PQ
# probed like a 1.1M-row table: recall@10 0.947 with 1x, docs/performance.md) for ~0.5 ms a
# search at 100k sessions, less than asking for 100 hits.
REFINE_FACTOR = 2
VECTOR_INDEX = "vector_idx"
# New rows are folded into the existing partitions by optimize(); once a table has grown this
# much since its partitions were trained, they are trained again from all rows.
ANN_REBUILD_GROWTH = 2.0


def ann_config(rows: int, dim: int, *, pq: bool | None = None) -> IvfHnswSq | IvfPq:
    """The ANN index of a table of `rows` vectors of `dim` dimensions (pq: force the type)."""
    from lancedb.index import IvfHnswSq, IvfPq

    if not (rows >= PQ_MIN_ROWS if pq is None else pq):
        return IvfHnswSq(distance_type="cosine", num_partitions=1, m=ANN_M,
                         ef_construction=ANN_EF_CONSTRUCTION)
    sub_vectors = next(n for n in range(max(1, dim // DIMS_PER_SUB_VECTOR), 0, -1) if dim % n == 0)
    return IvfPq(distance_type="cosine", num_partitions=max(1, math.isqrt(rows)),
                 num_sub_vectors=sub_vectors)
