"""recall beside what a user would pick instead, on the same data in one run: SQLite FTS5 and
LanceDB's native hybrid search (benchmarks/side_by_side_engines.py). Ingest (messages/s) and
query latency p50/p95 for each.

    python benchmarks/side_by_side.py --sessions 10000 --json docs/performance/side-by-side-10k.json
    python benchmarks/side_by_side.py --recall-home /tmp/recall-100k/home \\
        --recall-ingest-report report.json --json docs/performance/side-by-side-100k.json

The archive is scripts/generate_archive.py's (seed 7, benchmarks/scale.py's), indexed by
`recall index` as installed into a new data directory with the hash embedder (`--embedder`), or,
with `--recall-home`, a data directory indexed before (its embedder read from its index; its
ingest figure then comes from `--recall-ingest-report`, that run's `recall index --json`, when
given). Both baselines are built from the data directory's archive (the sessions recall
indexed, as it stored them), with the same hash vectors, and their ingest is timed here.

Query legs, the same queries (generate_archive.sample_queries) for each:
  - recall, cold CLI: `recall search QUERY` (hybrid) as installed, a new process per query, no
    server running (the page cache warm: a first search is run and not counted)
  - recall, CLI through the server: the same commands with `recall serve` running (the fast client)
  - recall, warm: GET /v1/search on a running `recall serve` over one kept-alive connection,
    hybrid and keyword; GET /healthz on that connection beside them (not a floor: it opens and
    counts both indexes)
  - FTS5 keyword and LanceDB hybrid, in this process, their files opened once
One process at a time: nothing else of the benchmark runs during a leg. Beside each wall time,
the CPU time it took (the command's, or the server's and the client's, or this process's with
its threads): on a shared machine a wall time also waits for a core, a CPU time much less so.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# lance warns on every hybrid query that it adds its score columns to a selection
os.environ.setdefault("LANCEDB_LOG", "error")
sys.path.insert(0, str(ROOT / "scripts"))

from api.client.search import PARAMS, wire_params  # the fast client's request
from api.client.server import address, find

INSTALLED = Path(sys.executable).with_name("recall")
WARM_UP = 5


def percentiles(times_ms: list[float]) -> dict[str, float]:
    ordered = sorted(times_ms)
    return {"p50": round(statistics.median(ordered), 1),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
            "min": round(ordered[0], 1), "max": round(ordered[-1], 1), "n": len(ordered)}


def own_cpu() -> float:
    """CPU seconds of this process, every thread (LanceDB's and SQLite's work included)."""
    return time.process_time()


def children_cpu() -> float:
    """CPU seconds of the finished child processes (the `recall` commands run)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid: int) -> float:
    """CPU seconds of a running process (the server), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(search: Callable[[str], int], queries: list[str], cpu: Callable[[], float] = own_cpu,
          warm_up: int = WARM_UP) -> dict[str, Any]:
    """Latency of `search` over the queries after a few not counted, the CPU time they took (on
    a shared machine the wall time waits for the cores too), how many found nothing."""
    for query in queries[:warm_up]:
        search(query)
    times, empty = [], 0
    cpu_before = cpu()
    for query in queries:
        started = time.perf_counter()
        found = search(query)
        times.append((time.perf_counter() - started) * 1000)
        empty += found == 0
    cpu_ms = (cpu() - cpu_before) * 1000 / len(queries)
    return {**percentiles(times), "cpu_ms_per_query": round(cpu_ms, 1), "empty_answers": empty}


# -- recall ---------------------------------------------------------------------------------------
def recall_env(home: Path, embedder: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("RECALL_") and k != "PYTHONDONTWRITEBYTECODE"}
    # the installed `recall` runs this copy's code (an export of a commit, say), not whatever
    # the editable install points at: PYTHONPATH comes before its import hook
    return {**env, "PYTHONPATH": str(ROOT), "RECALL_HOME": str(home), "RECALL_EMBEDDER": embedder}


def recall_index(archive: Path, env: dict[str, str]) -> dict[str, Any]:
    cpu_before = children_cpu()
    started = time.perf_counter()
    done = subprocess.run([str(INSTALLED), "index", str(archive), "--json"], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"recall index failed: {done.stderr[-2000:]}")
    return ingest_figures(json.loads(done.stdout), wall, children_cpu() - cpu_before)


def ingest_figures(report: dict[str, Any], wall: float | None, cpu: float | None) -> dict[str, Any]:
    seconds = wall or report["seconds"]
    return {"messages": report["messages"], "sessions": report["indexed"],
            "report_seconds": report["seconds"], "wall_s": round(wall, 1) if wall else None,
            "messages_per_s": round(report["messages"] / seconds, 1),
            "cpu_s": round(cpu, 1) if cpu else None,
            "messages_per_cpu_s": round(report["messages"] / cpu, 1) if cpu else None}


def cli_search(env: dict[str, str]) -> Callable[[str], int]:
    def search(query: str) -> int:
        done = subprocess.run([str(INSTALLED), "search", query], env=env, cwd=ROOT,
                              capture_output=True, check=False)
        if done.returncode not in (0, 1):  # 1: no match
            raise SystemExit(f"recall search {query!r} failed: {done.stderr.decode()[-1000:]}")
        return int(done.returncode == 0)
    return search


class WarmClient:
    """One kept-alive HTTP connection to `recall serve`, sending the fast client's request."""

    def __init__(self, home: Path) -> None:
        server = find(home)
        if server is None:
            raise SystemExit(f"no server running for {home}")
        self.connection = http.client.HTTPConnection(*address(server.url), timeout=120)

    def get(self, target: str) -> bytes:
        self.connection.request("GET", target)
        reply = self.connection.getresponse()
        body = reply.read()
        if reply.status != 200:
            raise SystemExit(f"{target} answered {reply.status}: {body[:500]!r}")
        return body

    def search(self, mode: str) -> Callable[[str], int]:
        def search(query: str) -> int:
            params = dict(PARAMS) | {"query": query, "mode": mode}
            return len(json.loads(self.get("/v1/search?" + urlencode(wire_params(params))))["results"])
        return search


def server_legs(home: Path, env: dict[str, str], queries: list[str],
                cold_queries: list[str]) -> dict[str, Any]:
    (home / "server.json").unlink(missing_ok=True)
    port = 20000 + os.getpid() % 20000
    started = time.perf_counter()
    server = subprocess.Popen([str(INSTALLED), "serve", "--port", str(port)], env=env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while find(home) is None:
            if server.poll() is not None or time.perf_counter() - started > 600:
                raise SystemExit("recall serve did not start")
            time.sleep(0.05)
        out: dict[str, Any] = {"server_ready_s": round(time.perf_counter() - started, 1)}
        client = WarmClient(home)

        def server_and_client() -> float:
            return process_cpu(server.pid) + own_cpu()

        def server_and_commands() -> float:
            return process_cpu(server.pid) + children_cpu()

        out["recall warm hybrid (HTTP)"] = timed(client.search("hybrid"), queries, server_and_client)
        out["recall warm keyword (HTTP)"] = timed(client.search("keyword"), queries, server_and_client)
        out["GET /healthz (counts both indexes)"] = timed(lambda _: len(client.get("/healthz")), queries,
                                                server_and_client)
        client.connection.close()
        out["recall CLI through the server (hybrid)"] = timed(cli_search(env), cold_queries,
                                                              server_and_commands, warm_up=1)
        return out
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


def index_meta(home: Path) -> dict[str, Any]:
    generation = (home / "index" / "CURRENT").read_text().strip()
    return dict(json.loads((home / "index" / generation / "meta.json").read_text()))


# -- the run --------------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> dict[str, Any]:
    import generate_archive

    from benchmarks.side_by_side_engines import Fts5Engine, LanceEngine, build_baselines

    args.work.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"code": str(ROOT), "cpus": os.cpu_count(),
                              "load_average_at_start": os.getloadavg()[0]}
    if args.recall_home:
        home = args.recall_home
        meta = index_meta(home)
        env = recall_env(home, meta["embedder"])
        report = json.loads(args.recall_ingest_report.read_text()) if args.recall_ingest_report else None
        result["recall_ingest"] = (ingest_figures(report, None, None) | {"measured": "by the run that built it"}
                                   if report else None)
    else:
        archive = args.work / f"archive-{args.sessions}"
        if not (archive / ".complete").exists():
            shutil.rmtree(archive, ignore_errors=True)
            sum(n for _, n in generate_archive.generate(archive, args.sessions))
            (archive / ".complete").write_text("")
        home = args.work / f"home-{args.sessions}"
        shutil.rmtree(home, ignore_errors=True)
        env = recall_env(home, args.embedder)
        print(f"recall index {archive} ({args.embedder}) ...", file=sys.stderr, flush=True)
        result["recall_ingest"] = recall_index(archive, env)
        meta = index_meta(home)
    result.update(home=str(home), embedder=meta["embedder"], dim=meta["dim"])
    sessions_dir = home / "archive" / "sessions"
    result["sessions"] = sum(1 for _ in sessions_dir.rglob("*.json"))
    print(f"baselines from {sessions_dir} ...", file=sys.stderr, flush=True)
    baselines_dir = args.work / f"baselines-{result['sessions']}"
    result["baselines"] = build_baselines(sessions_dir, baselines_dir, meta["dim"], args.workers)
    queries = generate_archive.sample_queries(args.queries)
    cold_queries = queries[:args.cold_queries]
    result["queries"], result["cold_queries"] = len(queries), len(cold_queries)
    latency: dict[str, Any] = {}
    print("FTS5 and LanceDB queries ...", file=sys.stderr, flush=True)
    fts5 = Fts5Engine(baselines_dir / "fts5.sqlite3")
    latency["SQLite FTS5 keyword (bm25)"] = timed(lambda q: len(fts5.search(q)), queries)
    lance = LanceEngine(baselines_dir / "lancedb", meta["dim"])
    latency["LanceDB native hybrid (FTS + ANN, RRF)"] = timed(lambda q: len(lance.search(q)), queries)
    print("recall cold CLI ...", file=sys.stderr, flush=True)
    latency["recall cold CLI (hybrid, new process)"] = timed(cli_search(env), cold_queries,
                                                             children_cpu, warm_up=1)
    print("recall serve ...", file=sys.stderr, flush=True)
    latency.update(server_legs(home, env, queries, cold_queries))
    result["server_ready_s"] = latency.pop("server_ready_s")
    result["latency_ms"] = latency
    result["load_average_at_end"] = os.getloadavg()[0]
    return result


def print_table(r: dict[str, Any]) -> None:
    print(f"\n{r['sessions']} sessions, embedder {r['embedder']}, {r['cpus']} CPUs, load average "
          f"{r['load_average_at_start']:.1f} -> {r['load_average_at_end']:.1f}")
    b = r["baselines"]
    rows = [("recall index", r["recall_ingest"]), ("SQLite FTS5", b["fts5"]), ("LanceDB", b["lancedb"]),
            ("hash vectors alone", b["hash_vectors"])]
    for name, figures in rows:
        if figures:
            cpu = figures.get("messages_per_cpu_s")
            print(f"ingest {name:<22}{figures['messages_per_s']:>10.1f} msg/s  "
                  f"{cpu if cpu else '-':>10} msg per CPU-s")
    print(f"{'latency ms':<44}{'p50':>8}{'p95':>8}{'cpu':>8}{'n':>5}{'empty':>7}")
    for name, p in r["latency_ms"].items():
        print(f"{name:<44}{p['p50']:>8}{p['p95']:>8}{p['cpu_ms_per_query']:>8}{p['n']:>5}"
              f"{p['empty_answers']:>7}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000, help="archive size to generate")
    parser.add_argument("--embedder", default="hash", help="recall's embedder for a new index")
    parser.add_argument("--recall-home", type=Path, help="an indexed data directory to reuse")
    parser.add_argument("--recall-ingest-report", type=Path,
                        help="`recall index --json` of the run that built --recall-home")
    parser.add_argument("--work", type=Path, default=Path("/tmp/recall-side-by-side"))
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--cold-queries", type=int, default=5, help="queries run as new processes")
    parser.add_argument("--workers", type=int, default=1, help="processes computing hash vectors")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = run(args)
    print_table(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
