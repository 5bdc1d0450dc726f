"""IVF_HNSW_SQ against IVF_PQ on the same vectors: build time, search p50, recall@10 against a
flat scan, and the resident memory the index adds to a searching process.

    python benchmarks/ann_index_types.py --home /tmp/recall-scale/home-100000-hash --table messages_other

Copies the table's keys and vectors once (--work), then per index type: builds it, and in a
fresh child process embeds the queries (`generate_archive.sample_queries`, the home's embedder),
scans flat for the exact top 10, and times the ANN search (limit 100, refine 1) at each nprobes.
Recall is tie-robust, as in scale.py. Memory: anonymous RSS before and after the ANN searches,
taken before the flat scans (whose buffers the allocator keeps and would hide the index).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import lancedb
import numpy as np
from lancedb.index import IvfHnswSq, IvfPq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def _anon_mb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) // 1024
    return 0


def child(args: argparse.Namespace) -> None:
    from generate_archive import sample_queries

    from indexer.embedding.embedders import load_embedder

    table = lancedb.connect(str(args.work)).open_table("copy")
    embedder = load_embedder(args.embedder)
    queries = [embedder.embed_query(q).astype(np.float32) for q in sample_queries(args.queries)]
    before = _anon_mb()
    found: dict[int, list[list[float]]] = {}
    out: dict[str, object] = {}
    for nprobes in (20, 64):
        times = []
        for q in queries:
            started = time.perf_counter()
            distances = (table.search(q).distance_type("cosine").limit(100).nprobes(nprobes)
                         .refine_factor(1).select(["_distance"]).to_arrow()["_distance"].to_pylist())
            times.append(time.perf_counter() - started)
            found.setdefault(nprobes, []).append(distances)
        out[f"nprobes {nprobes}"] = {"p50_ms": round(1000 * statistics.median(times[5:]), 1)}
    out["index_adds_mb"] = _anon_mb() - before  # before any flat scan fills the allocator
    for q, *hits in zip(queries[:30], found[20], found[64], strict=False):
        exact = (table.search(q).distance_type("cosine").limit(10).bypass_vector_index()
                 .select(["_distance"]).to_arrow()["_distance"].to_pylist())
        for nprobes, distances in zip((20, 64), hits, strict=True):
            kth = exact[-1] + 1e-6
            out[f"nprobes {nprobes}"].setdefault("recall", []).append(  # type: ignore[union-attr]
                sum(1 for d in distances[:10] if d <= kth) / 10)
    for nprobes in (20, 64):
        entry = out[f"nprobes {nprobes}"]
        entry["recall@10"] = round(float(np.mean(entry.pop("recall"))), 3)  # type: ignore[union-attr]
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--table", default="messages_other")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--work", type=Path, default=Path("/tmp/recall-ann-index-types"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)

    from indexer.stores.layout import DataDir

    db = lancedb.connect(str(args.work))
    if "copy" not in db.list_tables().tables:
        data = DataDir(args.home)
        source = lancedb.connect(str(data.generation(data.current_generation()) / "vectors"))
        table = source.open_table(args.table)
        reader = table.search().select(["key", "vector"]).limit(table.count_rows()).to_batches(65536)
        db.create_table("copy", reader)
    table = db.open_table("copy")
    rows = table.count_rows()
    dim = table.schema.field("vector").type.list_size
    configs = {"IVF_HNSW_SQ": IvfHnswSq(distance_type="cosine", num_partitions=max(1, rows // 250_000),
                                        m=16, ef_construction=100),
               "IVF_PQ": IvfPq(distance_type="cosine", num_partitions=int(rows ** 0.5),
                               num_sub_vectors=dim // 8)}
    for name, config in configs.items():
        for index in table.list_indices():  # one vector index at a time, or search may pick another
            if index.columns == ["vector"]:
                table.drop_index(index.name)
        started = time.perf_counter()
        table.create_index("vector", config=config, name="vector_idx")
        build = time.perf_counter() - started
        done = subprocess.run([sys.executable, __file__, "--child", "--work", str(args.work),
                               "--embedder", args.embedder, "--queries", str(args.queries)],
                              capture_output=True, text=True, check=True)
        print(f"{name} on {rows} rows: built in {build:.0f} s; {done.stdout.strip()}")


if __name__ == "__main__":
    main()
