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
import importlib.util
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import free_port, percentile, serve_installed, wait_ready

ROOT = Path(__file__).resolve().parents[1]
RECALL = Path(sys.executable).with_name("recall")
TOKEN = "bench-lb-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

# the soak's questions without --bench: about examples/ (those of `make run` and the tests)
EXAMPLE_QUESTIONS = ["invoices", "Friday deploys", "Kyoto", "ruff", "周报", "升级",
                     "ERR_CONNECTION_REFUSED", "vacation planning in Japan"]

_spec = importlib.util.spec_from_file_location("load_balancer", ROOT / "scripts" / "load_balancer.py")
assert _spec and _spec.loader
load_balancer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(load_balancer)


def _record(session_id: str, text: str) -> dict[str, object]:
    return {"sessionId": session_id, "date": "2026-11-30", "channel": "cli",
            "participants": ["ann"], "messages": [{"id": "m1", "role": "user", "content": text}]}


def _top10(answer: httpx.Response) -> list[str]:
    answer.raise_for_status()
    return [hit["session_id"] for hit in answer.json()["results"]]


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
                by_server.setdefault(answer.headers["x-served-by"], {})[question] = _top10(answer)
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
        http.post(f"{first}/v1/sessions", json=_record(f"lb-visible-{n}", f"the {word} is set")
                  ).raise_for_status()
        while time.monotonic() - started < 60:
            found = http.get(f"{second}/v1/search", params={"q": word, "mode": "keyword"})
            if f"lb-visible-{n}" in _top10(found):
                return time.monotonic() - started
            time.sleep(0.02)
    raise SystemExit("the other server never found the new session")


class Load:
    """Clients sending searches (and one ingest in `write_every`) through the balancer."""

    def __init__(self, lb: str, questions: list[str], clients: int, write_every: int) -> None:
        self.lb, self.questions, self.write_every = lb, questions, write_every
        self.rows: list[tuple[float, float, str, str, str]] = []  # start, ms, server, outcome, kind
        self.written: list[str] = []  # the sessions whose ingest was acknowledged
        self.failures: list[str] = []  # what each request that failed got
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._client, args=(n,)) for n in range(clients)]

    def __enter__(self) -> Self:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(120)

    def _client(self, n: int) -> None:
        with httpx.Client(headers=AUTH, timeout=60) as http:
            i = 0
            while not self.stop.is_set():
                i += 1
                started = time.monotonic()
                kind = "write" if self.write_every and i % self.write_every == 0 else "search"
                try:
                    if kind == "write":
                        session_id = f"lb-load-{n}-{i}"
                        answer = http.post(f"{self.lb}/v1/sessions", json=_record(
                            session_id, f"load line {n} {i} on the heron rollout"))
                        outcome = "ok" if answer.status_code in (200, 201) else str(answer.status_code)
                        if outcome == "ok":
                            self.written.append(session_id)
                    else:
                        question = self.questions[(n * 7919 + i) % len(self.questions)]
                        answer = http.get(f"{self.lb}/v1/search", params={"q": question})
                        outcome = "ok" if answer.status_code == 200 else str(answer.status_code)
                    server = answer.headers.get("x-served-by", "-")
                    if outcome != "ok":
                        self.failures.append(f"{kind} {outcome}: {answer.text[:300]}")
                except httpx.HTTPError as exc:
                    outcome, server = type(exc).__name__, "-"
                    self.failures.append(f"{kind} {exc!r}")
                self.rows.append((started, (time.monotonic() - started) * 1000, server, outcome,
                                  kind))


Row = tuple[float, float, str, str, str]


def _errors(rows: list[Row]) -> dict[str, int]:
    errors: dict[str, int] = {}
    for row in rows:
        if row[3] != "ok":
            errors[row[3]] = errors.get(row[3], 0) + 1
    return errors


def _latency(rows: list[Row]) -> dict[str, float]:
    ms = [row[1] for row in rows if row[3] == "ok"]
    return {"p50": round(statistics.median(ms), 1), "p95": round(percentile(ms, 95), 1),
            "max": round(max(ms), 1), "requests": len(rows)} if ms else {"requests": len(rows)}


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
        "errors_seen_by_clients": _errors(rows),
        "latency_ms_before_kill": _latency([r for r in rows if r[0] < killed]),
        "latency_ms_after_kill_one_server": _latency(after_kill),
        "latency_ms_first_2s_after_kill": _latency([r for r in after_kill if r[0] < killed + 2]),
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
            "errors_seen_by_clients": _errors(load.rows),
            "latency_ms_during": _latency(load.rows),
            "servers_switched": len(switched),
            # negative: the server answered from the new generation before the command exited
            "switch_seen_s_after_reindex_ended": sorted(round(t - finished, 2)
                                                        for t in switched.values())}


def serve_logged(home: Path, env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    """`recall serve` as installed on `port`, its output appended to `log`; returns once ready."""
    with open(log, "ab") as out:  # the server keeps its own copy
        proc = subprocess.Popen([str(RECALL), "serve", "--port", str(port)],
                                env={**env, "RECALL_HOME": str(home)}, stdout=out, stderr=out)
    wait_ready(f"http://127.0.0.1:{port}", proc)
    return proc


@contextmanager
def busy_cores(on: bool) -> Iterator[int]:
    """A process per core spinning on the CPU while the block runs, as another job would."""
    cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
             else os.cpu_count() or 1) if on else 0
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    try:
        yield cores
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


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
        "errors_seen_by_clients": _errors(rows), "what_failed": load.failures[:20],
        "answered_by": {name: sum(1 for r in rows if r[2] == name)
                        for name in sorted({r[2] for r in rows})},
        "latency_ms": _latency(rows),
        "latency_ms_searches": _latency([r for r in rows if r[4] == "search"]),
        "latency_ms_writes": _latency(writes),
        "by_minute": [{"minute": m + 1, "requests": len(minute),
                       "search_p50_ms": _latency([r for r in minute if r[4] == "search"]).get("p50"),
                       "write_p50_ms": _latency([r for r in minute if r[4] == "write"]).get("p50")}
                      for m, minute in enumerate(by_minute)],
        "latency_ms_5s_after_each_kill": _latency(after_kills),
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
