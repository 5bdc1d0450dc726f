"""What benchmarks/load_balancer.py and its soak (lb_soak.py) share: the servers as installed,
haproxy from scripts/load_balancer.py, and clients loading the balancer."""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import percentile, wait_ready

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


def session_record(session_id: str, text: str) -> dict[str, object]:
    return {"sessionId": session_id, "date": "2026-11-30", "channel": "cli",
            "participants": ["ann"], "messages": [{"id": "m1", "role": "user", "content": text}]}


def top10(answer: httpx.Response) -> list[str]:
    answer.raise_for_status()
    return [hit["session_id"] for hit in answer.json()["results"]]


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
                        answer = http.post(f"{self.lb}/v1/sessions", json=session_record(
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


def error_counts(rows: list[Row]) -> dict[str, int]:
    errors: dict[str, int] = {}
    for row in rows:
        if row[3] != "ok":
            errors[row[3]] = errors.get(row[3], 0) + 1
    return errors


def latency_summary(rows: list[Row]) -> dict[str, float]:
    ms = [row[1] for row in rows if row[3] == "ok"]
    return {"p50": round(statistics.median(ms), 1), "p95": round(percentile(ms, 95), 1),
            "max": round(max(ms), 1), "requests": len(rows)} if ms else {"requests": len(rows)}


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
