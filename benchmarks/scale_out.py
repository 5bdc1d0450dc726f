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

With --nodes, a real multi-node cluster on this machine instead (Ray's cluster_utils.Cluster:
each node its own raylet and object store, one CPU each), on the first --sessions sessions:

    python benchmarks/scale_out.py --bench ../shared/bench --work /tmp/recall-scale-out \
        --nodes --sessions 80 [--model-cache DIR] [--out docs/scale_out.json]

- the compute phase alone on one node, then on two (a node added in the same run): every
  batch (--batch-sessions sessions, 8: enough shards to share) sent to the workers and
  computed, nothing committed, the workers' model loading before the clock starts;
  messages/s and the 2-node/1-node ratio;
- `recall index SESSIONS --ray ADDRESS` and `recall reindex --ray ADDRESS` on the two nodes
  against `recall index` and `recall reindex` in one process: parity and the same top 10.
--out then replaces only the file's "multi_node" entry ("multi_node_compute" with
--compute-only: the compute phase alone, --rounds times).
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


def prepared_sessions(sessions: Path, data: Any) -> list[Any]:
    """What the driver reads and redacts from these files, ready to be computed."""
    from indexer.formats import ImportOptions
    from indexer.formats.sources import discover
    from indexer.ingest.prepare import FilePreparer
    from indexer.ingest.progress import silent_progress
    from indexer.ingest.report import IndexReport
    from indexer.stores.state import State

    state = State(data.state_db)
    try:
        return list(FilePreparer(data, 50_000_000, ImportOptions()).prepare_files(
            discover([sessions]), state, IndexReport(), silent_progress(0, "")))
    finally:
        state.close()


def writer_limits(sessions: Path, home: Path) -> dict[str, Any]:
    """The driver's preparing and committing alone (hash-384 vectors, the size of e5's)."""
    from indexer.embedding.embedders import HashEmbedder
    from indexer.ingest.compute import compute_prepared
    from indexer.ingest.write import BatchWriter, batched
    from indexer.stores.generation import Generation
    from indexer.stores.layout import DataDir

    data = DataDir(home).ensure()
    embedder = HashEmbedder(384)
    started = time.monotonic()
    prepared = prepared_sessions(sessions, data)
    prepare_s = time.monotonic() - started
    batches = [(batch, compute_prepared(data, batch, embedder)) for batch in batched(prepared, 32)]
    gen = Generation.create(data.generation("gen-bench"), embedder.name, embedder.dim)
    writer = BatchWriter(data, embedder)
    started = time.monotonic()
    for _batch, computed in batches:
        writer.commit(computed, gen)
    commit_s = time.monotonic() - started
    gen.close()
    messages = sum(len(p.session.messages) for p in prepared)
    return {"messages": messages,
            "prepare_messages_per_s": round(messages / prepare_s),
            "commit_messages_per_s": round(messages / commit_s),
            "commit_passages_per_s": round(sum(c.passages for _, c in batches) / commit_s)}


def first_sessions(sessions: Path, count: int, into: Path) -> Path:
    """The first `count` session files (by path) copied into a folder of their own."""
    for path in sorted(sessions.rglob("*.json"))[:count]:
        copy = into / path.relative_to(sessions)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
    return into


def compute_phase(address: str, prepared: list[Any], home: Path, embedder: str,
                  model_cache: Path | None, batch_sessions: int) -> dict[str, Any]:
    """Every batch computed on the cluster as it stands, nothing committed: one worker per CPU
    of the cluster, each with one encoder thread, timed once all have loaded the model."""
    from indexer.distributed.ray_compute import RayComputer, RaySpec
    from indexer.ingest.write import batched
    from indexer.stores.layout import DataDir

    data = DataDir(home).ensure()  # empty: no pruned memories to look up
    batches = list(batched(prepared, batch_sessions))
    with RayComputer(RaySpec(address, None, 1, embedder, model_cache)) as computer:
        nodes = len(set(computer.worker_nodes()))
        workers = len(computer.actors)
        load = os.getloadavg()[0]
        started = time.monotonic()
        passages = sum(computed.passages for _, computed in computer.compute(data, batches))
        seconds = time.monotonic() - started
    messages = sum(len(p.session.messages) for p in prepared)
    return {"nodes": nodes, "workers": workers, "compute_s": round(seconds, 1),
            "messages": messages, "passages": passages,
            "messages_per_s": round(messages / seconds, 1), "load_average_1min": load}


def multi_node(args: argparse.Namespace, env: dict[str, str]) -> dict[str, Any]:
    """One node of one CPU, then two, in one run: the compute phase on each, then the CLI
    commands joining the two-node cluster at its address, against one process."""
    from ray.cluster_utils import Cluster

    from indexer.distributed.parity import differences
    from indexer.stores.layout import DataDir

    sessions = first_sessions(args.bench / "locomo" / "sessions", args.sessions,
                              args.work / "sessions")
    prepared = prepared_sessions(sessions, DataDir(args.work / "prepare").ensure())
    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        phases = []
        for n in range(args.rounds):  # 1 node, 2 nodes, and again: a busy machine drifts
            if n:
                cluster.remove_node(next(iter(cluster.worker_nodes)))
            phases.append(compute_phase(cluster.address, prepared, args.work / f"phase-{n}-1",
                                        args.embedder, args.model_cache, args.batch_sessions))
            cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes()
            phases.append(compute_phase(cluster.address, prepared, args.work / f"phase-{n}-2",
                                        args.embedder, args.model_cache, args.batch_sessions))
            print(json.dumps(phases[-2:]), flush=True)
        found: dict[str, Any] = {
            "embedder": args.embedder, "cpus": os.cpu_count(), "sessions": args.sessions,
            "batch_sessions": args.batch_sessions,
            "compute_phase": phases,
            "ratio_2_nodes_vs_1": [round(two["messages_per_s"] / one["messages_per_s"], 2)
                                   for one, two in zip(phases[::2], phases[1::2], strict=True)]}
        if args.compute_only:
            return found
        single, clustered = args.work / "single", args.work / "cluster"
        runs, parity = [], {}
        for command in (["index", str(sessions)], ["reindex"]):
            runs.append(run_recall(command, single, env))
            runs.append(run_recall([*command, "--ray", cluster.address], clustered, env))
            for run in runs[-2:]:
                with_rate(run, phases[0]["messages"])
            parity[command[0]] = differences(DataDir(single), DataDir(clustered))
            print(json.dumps(runs[-2:]), flush=True)
    finally:
        cluster.shutdown()
    return {**found, "runs": runs, "parity": parity,
            "searches": same_searches(single, clustered, args.bench, args.embedder,
                                      args.queries)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True, help="scratch folder (emptied)")
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--nodes", action="store_true",
                        help="a two-node cluster on this machine instead (module docstring)")
    parser.add_argument("--sessions", type=int, default=80,
                        help="with --nodes: the first N LoCoMo sessions")
    # 80 sessions in batches of 32 are 3 shards: two workers could do at best 1.67x the work
    # of one, whatever the nodes; batches of 8 are 10 shards, 5 for each worker
    parser.add_argument("--batch-sessions", type=int, default=8,
                        help="with --nodes: RECALL_BATCH_SESSIONS, the sessions of one shard")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --nodes: measure the compute phase on 1 then 2 nodes N times")
    parser.add_argument("--compute-only", action="store_true",
                        help="with --nodes: the compute phase alone (its own key in --out)")
    parser.add_argument("--model-cache", type=Path, help="RECALL_MODEL_CACHE for every run")
    args = parser.parse_args()
    sessions = args.bench / "locomo" / "sessions"
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    if args.model_cache:  # the commands, this process's searches and the Ray workers
        os.environ["RECALL_MODEL_CACHE"] = str(args.model_cache)
    env = {**os.environ, "RECALL_EMBEDDER": args.embedder, "RECALL_EMBED_THREADS": "1"}
    if args.nodes:
        env["RECALL_BATCH_SESSIONS"] = str(args.batch_sessions)
        found = multi_node(args, env)
        print(json.dumps({k: v for k, v in found.items() if k not in ("compute_phase", "runs")}))
        if args.out:
            key = "multi_node_compute" if args.compute_only else "multi_node"
            kept = json.loads(args.out.read_text()) if args.out.exists() else {}
            args.out.write_text(json.dumps({**kept, key: found}, indent=1) + "\n")
        return 0
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
