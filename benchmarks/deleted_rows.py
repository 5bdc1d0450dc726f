"""How deleted rows slow a LanceDB ANN search, and what rewriting them out gives back.

    python benchmarks/deleted_rows.py --rows 200000

Builds a synthetic table (unit vectors, 10 rows per session, the production ANN index of
indexer/stores/vector.py), then times one search (limit 100, refine 1) on it: fresh, after
deleting 1, 10, 100 and 1,000 sessions, and after `_tidy` rewrote the fragments holding the
deletions. Same process, same query vectors throughout.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexer.stores.vector import _tidy, deleted_rows
from indexer.stores.vector_ann import NPROBES, ann_config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--work", type=Path, default=Path("/tmp/recall-deleted-rows"))
    args = parser.parse_args()

    rng = np.random.default_rng(0)

    def batch(low: int, high: int) -> pa.Table:
        vectors = rng.standard_normal((high - low, args.dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return pa.table({"id": np.arange(low, high),
                         "session_id": [f"s{i // 10}" for i in range(low, high)],
                         "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), args.dim)})

    shutil.rmtree(args.work, ignore_errors=True)
    table = lancedb.connect(str(args.work)).create_table("t", batch(0, min(50_000, args.rows)))
    for low in range(50_000, args.rows, 50_000):
        table.add(batch(low, min(args.rows, low + 50_000)))
    _tidy(table)
    started = time.perf_counter()
    table.create_index("vector", config=ann_config(args.rows, args.dim))
    print(f"{args.rows} rows, {type(ann_config(args.rows, args.dim)).__name__} built in "
          f"{time.perf_counter() - started:.0f} s")
    queries = rng.standard_normal((args.queries, args.dim)).astype(np.float32)

    def p50(label: str) -> None:
        times = []
        for query in queries:
            started = time.perf_counter()
            (table.search(query).distance_type("cosine").limit(100).nprobes(NPROBES)
             .refine_factor(1).select(["id", "_distance"]).to_arrow())
            times.append(time.perf_counter() - started)
        print(f"{label:45s} p50 {1000 * statistics.median(times[5:]):6.1f} ms")

    p50("no deleted rows")
    sessions = rng.permutation(args.rows // 10)
    deleted = 0
    for count in (1, 10, 100, 1000):
        ids = sessions[deleted:count]
        table.delete("session_id IN (" + ", ".join(f"'s{i}'" for i in ids) + ")")
        deleted = count
        p50(f"{count} sessions deleted ({deleted_rows(table)} rows)")
    started = time.perf_counter()
    _tidy(table)
    print(f"rewrote the fragments with deletions in {time.perf_counter() - started:.1f} s")
    p50(f"after the rewrite ({deleted_rows(table)} deleted rows left)")


if __name__ == "__main__":
    main()
