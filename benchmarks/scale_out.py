"""Ingest on a Ray cluster against the single-process path: messages/s, the same answers, and
the limits the single writer sets.

    python benchmarks/scale_out.py --bench ../shared/bench --work /tmp/recall-scale-out \\
        [--embedder e5] [--workers 1,2] [--queries 100] [--out docs/scale_out.json]

Every run is `recall` as installed, in its own process, on LoCoMo's 272 sessions, each into a
fresh data directory, with RECALL_EMBED_THREADS=1 (one encoder thread per process):

- `recall index SESSIONS` (the single-process path) and `recall index SESSIONS --ray
  --ray-workers N` for each N: a local Ray instance of N worker processes;
- `recall reindex` of the single-process directory and `recall reindex --ray --ray-workers N`
  of the largest N's.

messages/s is over the time the command reports for its work (Ray's start-up and the workers'
model loading come before it and are reported apart, with the wall time). Then:

- the same answers: indexer.distributed.parity between the single-process directory and each
  Ray one (sessions, keyword documents, memories, vectors within 1e-4), and the top-10 sessions
  of --queries LoCoMo questions searched in both;
- the writer's own limits (component figures, in this process): the driver's reading and
  redacting of the files (FilePreparer), and committing precomputed batches (the writer's
  share of every run, whatever computes them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RECALL = Path(sys.executable).with_name("recall")


def run_recall(args: list[str], home: Path, env: dict[str, str]) -> dict[str, Any]:
    started = time.monotonic()
    done = subprocess.run([str(RECALL), *args, "--json"], env={**env, "RECALL_HOME": str(home)},
                          capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"recall {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    report = json.loads(done.stdout)
    seconds = report["seconds"]
    return {"command": "recall " + " ".join(args), "wall_s": round(wall, 1),
            "work_s": round(seconds, 1), "sessions": report["indexed"],
            "messages": report.get("messages"),
            "start_s": round(wall - seconds, 1)}


def with_rate(result: dict[str, Any], messages: int) -> dict[str, Any]:
    result["messages"] = messages
    result["messages_per_s"] = round(messages / result["work_s"], 1)
    return result


def same_searches(home_a: Path, home_b: Path, bench: Path, embedder: str,
                  count: int) -> dict[str, Any]:
    from api import RecallService, Settings
    from models import SearchRequest

    questions = [json.loads(line)["question"]
                 for line in (bench / "locomo" / "queries.jsonl").read_text().splitlines()[:count]]
    tops = []
    for home in (home_a, home_b):
        service = RecallService(Settings.from_env(home=str(home), embedder=embedder))
        tops.append([[hit.session_id for hit in service.search(SearchRequest(query=q, limit=10)
                                                               ).results] for q in questions])
    same = sum(a == b for a, b in zip(*tops, strict=True))
    return {"queries": count, "identical_top10": same}


def writer_limits(sessions: Path, home: Path) -> dict[str, Any]:
    """The driver's preparing and committing alone (hash-384 vectors, the size of e5's)."""
    from indexer.embedding.embedders import HashEmbedder
    from indexer.formats import ImportOptions
    from indexer.formats.sources import discover
    from indexer.ingest.compute import compute_prepared
    from indexer.ingest.prepare import FilePreparer
    from indexer.ingest.progress import silent_progress
    from indexer.ingest.report import IndexReport
    from indexer.ingest.write import BatchWriter, batched
    from indexer.stores.generation import Generation
    from indexer.stores.layout import DataDir
    from indexer.stores.state import State

    data = DataDir(home).ensure()
    embedder = HashEmbedder(384)
    state = State(data.state_db)
    files = list(discover([sessions]))
    started = time.monotonic()
    prepared = list(FilePreparer(data, 50_000_000, ImportOptions()).prepare_files(
        files, state, IndexReport(), silent_progress(0, "")))
    prepare_s = time.monotonic() - started
    batches = [(batch, compute_prepared(data, batch, embedder)) for batch in batched(prepared, 32)]
    gen = Generation.create(data.generation("gen-bench"), embedder.name, embedder.dim)
    writer = BatchWriter(data, embedder)
    started = time.monotonic()
    for _batch, computed in batches:
        writer.commit(computed, gen)
    commit_s = time.monotonic() - started
    gen.close()
    state.close()
    messages = sum(len(p.session.messages) for p in prepared)
    return {"messages": messages,
            "prepare_messages_per_s": round(messages / prepare_s),
            "commit_messages_per_s": round(messages / commit_s),
            "commit_passages_per_s": round(sum(c.passages for _, c in batches) / commit_s)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True, help="scratch folder (emptied)")
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    sessions = args.bench / "locomo" / "sessions"
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    env = {**os.environ, "RECALL_EMBEDDER": args.embedder, "RECALL_EMBED_THREADS": "1"}
    workers = [int(n) for n in args.workers.split(",")]

    single = args.work / "single"
    runs = [run_recall(["index", str(sessions)], single, env)]
    messages = runs[0]["messages"]
    for n in workers:
        runs.append(run_recall(["index", str(sessions), "--ray", "--ray-workers", str(n)],
                               args.work / f"ray-{n}", env))
    runs.append(run_recall(["reindex"], single, env))
    widest = args.work / f"ray-{max(workers)}"
    runs.append(run_recall(["reindex", "--ray", "--ray-workers", str(max(workers))], widest, env))
    for run in runs:
        with_rate(run, messages)
        base = runs[0] if run["command"].startswith("recall index") else runs[len(workers) + 1]
        run["ratio"] = round(run["messages_per_s"] / base["messages_per_s"], 2)
        print(json.dumps(run), flush=True)

    from indexer.distributed.parity import differences
    from indexer.stores.layout import DataDir

    result: dict[str, Any] = {"embedder": args.embedder, "cpus": os.cpu_count(), "runs": runs}
    result["parity"] = {f"ray-{n}": differences(DataDir(single), DataDir(args.work / f"ray-{n}"))
                        for n in workers}
    result["searches"] = same_searches(single, widest, args.bench, args.embedder, args.queries)
    result["writer"] = writer_limits(sessions, args.work / "writer")
    print(json.dumps({k: result[k] for k in ("parity", "searches", "writer")}, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
