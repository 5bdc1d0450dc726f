"""Speed and scale on a synthetic archive: ingest, re-index, search latency, memory, disk.

    python benchmarks/scale.py --sessions 1000 --embedder e5 --model-cache /tmp/e5home/models
    python benchmarks/scale.py --sessions 10000 --embedder hash
    python benchmarks/scale.py --sessions 100000 --embedder e5-queries --model-cache DIR --quick

`--embedder e5-queries` indexes with 384-dimensional hash vectors (e5's size; the real model would
need ~10 hours at 100k sessions) and embeds every query with the real multilingual-e5-small
encoder recall serves, so search latency and memory include the real query path. `--quick` stops
after the ingest and the searches (no re-index runs, no FTS5 reference).

For one archive size (scripts/generate_archive.py, seed 7) it reports:
  - ingest throughput (messages/s) and where the time goes (memories, embedding, stores, fsync);
    with a sentence-transformers model also raw `SentenceTransformer.encode` throughput on the
    passage texts the pipeline embedded (the first 4,000; ratio = pipeline overhead)
  - a no-op re-index of the unchanged archive, and one after 1% of the sessions changed
  - search latency p50/p95/p99 for keyword, vector and hybrid, without and with filters (a date
    range, a channel): one client thread, in-process, query embedding included
  - ANN recall@10/@100 against a flat scan on the same query vectors and filters
  - peak RSS of each ingest and of the search process (each runs in its own child process)
  - index size on disk per 1k messages
  - SQLite FTS5 (porter unicode61, on disk) over the same messages, same keyword queries
Prints a table and writes JSON (--json). Work files go under --work (reused when present).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

ENCODE_SAMPLE = 4000
FILTERS = {"none": {}, "date range": {"since": "2024-01-01", "until": "2024-06-30"},
           "channel": {"channel": "slack"}}


# -- child processes: each reports its own peak RSS -----------------------------------------------
def _rss() -> dict[str, float]:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    current = 0.0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            current = int(line.split()[1]) / 1024
    return {"peak_rss_mb": round(peak, 1), "rss_mb": round(current, 1)}


def _timed(owner: Any, name: str, label: str, timers: Counter[str]) -> None:
    inner = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            timers[label] += time.perf_counter() - started

    setattr(owner, name, wrapper)


class E5QueriesOverHash:
    """Passages as 384-dimensional hash vectors, queries through the real e5 encoder: for
    latency and memory at sizes the real model cannot index here (the hits mean nothing)."""

    multilingual = True
    similarity_floor, similarity_margin = 0.3, 0.1  # the hash embedder's: its vectors fill the index

    def __init__(self, model_cache: Path | None) -> None:
        from indexer.embedding.embedders import HashEmbedder, load_embedder

        self.passages = HashEmbedder(384)
        self.name, self.dim = self.passages.name, 384
        self.queries = load_embedder("e5", model_cache)
        assert self.queries.dim == self.dim

    def embed_passages(self, texts: Any) -> Any:
        return self.passages.embed_passages(texts)

    def embed_query(self, text: str) -> Any:
        return self.queries.embed_query(text)


def _service(args: argparse.Namespace) -> Any:
    from api import RecallService, Settings

    special = args.embedder == "e5-queries"
    return RecallService(Settings(home=args.home, embedder="hash-384" if special else args.embedder,
                                  model_cache=args.model_cache),
                         embedder=E5QueriesOverHash(args.model_cache) if special else None)


def child_ingest(args: argparse.Namespace) -> dict[str, Any]:
    from indexer.embedding.embedders import SentenceTransformerEmbedder
    from indexer.ingest import compute, prepare, write
    from indexer.stores.keyword import KeywordIndex
    from indexer.stores.memories import MemoryStore
    from indexer.stores.vector import VectorIndex

    timers: Counter[str] = Counter()
    _timed(compute, "extract_memories_batch", "memories (incl. their dedupe embedding)", timers)
    _timed(prepare, "normalize", "redact + parse", timers)
    _timed(write, "atomic_write_many", "archive write (fsync)", timers)
    _timed(MemoryStore, "save_many", "memory store", timers)
    _timed(KeywordIndex, "add", "tantivy add", timers)
    _timed(KeywordIndex, "commit", "tantivy commit", timers)
    _timed(VectorIndex, "add", "lance add", timers)
    _timed(VectorIndex, "delete_sessions", "lance delete", timers)
    _timed(VectorIndex, "compact", "lance compact", timers)
    _timed(VectorIndex, "optimize", "lance optimize + ANN build", timers)
    texts: list[str] = []
    inner_embed = SentenceTransformerEmbedder.embed_passages

    def collecting(self: Any, batch: Any) -> Any:
        texts.extend(batch)
        return inner_embed(self, batch)

    SentenceTransformerEmbedder.embed_passages = collecting  # type: ignore[method-assign]
    _timed(SentenceTransformerEmbedder, "embed_passages", "embed (model)", timers)
    service = _service(args)
    service.embedder.embed_query("warm up")  # model load is not ingest
    report = service.index([args.archive])
    if texts and args.texts_out:
        args.texts_out.write_text(json.dumps(texts, ensure_ascii=False))
    return {"report": msgspec.to_builtins(report), "phases_s": {k: round(v, 2) for k, v in timers.items()},
            "passages_embedded": len(texts), **_rss()}


def child_encode(args: argparse.Namespace) -> dict[str, Any]:
    from indexer.embedding.embedders import load_embedder

    embedder = load_embedder(args.embedder, args.model_cache)
    model = embedder.model  # type: ignore[attr-defined]
    # a sample, in the pipeline's order: the encode rate is steady after a few batches, and the
    # whole set would take as long again as the ingest
    texts = json.loads(args.texts_out.read_text())[:ENCODE_SAMPLE]
    prompts = getattr(model, "prompts", {}) or {}
    model.encode(texts[:64], batch_size=32)
    started = time.perf_counter()
    model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True,
                 show_progress_bar=False, prompt_name="passage" if "passage" in prompts else None)
    seconds = time.perf_counter() - started
    return {"passages": len(texts), "seconds": round(seconds, 2),
            "passages_per_s": round(len(texts) / seconds, 1), **_rss()}


def _percentiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"p50": round(statistics.median(ordered), 2), "p95": at(0.95), "p99": at(0.99)}


def child_search(args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np
    from generate_archive import sample_queries

    from indexer.stores.vector import VectorIndex
    from indexer.stores.vector_ann import NPROBES
    from indexer.stores.vector_filters import lance_where
    from models import SearchFilters, SearchRequest

    service = _service(args)
    queries = sample_queries(args.queries)
    service.search(SearchRequest(query="warm up"))
    out: dict[str, Any] = {"queries": len(queries), "latency_ms": {}}
    for mode in ("keyword", "vector", "hybrid"):
        for name, f in FILTERS.items():
            filters = SearchFilters(**f)
            for q in queries[:10]:
                service.search(SearchRequest(query=q, mode=mode, filters=filters))
            times = []
            for q in queries:
                started = time.perf_counter()
                service.search(SearchRequest(query=q, mode=mode, filters=filters))
                times.append((time.perf_counter() - started) * 1000)
            out["latency_ms"][f"{mode} / {name}"] = _percentiles(times)
    # ANN against a flat scan, on the same query vectors and the filters search uses
    vectors: VectorIndex = service.searcher.generation().vectors
    # the memory of a process that has served the searches, before the exact scans below load
    # every vector of the table (which no search does)
    out.update(_rss())
    out["ann"] = vectors.index_status()
    recalls: dict[str, dict[str, float]] = {}
    for name, f in FILTERS.items():
        where = lance_where(SearchFilters(**f))
        r10, r100, ann_ms, flat_ms = [], [], [], []
        for q in queries[:50]:
            vector = service.embedder.embed_query(q).astype(np.float32)
            lists = []
            for flat in (False, True):
                query = (vectors.tables["messages_other"].search(vector, vector_column_name="vector")
                         .distance_type("cosine").limit(100).nprobes(NPROBES).refine_factor(1))
                if where:
                    query = query.where(where, prefilter=True)
                if flat:
                    query = query.bypass_vector_index()
                started = time.perf_counter()
                found = query.select(["key", "_distance"]).to_arrow()["_distance"].to_pylist()
                (flat_ms if flat else ann_ms).append((time.perf_counter() - started) * 1000)
                lists.append(found)
            ann, exact = lists  # exact distances both (refine_factor 1)
            # tie-robust recall: an ANN hit counts when it is as close as the flat k-th hit
            # (the hash embedder gives many passages the very same vector)
            for k, bucket in ((10, r10), (100, r100)):
                if exact:
                    kth = exact[min(k, len(exact)) - 1] + 1e-6
                    bucket.append(sum(1 for d in ann[:k] if d <= kth) / min(k, len(exact)))
        recalls[name] = {"recall@10": round(float(np.mean(r10)), 3) if r10 else None,
                         "recall@100": round(float(np.mean(r100)), 3) if r100 else None,
                         "ann_p50_ms": round(statistics.median(ann_ms), 2),
                         "flat_p50_ms": round(statistics.median(flat_ms), 2)}
    out["ann_recall"] = recalls
    out["after_exact_scans"] = _rss()
    return out


def _child(mode: str, args: argparse.Namespace, extra: list[str] | None = None) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", mode, "--home", str(args.home),
               "--archive", str(args.archive), "--embedder", args.embedder,
               "--queries", str(args.queries), "--texts-out", str(args.texts_out)]
    if args.model_cache:
        command += ["--model-cache", str(args.model_cache)]
    started = time.perf_counter()
    done = subprocess.run(command + (extra or []), check=False, capture_output=True, text=True,
                          cwd=ROOT)
    if done.returncode:
        raise SystemExit(f"child {mode} failed:\n{done.stderr[-4000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = round(time.perf_counter() - started, 2)
    return result


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


# -- the run ------------------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> dict[str, Any]:
    import generate_archive

    args.work.mkdir(parents=True, exist_ok=True)
    archive = args.work / f"archive-{args.sessions}"
    marker = archive / ".complete"
    if not marker.exists():
        shutil.rmtree(archive, ignore_errors=True)
        messages = sum(n for _, n in generate_archive.generate(archive, args.sessions))
        marker.write_text(str(messages))
    args.archive = archive
    args.home = args.work / f"home-{args.sessions}-{args.embedder}"
    args.texts_out = args.work / f"passages-{args.sessions}-{args.embedder}.json"
    shutil.rmtree(args.home, ignore_errors=True)
    result: dict[str, Any] = {"sessions": args.sessions, "embedder": args.embedder,
                              "cpus": os.cpu_count(), "python": sys.version.split()[0]}
    print(f"ingesting {args.sessions} sessions with {args.embedder} ...", file=sys.stderr)
    first = _child("ingest", args)
    msgs = first["report"]["messages"]
    first["messages_per_s"] = round(msgs / first["report"]["seconds"], 1)
    result["ingest"] = first
    if first["passages_embedded"]:
        raw = _child("encode", args)
        raw["pipeline_passages_per_s"] = round(
            first["passages_embedded"] / first["report"]["seconds"], 1)
        raw["overhead_ratio"] = round(raw["passages_per_s"] / raw["pipeline_passages_per_s"], 2)
        result["raw_encode"] = raw
    if args.quick:
        print("searching ...", file=sys.stderr)
        result["search"] = _child("search", args)
        return result
    result["reindex_noop"] = _child("ingest", args)
    sizes = {"index_mb": round(_du(args.home / "index") / 1e6, 1),
             "state_mb": round(_du(args.home / "state.sqlite3") / 1e6, 1),
             "memories_mb": round(_du(args.home / "memories") / 1e6, 1),
             "archive_mb": round(_du(args.home / "archive") / 1e6, 1)}
    sizes["index_mb_per_1k_messages"] = round(sizes["index_mb"] / (msgs / 1000), 2)
    result["disk"] = sizes
    print("searching ...", file=sys.stderr)
    result["search"] = _child("search", args)
    generate_archive.touch(archive, args.sessions, 0.01)
    changed = _child("ingest", args)
    changed["messages_per_s"] = round(changed["report"]["messages"] / changed["report"]["seconds"], 1)
    result["reindex_1pct"] = changed
    generate_archive.touch(archive, args.sessions, 0.01, revision=0)  # back to the base archive
    (archive / ".complete").write_text(str(msgs))
    from generate_archive import sample_queries

    from benchmarks.baselines import fts5_reference

    result["fts5"] = fts5_reference(archive, args.work / f"fts5-{args.sessions}.sqlite3",
                                    sample_queries(args.queries), FILTERS)
    return result


def print_table(r: dict[str, Any]) -> None:
    ing = r["ingest"]
    print(f"\n{r['sessions']} sessions, {ing['report']['messages']} messages, embedder {r['embedder']}, "
          f"{r['cpus']} CPUs")
    print(f"ingest            {ing['report']['seconds']:>8.1f} s  {ing['messages_per_s']:>8.1f} msg/s  "
          f"peak RSS {ing['peak_rss_mb']:.0f} MB")
    for phase, seconds in sorted(ing["phases_s"].items(), key=lambda kv: -kv[1]):
        print(f"  {phase:<40}{seconds:>8.1f} s  {100 * seconds / ing['report']['seconds']:>5.1f}%")
    if "raw_encode" in r:
        raw = r["raw_encode"]
        print(f"raw encode        {raw['passages_per_s']:>8.1f} passages/s, pipeline "
              f"{raw['pipeline_passages_per_s']:.1f} passages/s: overhead x{raw['overhead_ratio']}")
    if "reindex_noop" in r:  # not with --quick
        noop, one = r["reindex_noop"], r["reindex_1pct"]
        print(f"no-op re-index    {noop['report']['seconds']:>8.1f} s  ({noop['report']['unchanged']} unchanged)")
        print(f"1% changed        {one['report']['seconds']:>8.1f} s  ({one['report']['indexed']} sessions, "
              f"{one['report']['messages']} messages)")
        d = r["disk"]
        print(f"disk: index {d['index_mb']} MB ({d['index_mb_per_1k_messages']} MB per 1k messages), "
              f"archive {d['archive_mb']} MB; FTS5 {r['fts5']['db_mb']} MB")
    s = r["search"]
    print(f"search process RSS {s['rss_mb']:.0f} MB (peak {s['peak_rss_mb']:.0f} MB); ANN {s['ann']}")
    print(f"{'latency ms':<28}{'p50':>8}{'p95':>8}{'p99':>8}")
    for name, p in s["latency_ms"].items():
        print(f"{name:<28}{p['p50']:>8}{p['p95']:>8}{p['p99']:>8}")
    for name, p in r.get("fts5", {}).get("latency_ms", {}).items():
        print(f"{'FTS5 ' + name:<28}{p['p50']:>8}{p['p95']:>8}{p['p99']:>8}")
    for name, rec in s["ann_recall"].items():
        print(f"ANN vs flat / {name:<12} recall@10 {rec['recall@10']}  recall@100 {rec['recall@100']}  "
              f"ann {rec['ann_p50_ms']} ms  flat {rec['flat_p50_ms']} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--model-cache", type=Path)
    parser.add_argument("--work", type=Path, default=Path("/tmp/recall-scale"))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="ingest and search only")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", choices=["ingest", "encode", "search"], help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--archive", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--texts-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        handler = {"ingest": child_ingest, "encode": child_encode, "search": child_search}
        print(json.dumps(handler[args.child](args)))
        return
    result = run(args)
    print_table(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
