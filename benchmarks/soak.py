"""A long soak of `recall serve` over real HTTP: searches, live appends, an index of new files
and a reindex in the middle, with the server's memory and latency reported per 10 minutes.

    python benchmarks/soak.py --bench ../shared/bench --home /tmp/recall-soak \\
        [--minutes 60] [--embedder e5] [--clients 4] [--out docs/soak.json] \\
        [--memory [--trace]] [--warmup 20] [--arenas N]

Not a test (it takes an hour): run it by hand after changes to the server, the stores or the
write path. The data dir should be empty or missing; it is filled as follows.

- Before the clock starts: two thirds of LoCoMo's sessions are indexed (`recall index`), and
  the server is started and warmed up with one search.
- Throughout: `--clients` threads send LoCoMo questions to /v1/search (a short pause between
  requests, as people and agents leave), and one thread appends a message every 2 s to a live
  session, archiving it and starting the next every 5 minutes.
- At a third of the time the last third of LoCoMo's sessions is indexed from new files by a
  separate `recall index` process; at two thirds `recall reindex` rebuilds everything.
- At the end `recall check --json` must be consistent.

With `--memory` the server's anonymous and file-backed memory and its threads are reported per
window too, with the slope of RSS and of anonymous memory after `--warmup` minutes, and every
`--warmup` minutes what glibc malloc and Arrow's pool hold (from inside the server). `--trace`
also runs the server with RECALL_TRACEMALLOC (api/http/memory_trace.py): after the warm-up and
every `--warmup` minutes it dumps a snapshot of its Python allocations and glibc malloc's
arenas to the folder `<out>.tracemalloc` (beside --out, else beside the data dir); the report
lists the sites that grew most from the first snapshot to the last. Tracing slows the server
down (every allocation is recorded): find the grower with it, measure the slope without it. `--arenas N` runs the
server with MALLOC_ARENA_MAX=N instead of recall's own limit (api/http/allocator.py): 16 is glibc's
default on 2 cores, the server as it ran before that limit.

A write that finds another writer at work (409 with Retry-After) is retried after the pause the
server asks for, as any client should; such waits are counted and reported apart from errors
(anything else that is not a 2xx, or no answer at all).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import free_port, percentile, wait_ready
from soak_memory import (
    memory_rows,
    print_memory,
    proc_memory,
    read_trace_folder,
    slopes,
    trace_path,
)

ROOT = Path(__file__).resolve().parents[1]
WINDOW = 600.0  # seconds per reported window


class Log:
    """Every request: (seconds since start, kind, milliseconds, outcome)."""

    def __init__(self) -> None:
        self.rows: list[tuple[float, str, float, str]] = []
        self.errors: list[str] = []
        self.waits: list[str] = []  # each 409 Writer busy: when, and how long it waited
        self.lock = threading.Lock()

    def add(self, at: float, kind: str, ms: float, outcome: str, error: str = "") -> None:
        with self.lock:
            self.rows.append((at, kind, ms, outcome))
            if error:
                self.errors.append(f"{at:.0f}s {kind}: {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--pause", type=float, default=0.5, help="seconds between a client's searches")
    parser.add_argument("--out", type=Path, help="write every figure as JSON here too")
    parser.add_argument("--memory", action="store_true",
                        help="report anonymous and file-backed memory and threads per window")
    parser.add_argument("--trace", action="store_true",
                        help="with --memory: trace the server's Python allocations (slower)")
    parser.add_argument("--warmup", type=float, default=10.0,
                        help="minutes left out of the memory slopes (and before the first trace)")
    parser.add_argument("--arenas", type=int, help="run the server with MALLOC_ARENA_MAX=N")
    args = parser.parse_args()

    sessions = sorted((args.bench / "locomo" / "sessions").rglob("*.json"))
    questions = [json.loads(line)["question"]
                 for line in (args.bench / "locomo" / "queries.jsonl").open()]
    split = len(sessions) * 2 // 3
    first, later = sessions[:split], sessions[split:]
    texts = [m["content"] for path in later for m in json.loads(path.read_text())["messages"]
             if m.get("content")]

    env = {**os.environ, "RECALL_HOME": str(args.home), "RECALL_EMBEDDER": args.embedder}
    server_env = dict(env)
    if args.arenas:
        server_env["MALLOC_ARENA_MAX"] = str(args.arenas)
    trace = trace_path(args)
    if args.memory:  # without --trace, the allocators' figures only (no tracing cost)
        shutil.rmtree(trace, ignore_errors=True)
        server_env |= {"RECALL_TRACEMALLOC": str(trace),
                       "RECALL_TRACEMALLOC_EVERY": str(round(args.warmup * 60)),
                       "RECALL_TRACEMALLOC_FRAMES": "5" if args.trace else "0"}
    staging = Path(tempfile.mkdtemp(prefix="recall-soak-"))
    for name, group in (("first", first), ("later", later)):
        (staging / name).mkdir()
        for path in group:
            shutil.copy(path, staging / name / path.name)

    started = time.monotonic()
    cli(env, "index", str(staging / "first"))
    print(f"indexed {len(first)} sessions in {time.monotonic() - started:.0f} s", flush=True)

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-m", "api.cli", "serve", "--port", str(port)],
                              cwd=ROOT, env=server_env)
    try:
        wait_ready(base, server)
        httpx.get(f"{base}/v1/search", params={"q": "warm up"}, timeout=120)
        report = soak(args, base, server, env, staging, questions, texts, len(later))
    finally:
        server.terminate()
        server.wait(timeout=60)
        shutil.rmtree(staging, ignore_errors=True)
    check = subprocess.run([sys.executable, "-m", "api.cli", "check", "--json"], check=False, cwd=ROOT,
                           env=env, capture_output=True, text=True)
    report["check"] = json.loads(check.stdout) if check.stdout.strip() else {"error": check.stderr}
    if args.memory:
        report["tracemalloc"] = read_trace_folder(trace)
    print_report(report)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")


def soak(args: argparse.Namespace, base: str, server: subprocess.Popen, env: dict[str, str],
         staging: Path, questions: list[str], texts: list[str], later_count: int) -> dict:
    log = Log()
    seconds = args.minutes * 60
    t0 = time.monotonic()
    deadline = t0 + seconds
    stop = threading.Event()

    def searcher(offset: int) -> None:
        with httpx.Client(base_url=base, timeout=120) as http:
            i = offset
            while time.monotonic() < deadline:
                request(http, log, t0, "search", "GET", "/v1/search",
                        params={"q": questions[i % len(questions)]})
                i += 97
                time.sleep(args.pause)

    def appender() -> None:
        with httpx.Client(base_url=base, timeout=120) as http:
            i = 0
            live = None
            opened = 0.0
            while time.monotonic() < deadline:
                if live is None or time.monotonic() - opened > 300:
                    if live is not None:
                        request(http, log, t0, "archive", "PATCH", f"/v1/sessions/{live}",
                                json={"status": "archived"})
                    answer = request(http, log, t0, "start", "POST", "/v1/sessions",
                                     json={"channel": "soak", "participants": ["soak"]})
                    live = answer.get("session_id") if answer else None
                    opened = time.monotonic()
                    if live is None:
                        time.sleep(2)
                        continue
                role = "user" if i % 2 == 0 else "assistant"
                request(http, log, t0, "append", "POST", f"/v1/sessions/{live}/messages",
                        json={"role": role, "content": texts[i % len(texts)]})
                i += 1
                time.sleep(2)

    def memory() -> None:
        while not stop.is_set():
            samples.append((time.monotonic() - t0, proc_memory(server.pid)))
            stop.wait(5)

    samples: list[tuple[float, dict[str, float]]] = []
    jobs: list[dict] = []

    def scheduled(at: float, name: str, *argv: str) -> None:
        if stop.wait(max(0.0, t0 + at - time.monotonic())):
            return
        began = time.monotonic()
        result = subprocess.run([sys.executable, "-m", "api.cli", *argv], check=False, cwd=ROOT, env=env,
                                capture_output=True, text=True)
        jobs.append({"job": name, "at_s": round(began - t0), "seconds": round(time.monotonic() - began, 1),
                     "exit": result.returncode, "stderr_tail": result.stderr[-300:]})
        print(f"{name}: exit {result.returncode} after {time.monotonic() - began:.0f} s", flush=True)

    threads = [threading.Thread(target=searcher, args=(n * 211,)) for n in range(args.clients)]
    threads.append(threading.Thread(target=appender))
    side = [threading.Thread(target=memory),
            threading.Thread(target=scheduled, args=(seconds / 3, "index new files", "index",
                                                     str(staging / "later"))),
            threading.Thread(target=scheduled, args=(seconds * 2 / 3, "reindex", "reindex"))]
    for t in threads + side:
        t.start()
    while any(t.is_alive() for t in threads):
        time.sleep(5)
        done = time.monotonic() - t0
        if int(done) % 300 < 5:
            print(f"{done / 60:.0f} min: {len(log.rows)} requests, {len(log.errors)} errors, "
                  f"RSS {samples[-1][1]['rss'] if samples else 0:.0f} MB", flush=True)
    stop.set()
    for t in side:
        t.join()
    return summarize(log, samples, jobs, args, later_count)


def request(http: httpx.Client, log: Log, t0: float, kind: str, method: str, path: str,
            **kwargs: object) -> dict | None:
    """One call, retried while the server says another writer is at work (409 + Retry-After)."""
    while True:
        began = time.perf_counter()
        try:
            response = http.request(method, path, **kwargs)  # type: ignore[arg-type]
        except httpx.HTTPError as exc:
            log.add(time.monotonic() - t0, kind, ms(began), "error", repr(exc))
            return None
        if response.status_code == 409 and "retry-after" in response.headers:
            log.add(time.monotonic() - t0, kind, ms(began), "busy")
            log.waits.append(f"{time.monotonic() - t0:.0f}s {kind}: {ms(began) / 1000:.0f} s, then 409")
            time.sleep(float(response.headers["retry-after"]))
            continue
        if response.is_success:
            log.add(time.monotonic() - t0, kind, ms(began), "ok")
            return response.json()
        log.add(time.monotonic() - t0, kind, ms(began), "error",
                f"{response.status_code} {response.text[:200]}")
        return None


def ms(began: float) -> float:
    return (time.perf_counter() - began) * 1000


def summarize(log: Log, samples: list[tuple[float, dict[str, float]]], jobs: list[dict],
              args: argparse.Namespace, later_count: int) -> dict:
    windows: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    outcomes: dict[str, int] = defaultdict(int)
    for at, kind, latency, outcome in log.rows:
        outcomes[outcome] += 1
        if outcome == "ok":
            windows[int(at // WINDOW)][kind].append(latency)
    rows = []
    for w in sorted(windows):
        rss = [sample["rss"] for at, sample in samples if w * WINDOW <= at < (w + 1) * WINDOW]
        searches = windows[w]["search"]
        appends = windows[w]["append"]
        rows.append({
            "minutes": f"{w * 10}-{w * 10 + 10}",
            "searches": len(searches),
            "search_p50": round(statistics.median(searches), 1) if searches else None,
            "search_p95": round(percentile(searches, 95), 1) if searches else None,
            "search_p99": round(percentile(searches, 99), 1) if searches else None,
            "appends": len(appends),
            "append_p50": round(statistics.median(appends), 1) if appends else None,
            "append_p95": round(percentile(appends, 95), 1) if appends else None,
            "rss_mb_mean": round(statistics.mean(rss)) if rss else None,
            "rss_mb_max": round(max(rss)) if rss else None,
        })
    slope = slopes(samples, WINDOW, WINDOW)["rss"]
    memory = None
    if args.memory:
        warm = slopes(samples, args.warmup * 60, WINDOW)
        memory = {"warmup_min": args.warmup, "slope_rss_mb_per_10min": warm["rss"],
                  "slope_anon_mb_per_10min": warm["anon"], "arenas_env": args.arenas,
                  "windows": [{"minutes": f"{w * 10}-{w * 10 + 10}"}
                              | memory_rows(samples, w * WINDOW, (w + 1) * WINDOW)
                              for w in sorted(windows)]}
    return {"minutes": args.minutes, "clients": args.clients, "embedder": args.embedder,
            "pause_s": args.pause, "later_sessions": later_count, "outcomes": dict(outcomes),
            "errors": log.errors[:20], "writer_busy": log.waits, "windows": rows, "jobs": jobs,
            "rss_slope_mb_per_10min_after_warmup": slope,
            "rss_first_mb": samples[0][1]["rss"] if samples else None,
            "rss_last_mb": samples[-1][1]["rss"] if samples else None, "memory": memory}


def print_report(report: dict) -> None:
    print(f"\n{report['minutes']:.0f} min, {report['clients']} search clients + 1 appender, "
          f"embedder {report['embedder']}; outcomes {report['outcomes']}")
    print("| minutes | searches | search p50 / p95 / p99 ms | appends | append p50 / p95 ms | RSS MB mean / max |")
    print("|---|---|---|---|---|---|")
    for r in report["windows"]:
        print(f"| {r['minutes']} | {r['searches']} | {r['search_p50']} / {r['search_p95']} / "
              f"{r['search_p99']} | {r['appends']} | {r['append_p50']} / {r['append_p95']} | "
              f"{r['rss_mb_mean']} / {r['rss_mb_max']} |")
    print(f"RSS slope after the first 10 min: {report['rss_slope_mb_per_10min_after_warmup']} MB per 10 min "
          f"(first {report['rss_first_mb']:.0f} MB, last {report['rss_last_mb']:.0f} MB)")
    for job in report["jobs"]:
        print(f"{job['job']}: at {job['at_s']} s, {job['seconds']} s, exit {job['exit']}")
    for error in report["errors"]:
        print("error:", error)
    for wait in report["writer_busy"]:
        print("writer busy (retried):", wait)
    check = report["check"]
    print("recall check:", "consistent" if check.get("ok") else json.dumps(check)[:500])
    print_memory(report)


def cli(env: dict[str, str], *argv: str) -> None:
    subprocess.run([sys.executable, "-m", "api.cli", *argv], cwd=ROOT, env=env, check=True)


if __name__ == "__main__":
    main()
