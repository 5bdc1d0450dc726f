"""Two `recall serve` processes on one data directory behind haproxy, measured over real HTTP.

    python benchmarks/load_balancer.py --home /tmp/recall-scale-out/single \\
        --bench ../shared/bench --work /tmp/recall-lb [--queries 50] [--out F]

--home is an indexed data directory (copied, never changed); its embedder is read from
RECALL_EMBEDDER (default e5). Both servers and the reindex are `recall` as installed, each its
own process, with RECALL_API_TOKEN set; haproxy is scripts/load_balancer.py's. Steps:

1. --queries LoCoMo questions, each asked twice through the balancer: which server answered
   (round robin: one each), whether both gave the same top 10, and the balancer's own cost
   (p50 through it against p50 straight to a server, the same questions);
2. a session ingested through one server: seconds until the other finds it, five times;
3. failover: 4 clients through the balancer for --seconds (one request in ten an ingest),
   the first server killed with SIGKILL a third of the way in, then started again on its port:
   errors seen by clients, latency before and after the kill, when the balancer stopped and
   started sending it requests again;
4. `recall reindex` while 2 clients search through the balancer: errors, and how long after
   the switch each server answered from the new generation.

    python benchmarks/load_balancer.py --soak 10 --work /tmp/recall-lb-soak --busy-cores \
        [--home H --bench B] [--kill-every 60] [--out F]

runs only the soak: 4 clients through the balancer for --soak minutes, one request in five an
ingest, and every --kill-every seconds (the first at half that) one server killed with SIGKILL,
the two in turn, and started again on its port at once; then every acknowledged ingest is read
back through the balancer, and `recall check` runs on the data directory. Reported: requests,
errors seen by clients (with what they got), each kill (restart time, back in rotation), the
latency overall, minute by minute and in the 5 s after each kill, the servers' warnings.
Without --home it indexes examples/ with the hash embedder; without --bench it asks a few
questions about them. --busy-cores keeps every core busy with a spinning process meanwhile
(the failover once answered 503 only on a busy machine). The servers' output goes to
<work>/server-<n>.log.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lb_load import (
    AUTH,
    RECALL,
    TOKEN,
    Load,
    error_counts,
    latency_summary,
    load_balancer,
    session_record,
    top10,
)
from lb_soak import run_soak
from load import free_port, serve_installed


def alternation(lb: str, direct: str, questions: list[str]) -> dict[str, Any]:
    by_server: dict[str, dict[str, list[str]]] = {}
    lb_ms, direct_ms = [], []
    with httpx.Client(headers=AUTH, timeout=60) as http:
        for question in questions[:3]:  # warm-up, both servers
            for _ in range(2):
                http.get(f"{lb}/v1/search", params={"q": question})
        for question in questions:
            for _ in range(2):
                started = time.perf_counter()
                answer = http.get(f"{lb}/v1/search", params={"q": question, "limit": 10})
                lb_ms.append((time.perf_counter() - started) * 1000)
                by_server.setdefault(answer.headers["x-served-by"], {})[question] = top10(answer)
            started = time.perf_counter()
            http.get(f"{direct}/v1/search", params={"q": question, "limit": 10}).raise_for_status()
            direct_ms.append((time.perf_counter() - started) * 1000)
    first, second = (by_server.get(name, {}) for name in ("s1", "s2"))
    return {"answered_by": {name: len(answers) for name, answers in sorted(by_server.items())},
            "identical_top10": sum(first.get(q) == second.get(q) for q in questions),
            "queries": len(questions),
            "p50_ms": {"through_balancer": round(statistics.median(lb_ms), 1),
                       "straight_to_server": round(statistics.median(direct_ms), 1)}}


def visible_elsewhere(first: str, second: str, n: int) -> float:
    word = f"quillwort{n}vantage"
    with httpx.Client(headers=AUTH, timeout=120) as http:
        started = time.monotonic()
        http.post(f"{first}/v1/sessions", json=session_record(f"lb-visible-{n}", f"the {word} is set")
                  ).raise_for_status()
        while time.monotonic() - started < 60:
            found = http.get(f"{second}/v1/search", params={"q": word, "mode": "keyword"})
            if f"lb-visible-{n}" in top10(found):
                return time.monotonic() - started
            time.sleep(0.02)
    raise SystemExit("the other server never found the new session")


def failover(lb: str, questions: list[str], victim: subprocess.Popen[bytes], restart: Any,
             seconds: float) -> tuple[dict[str, Any], subprocess.Popen[bytes]]:
    with Load(lb, questions, clients=4, write_every=10) as load:
        time.sleep(seconds / 3)
        victim.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        victim.wait()
        time.sleep(seconds / 3)
        restarted_at = time.monotonic()
        revived = restart()
        ready = time.monotonic()
        time.sleep(seconds / 3)
    rows = load.rows
    after_kill = [r for r in rows if killed <= r[0] < restarted_at]
    last_to_victim = max((r[0] for r in rows if r[2] == "s1" and r[0] < restarted_at), default=killed)
    back = min((r[0] for r in rows if r[2] == "s1" and r[0] > restarted_at), default=None)
    return {
        "seconds": seconds, "clients": 4, "requests": len(rows),
        "writes": sum(1 for r in rows if r[4] == "write"),
        "errors_seen_by_clients": error_counts(rows),
        "latency_ms_before_kill": latency_summary([r for r in rows if r[0] < killed]),
        "latency_ms_after_kill_one_server": latency_summary(after_kill),
        "latency_ms_first_2s_after_kill": latency_summary([r for r in after_kill if r[0] < killed + 2]),
        "last_request_sent_to_killed_server_s_after_kill": round(last_to_victim - killed, 2),
        "restart_ready_s": round(ready - restarted_at, 1),
        "back_in_rotation_s_after_ready": round(back - ready, 2) if back else None,
    }, revived


def reindex_under_load(lb: str, servers: list[str], home: Path, env: dict[str, str],
                       questions: list[str]) -> dict[str, Any]:
    with httpx.Client(headers=AUTH, timeout=60) as http:
        before = http.get(f"{servers[0]}/healthz").json()["generation"]
        switched: dict[str, float] = {}

        def watch() -> None:
            while len(switched) < len(servers) and not load.stop.is_set():
                for base in servers:
                    if base not in switched and http.get(f"{base}/healthz").json().get(
                            "generation") != before:
                        switched[base] = time.monotonic()
                time.sleep(0.02)

        with Load(lb, questions, clients=2, write_every=0) as load:
            watcher = threading.Thread(target=watch)
            watcher.start()
            started = time.monotonic()
            done = subprocess.run([str(RECALL), "reindex"], env={**env, "RECALL_HOME": str(home)},
                                  capture_output=True, text=True, check=False)
            finished = time.monotonic()
            deadline = finished + 30
            while len(switched) < len(servers) and time.monotonic() < deadline:
                time.sleep(0.05)
        watcher.join(5)
    if done.returncode != 0:
        raise SystemExit(f"recall reindex failed: {done.stderr}")
    return {"reindex_s": round(finished - started, 1), "searches_during": len(load.rows),
            "errors_seen_by_clients": error_counts(load.rows),
            "latency_ms_during": latency_summary(load.rows),
            "servers_switched": len(switched),
            # negative: the server answered from the new generation before the command exited
            "switch_seen_s_after_reindex_ended": sorted(round(t - finished, 2)
                                                        for t in switched.values())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path)
    parser.add_argument("--bench", type=Path)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0, help="of the failover run")
    parser.add_argument("--soak", type=float, metavar="MINUTES", help="run only the soak")
    parser.add_argument("--kill-every", type=float, default=60.0, help="seconds, in the soak")
    parser.add_argument("--busy-cores", action="store_true",
                        help="in the soak, a process spinning on every core")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    if args.soak:
        result = run_soak(args)
        print(json.dumps(result, indent=1))
        if args.out:
            args.out.write_text(json.dumps(result, indent=1) + "\n")
        return 0
    if args.home is None or args.bench is None:
        parser.error("--home and --bench are needed, except with --soak")
    home = args.work / "home"
    shutil.copytree(args.home, home, ignore=shutil.ignore_patterns("*.lock", "*.queue"))
    env = {**os.environ, "RECALL_API_TOKEN": TOKEN}
    questions = [json.loads(line)["question"] for line in
                 (args.bench / "locomo" / "queries.jsonl").read_text().splitlines()]
    ports = [free_port(), free_port()]
    procs = [serve_installed(home, env, port=port)[0] for port in ports]
    servers = [f"http://127.0.0.1:{port}" for port in ports]
    lb_port = free_port()
    lb = load_balancer.start(lb_port, [s.removeprefix("http://") for s in servers],
                             args.work / "haproxy")
    lb_url = f"http://127.0.0.1:{lb_port}"
    try:
        result: dict[str, Any] = {"alternation": alternation(lb_url, servers[1],
                                                             questions[:args.queries])}
        visible = [visible_elsewhere(servers[0], servers[1], n) for n in range(5)]
        result["ingest_visible_on_other_s"] = {"median": round(statistics.median(visible), 2),
                                               "max": round(max(visible), 2)}

        def restart() -> subprocess.Popen[bytes]:
            return serve_installed(home, env, port=ports[0])[0]

        result["failover"], procs[0] = failover(lb_url, questions, procs[0], restart,
                                                args.seconds)
        result["reindex"] = reindex_under_load(lb_url, servers, home, env, questions)
        print(json.dumps(result, indent=1))
        if args.out:
            args.out.write_text(json.dumps(result, indent=1) + "\n")
    finally:
        lb.terminate()
        lb.wait(10)
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
