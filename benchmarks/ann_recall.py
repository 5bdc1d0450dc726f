"""ANN recall against an exact scan with a real model's vectors.

The scale benchmark's ANN recall uses the `hash` test embedder, whose sparse vectors put many
passages at exactly the same distance and are hard for a graph index. This measures the same
index recall@10 with a real model: the vectors of an index built with it (`recall index`), the
queries embedded with it, the ANN index and query settings of indexer/stores/vector_ann.py.

    python benchmarks/ann_recall.py --home /tmp/rb2/locomo-e5 --queries ../shared/bench/locomo/queries.jsonl \
        --model-cache /tmp/e5home/models

A real model's index of a million rows is out of reach here (~10 hours of encoding), so
--probe-share estimates it: IVF_PQ on these vectors, whatever their number, probing the share of
its partitions that NPROBES is at 1.1M rows (64 of 1,056: 0.061).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

import lancedb
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexer.embedding.embedders import load_embedder
from indexer.stores.layout import DataDir
from indexer.stores.vector_ann import NPROBES, REFINE_FACTOR, ann_config
from search.searcher import VECTOR_CANDIDATES


def _text(record: dict) -> str:
    return record.get("question") or record["query"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True, help="a recall home indexed with e5")
    parser.add_argument("--queries", type=Path, required=True, help="JSONL with a question (or query) field")
    parser.add_argument("--model-cache", type=Path)
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--work", type=Path, default=Path("/tmp/ann-recall"))
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--probe-share", type=float,
                        help="IVF_PQ whatever the size, probing this share of its partitions")
    args = parser.parse_args()

    data = DataDir(args.home)
    vectors_dir = data.generation(data.current_generation()) / "vectors"
    source = lancedb.connect(str(vectors_dir))
    rows = []
    for name in source.list_tables().tables:
        rows.append(source.open_table(name).to_arrow().select(["key", "vector"]))
    import pyarrow as pa
    table_data = pa.concat_tables(rows)
    shutil.rmtree(args.work, ignore_errors=True)
    table = lancedb.connect(str(args.work)).create_table("all", table_data)
    started = time.perf_counter()
    dim = table_data.schema.field("vector").type.list_size
    config = ann_config(table.count_rows(), dim, pq=True if args.probe_share else None)
    table.create_index("vector", config=config)
    nprobes = NPROBES
    if args.probe_share:
        nprobes = max(1, round(args.probe_share * config.num_partitions))
    build = time.perf_counter() - started

    embedder = load_embedder(args.embedder, args.model_cache)
    queries = [_text(json.loads(line)) for line in args.queries.read_text().splitlines()
               if line.strip()][: args.limit]
    recall10, recall10_served, recall100, ann_ms, flat_ms = [], [], [], [], []
    for text in queries:
        vector = embedder.embed_query(text).astype(np.float32)
        found = {}
        for flat in (False, True):
            query = (table.search(vector, vector_column_name="vector").distance_type("cosine")
                     .limit(100).nprobes(nprobes).refine_factor(1).select(["key"]))
            if flat:
                query = query.bypass_vector_index()
            started = time.perf_counter()
            found[flat] = query.to_arrow()["key"].to_pylist()
            (flat_ms if flat else ann_ms).append((time.perf_counter() - started) * 1000)
        recall10.append(len(set(found[False][:10]) & set(found[True][:10])) / 10)
        # as search asks: VECTOR_CANDIDATES hits, re-scored, of which the first 10
        served = (table.search(vector, vector_column_name="vector").distance_type("cosine")
                  .limit(VECTOR_CANDIDATES).nprobes(nprobes).refine_factor(REFINE_FACTOR)
                  .select(["key"]))
        recall10_served.append(len(set(served.to_arrow()["key"].to_pylist()[:10])
                                   & set(found[True][:10])) / 10)
        recall100.append(len(set(found[False]) & set(found[True])) / max(1, len(found[True])))
    print(f"{table.count_rows()} {args.embedder} vectors, {type(config).__name__}, "
          f"nprobes {nprobes}, built in {build:.1f} s; {len(queries)} queries")
    print(f"recall@10 {statistics.mean(recall10):.3f} (of {VECTOR_CANDIDATES} hits as search asks: "
          f"{statistics.mean(recall10_served):.3f})  recall@100 {statistics.mean(recall100):.3f}  "
          f"ANN p50 {statistics.median(ann_ms):.2f} ms  flat p50 {statistics.median(flat_ms):.2f} ms")


if __name__ == "__main__":
    main()
