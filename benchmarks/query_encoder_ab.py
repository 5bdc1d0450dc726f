"""Search latency with two builds of the e5 query encoder, in one process, query by query in turn,
so that a busy shared machine weighs on both alike: the embedding alone and whole searches.

    python benchmarks/query_encoder_ab.py --home /tmp/recall-scale/home-100000-e5-queries \
        --before /tmp/old/multilingual-e5-small-onnx --after /tmp/models/multilingual-e5-small-onnx \
        [--queries 200] [--modes hybrid,vector] [--json out.json]

The data directory is one `benchmarks/scale.py --embedder e5-queries` built (passages as
384-dimensional hash vectors): each side embeds the queries with its own export folder, one
thread, as recall serves them, and searches that index. Queries are scale.py's
(scripts/generate_archive.py's sample). Per side: embedding p50 (wall, and the CPU time of the
embedding thread, which other processes on the cores do not inflate), search p50/p95/p99 per mode;
and after/before ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from indexer.embedding.embedders import HashEmbedder
from indexer.embedding.onnx_encoder import OnnxEncoder


class TimedQueries:
    """Passages as 384-dimensional hash vectors (the index's), queries through one e5 export;
    each query embedding's wall and thread CPU time kept."""

    multilingual = True
    similarity_floor, similarity_margin = 0.3, 0.1  # the hash embedder's, as scale.py's

    def __init__(self, folder: Path) -> None:
        self.passages = HashEmbedder(384)
        self.name, self.dim = self.passages.name, 384
        self.encoder = OnnxEncoder(folder, threads=1)
        self.prompt = self.encoder.prompts.get("query", "")
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def embed_passages(self, texts: Any) -> np.ndarray:
        return self.passages.embed_passages(texts)

    def embed_query(self, text: str) -> np.ndarray:
        wall, cpu = time.perf_counter(), time.thread_time()
        vector = self.encoder.encode([text], self.prompt)[0]
        self.cpu.append(time.thread_time() - cpu)
        self.wall.append(time.perf_counter() - wall)
        return vector


def percentiles(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {f"p{q}": round(ms[min(len(ms) - 1, int(q / 100 * len(ms)))], 2) for q in (50, 95, 99)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--before", type=Path, required=True, help="an e5 ONNX export folder")
    parser.add_argument("--after", type=Path, required=True, help="another one")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--modes", default="hybrid,vector")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    from generate_archive import sample_queries

    from api import RecallService, Settings
    from models import SearchRequest

    queries = sample_queries(args.queries)
    sides = {name: TimedQueries(folder) for name, folder in
             (("before", args.before), ("after", args.after))}
    services = {name: RecallService(Settings(home=args.home, embedder="hash-384"), embedder=e)
                for name, e in sides.items()}
    for service in services.values():  # stores, dictionary, reference lines, both encoders
        for q in queries[:10]:
            service.search(SearchRequest(query=q))
    out: dict[str, Any] = {"home": str(args.home), "queries": len(queries),
                           "load_average_at_start": round(os.getloadavg()[0], 2),
                           "folders": {n: str(e.encoder.folder) for n, e in sides.items()},
                           "sides": {n: {} for n in sides}}
    for mode in args.modes.split(","):
        times: dict[str, list[float]] = {n: [] for n in sides}
        for e in sides.values():
            e.wall.clear()
            e.cpu.clear()
        for q in queries:  # in turn, so that both see the same moments of the machine
            for name, service in services.items():
                started = time.perf_counter()
                service.search(SearchRequest(query=q, mode=mode))
                times[name].append(time.perf_counter() - started)
        for name, e in sides.items():
            out["sides"][name][mode] = {
                "search_ms": percentiles(times[name]),
                "embed_wall_ms": percentiles(e.wall),
                "embed_cpu_p50_ms": round(statistics.median(e.cpu) * 1000, 2)}
        out.setdefault("ratio_after_before", {})[mode] = {
            "search_p50": round(statistics.median(times["after"]) / statistics.median(times["before"]), 3),
            "embed_cpu_p50": round(statistics.median(sides["after"].cpu)
                                   / statistics.median(sides["before"].cpu), 3)}
    out["load_average_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
