"""In-process search latency: median and p95 over 50 queries per mode, query embedding included.

    python benchmarks/latency.py --bench ../shared/bench --home /tmp/recall-bench/locomo-e5 [--embedder e5]

Uses an already indexed data dir (benchmarks/retrieval.py builds one). Each query runs once to
warm up, then the timed pass; the keyword mode is the in-process baseline for the others. Every
search goes through `RecallService.search`, the answer every interface gives. Hybrid runs once
per session ranking (RECALL_RANKER fused, learned, strict: a service of each, sharing one
embedder), the three taking turns on each query so that a slower minute of the machine falls
on all of them alike.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api import RecallService, Settings
from models import SearchFilters, SearchRequest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--embedder", default="e5")
    args = parser.parse_args()
    service = RecallService(Settings.from_env(home=str(args.home), embedder=args.embedder))
    lines = (args.bench / "locomo" / "queries.jsonl").read_text().splitlines()
    queries = [json.loads(line)["question"] for line in lines[::40]][:50]
    service.search(SearchRequest(query="warm up"))
    filters = {"none": SearchFilters(), "date range": SearchFilters(since="2023-05-01", until="2023-08-31")}
    baseline = None
    print(f"{'mode':<16}{'filter':<12}{'p50 ms':>8}{'p95 ms':>8}{'x keyword':>11}")
    # as `recall serve` with RECALL_RANKER=mode answers, over the same index and model
    rankers = {mode: RecallService(dataclasses.replace(service.settings, ranker=mode),
                                   embedder=service.embedder)
               for mode in ("fused", "learned", "strict")}
    for mode in ("keyword", "vector", "hybrid"):
        for name, f in filters.items():
            rows = rankers if mode == "hybrid" else {"": service}
            for q in queries[:5]:
                for ranked in rows.values():  # each service opens the index for itself
                    ranked.search(SearchRequest(query=q, mode=mode, filters=f))
            times: dict[str, list[float]] = {label: [] for label in rows}
            for q in queries:
                for label, ranked in rows.items():
                    started = time.perf_counter()
                    ranked.search(SearchRequest(query=q, mode=mode, filters=f))
                    times[label].append((time.perf_counter() - started) * 1000)
            for label, found in times.items():
                p50 = statistics.median(found)
                p95 = sorted(found)[int(0.95 * len(found)) - 1]
                baseline = baseline or p50
                print(f"{(mode + ' ' + label).strip():<16}{name:<12}{p50:>8.1f}{p95:>8.1f}"
                      f"{p50 / baseline:>10.1f}x")


if __name__ == "__main__":
    main()
