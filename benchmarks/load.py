"""Bounded HTTP load on /v1/search: N concurrent clients for a fixed time, loopback only.

    python benchmarks/load.py --bench ../shared/bench --home /tmp/recall-bench/locomo-e5 \\
        [--clients 8] [--seconds 30] [--embedder e5]

Starts `recall serve` on a free loopback port over an already indexed data dir (index it first,
e.g. with benchmarks/retrieval.py), then each client thread sends LoCoMo questions in turn (a
different starting point per client) until the time is up. Prints requests/s, latency
percentiles and the error count, and the server's resident memory sampled once a second
(first and last 10 s compared: memory should stay flat under steady load).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(base: str, proc: subprocess.Popen) -> None:
    for _ in range(1200):
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if proc.poll() is not None:
            raise SystemExit("server exited before it was ready")
        time.sleep(0.1)
    raise SystemExit("server not ready after 120 s")


def serve_installed(home: Path, env: dict[str, str], *args: str, port: int | None = None
                    ) -> tuple[subprocess.Popen[bytes], str]:
    """`recall serve` as installed (the venv's `recall`) on `home`, on `port` or a free one,
    its output dropped; returns once /healthz answers 200, with its base URL."""
    port = port or free_port()
    proc = subprocess.Popen([str(Path(sys.executable).with_name("recall")), "serve", "--port",
                             str(port), *args], env={**env, "RECALL_HOME": str(home)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    wait_ready(base, proc)
    return proc, base


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    if args.seconds > 60:
        raise SystemExit("--seconds is capped at 60")
    questions = [json.loads(line)["question"] for line in (args.bench / "locomo" / "queries.jsonl").open()]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "RECALL_HOME": str(args.home), "RECALL_EMBEDDER": args.embedder}
    proc = subprocess.Popen([sys.executable, "-m", "api.cli", "serve", "--port", str(port)], cwd=ROOT, env=env)
    try:
        wait_ready(base, proc)
        latencies: list[float] = []
        errors: list[str] = []
        lock = threading.Lock()
        deadline = time.monotonic() + args.seconds

        def client(offset: int) -> None:
            with httpx.Client(base_url=base, timeout=30) as http:
                i = offset
                while time.monotonic() < deadline:
                    started = time.perf_counter()
                    try:
                        response = http.get("/v1/search", params={"q": questions[i % len(questions)]})
                        ok = response.status_code == 200
                    except httpx.HTTPError as exc:
                        ok, response = False, exc
                    elapsed = (time.perf_counter() - started) * 1000
                    with lock:
                        (latencies if ok else errors).append(elapsed if ok else str(response))
                    i += 97

        threads = [threading.Thread(target=client, args=(n * 211,)) for n in range(args.clients)]
        started = time.monotonic()
        for t in threads:
            t.start()
        samples: list[float] = []
        while any(t.is_alive() for t in threads):
            samples.append(rss_mb(proc.pid))
            time.sleep(1)
        for t in threads:
            t.join()
        wall = time.monotonic() - started
        print(f"{args.clients} clients, {wall:.1f} s, {len(latencies)} ok, {len(errors)} errors")
        print(f"requests/s {len(latencies) / wall:.1f}")
        print(f"latency ms: p50 {statistics.median(latencies):.1f}  p95 {percentile(latencies, 95):.1f}  "
              f"p99 {percentile(latencies, 99):.1f}  max {max(latencies):.1f}")
        for error in errors[:5]:
            print("error:", error)
        if len(samples) >= 20:
            head, tail = statistics.mean(samples[:10]), statistics.mean(samples[-10:])
            print(f"server RSS MB: first 10 s {head:.0f}, last 10 s {tail:.0f}, max {max(samples):.0f} "
                  f"({(tail - head) / head:+.1%}); every 10 s: "
                  + " ".join(f"{v:.0f}" for v in samples[::10]))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
