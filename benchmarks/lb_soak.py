"""The soak of benchmarks/load_balancer.py (`--soak MINUTES`; its docstring says what is run
and reported)."""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lb_load import (
    AUTH,
    EXAMPLE_QUESTIONS,
    RECALL,
    ROOT,
    TOKEN,
    Load,
    busy_cores,
    error_counts,
    latency_summary,
    load_balancer,
    serve_logged,
)
from load import free_port


def soak(lb: str, questions: list[str], procs: list[subprocess.Popen[bytes]],
         start: Callable[[int], subprocess.Popen[bytes]], minutes: float,
         kill_every: float) -> tuple[dict[str, Any], list[str]]:
    """Mixed load through the balancer while the servers are killed in turn and started again;
    returns the figures and the sessions whose ingest was acknowledged."""
    kills: list[dict[str, Any]] = []
    began = time.monotonic()
    end = began + minutes * 60
    with Load(lb, questions, clients=4, write_every=5) as load:
        while (at := began + kill_every / 2 + len(kills) * kill_every) < end:
            time.sleep(max(0.0, at - time.monotonic()))
            victim = len(kills) % len(procs)
            procs[victim].send_signal(signal.SIGKILL)
            killed = time.monotonic()
            procs[victim].wait()
            procs[victim] = start(victim)
            kills.append({"server": f"s{victim + 1}", "killed": killed, "ready": time.monotonic()})
        time.sleep(max(0.0, end - time.monotonic()))
    rows = load.rows
    for kill in kills:
        back = min((r[0] for r in rows if r[2] == kill["server"] and r[0] > kill["ready"]),
                   default=None)
        kill["at_s"] = round(kill["killed"] - began, 1)
        kill["restart_ready_s"] = round(kill["ready"] - kill["killed"], 1)
        kill["back_in_rotation_s_after_ready"] = round(back - kill["ready"], 2) if back else None
        kill["requests_in_5s_after"] = sum(1 for r in rows
                                           if kill["killed"] <= r[0] < kill["killed"] + 5)
    after_kills = [r for r in rows if any(k["killed"] <= r[0] < k["killed"] + 5 for k in kills)]
    writes = [r for r in rows if r[4] == "write"]
    by_minute = [[r for r in rows if began + 60 * m <= r[0] < began + 60 * (m + 1)]
                 for m in range(math.ceil(minutes))]
    return {
        "minutes": minutes, "clients": 4, "kill_every_s": kill_every, "kills": len(kills),
        "requests": len(rows), "writes": len(writes),
        "errors_seen_by_clients": error_counts(rows), "what_failed": load.failures[:20],
        "answered_by": {name: sum(1 for r in rows if r[2] == name)
                        for name in sorted({r[2] for r in rows})},
        "latency_ms": latency_summary(rows),
        "latency_ms_searches": latency_summary([r for r in rows if r[4] == "search"]),
        "latency_ms_writes": latency_summary(writes),
        "by_minute": [{"minute": m + 1, "requests": len(minute),
                       "search_p50_ms": latency_summary([r for r in minute if r[4] == "search"]).get("p50"),
                       "write_p50_ms": latency_summary([r for r in minute if r[4] == "write"]).get("p50")}
                      for m, minute in enumerate(by_minute)],
        "latency_ms_5s_after_each_kill": latency_summary(after_kills),
        "each_kill": [{k: v for k, v in kill.items() if k not in ("killed", "ready")}
                      for kill in kills],
    }, load.written


def read_back(lb: str, written: list[str]) -> dict[str, Any]:
    """Every acknowledged ingest, asked for through the balancer."""
    with httpx.Client(headers=AUTH, timeout=60) as http:
        missing = [sid for sid in written
                   if http.get(f"{lb}/v1/sessions/{sid}").status_code != 200]
    return {"acknowledged": len(written), "missing": len(missing), "first_missing": missing[:10]}


def run_soak(args: argparse.Namespace) -> dict[str, Any]:
    home = args.work / "home"
    env = {**os.environ, "RECALL_API_TOKEN": TOKEN}
    if args.home:
        shutil.copytree(args.home, home, ignore=shutil.ignore_patterns("*.lock", "*.queue"))
    else:
        env["RECALL_EMBEDDER"] = "hash"
        subprocess.run([str(RECALL), "index", str(ROOT / "examples")],
                       env={**env, "RECALL_HOME": str(home)}, check=True, capture_output=True)
    questions = ([json.loads(line)["question"] for line in
                  (args.bench / "locomo" / "queries.jsonl").read_text().splitlines()]
                 if args.bench else EXAMPLE_QUESTIONS)
    ports = [free_port(), free_port()]

    def start(n: int) -> subprocess.Popen[bytes]:
        return serve_logged(home, env, ports[n], args.work / f"server-{n + 1}.log")

    procs = [start(n) for n in range(len(ports))]
    lb_port = free_port()
    lb = load_balancer.start(lb_port, [f"127.0.0.1:{port}" for port in ports],
                             args.work / "haproxy")
    lb_url = f"http://127.0.0.1:{lb_port}"
    try:
        with busy_cores(args.busy_cores) as spinning:
            result, written = soak(lb_url, questions, procs, start, args.soak, args.kill_every)
        result["busy_cores"] = spinning
        result["embedder"] = env.get("RECALL_EMBEDDER", "e5")
        result["ingests_read_back"] = read_back(lb_url, written)
    finally:
        lb.terminate()
        lb.wait(10)
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=60)
    check = subprocess.run([str(RECALL), "check", "--json"], env={**env, "RECALL_HOME": str(home)},
                           capture_output=True, text=True, check=False)
    result["recall_check_exit_status"] = check.returncode  # 0: archive, state and indexes agree
    result["server_log_warnings"] = _warnings(args.work.glob("server-*.log"))
    return result


def _warnings(logs: Iterator[Path]) -> dict[str, int]:
    """The servers' warnings, errors and tracebacks, counted by their first words."""
    counts: dict[str, int] = {}
    for log in logs:
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith(("WARNING", "ERROR", "CRITICAL", "Traceback")):
                counts[line[:100]] = counts.get(line[:100], 0) + 1
    return counts
