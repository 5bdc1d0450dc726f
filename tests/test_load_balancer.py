"""Two `recall serve` processes over one data directory behind a real load balancer (haproxy,
started by scripts/load_balancer.py): searches alternate with identical answers, an ingest
through one is found through the other within 2 s, a reindex switches both, and a server killed
mid-load costs no client a request, on a machine whose every core another job keeps busy."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from api import RecallService, Settings
from indexer import HashEmbedder

from .helpers import EXAMPLES, ROOT, free_port, serve

pytestmark = pytest.mark.xdist_group("load-balancer")

TOKEN = "lb-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
REQUIRED = bool(os.environ.get("RECALL_REQUIRE_LB"))
_spec = importlib.util.spec_from_file_location("load_balancer", ROOT / "scripts" / "load_balancer.py")
assert _spec and _spec.loader
load_balancer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(load_balancer)


@dataclass
class Cluster:
    home: Path
    servers: list[tuple[subprocess.Popen[str], str]]
    lb: str
    logs: list[Path] = field(default_factory=list)


def _record(session_id: str, text: str) -> dict[str, object]:
    return {"sessionId": session_id, "date": "2026-06-10", "channel": "cli",
            "messages": [{"role": "user", "content": text}]}


def _results(answer: httpx.Response) -> list[tuple[str, float]]:
    assert answer.status_code == 200, answer.text
    return [(r["session_id"], round(r["score"], 6)) for r in answer.json()["results"]]


@contextmanager
def _cluster(home: Path) -> Iterator[Cluster]:
    """Two servers on `home` (indexed from examples/) and haproxy in front of them."""
    if shutil.which("haproxy") is None and not Path("/usr/sbin/haproxy").exists():
        if REQUIRED:
            pytest.fail("RECALL_REQUIRE_LB is set but haproxy is not installed")
        pytest.skip("haproxy is not installed (run `make lb`; set RECALL_REQUIRE_LB=1 to fail)")
    RecallService(Settings(home=home, embedder="hash"), embedder=HashEmbedder()).index([EXAMPLES])
    logs = [home.parent / f"{home.name}-server-{n}.log" for n in (1, 2)]
    servers = []
    for log in logs:
        with open(log, "w") as out:  # the server keeps its own copy
            servers.append(serve(home, env={"RECALL_API_TOKEN": TOKEN}, log=out))
    port = free_port()
    lb = load_balancer.start(port, [base.removeprefix("http://") for _, base in servers],
                             home.parent / f"{home.name}-haproxy")
    try:
        yield Cluster(home, servers, f"http://127.0.0.1:{port}", logs)
    finally:
        lb.terminate()
        lb.wait(10)
        for proc, _ in servers:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(30)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with _cluster(tmp_path_factory.mktemp("lb-home")) as made:
        yield made


def _wait_for_both_up(http: httpx.Client, cluster: Cluster) -> None:
    # haproxy marks a server up after RISE good checks: until then all requests go to the other
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        seen = {http.get(f"{cluster.lb}/healthz").headers.get("x-served-by") for _ in range(4)}
        if seen == {"s1", "s2"}:
            return
        time.sleep(0.2)
    raise AssertionError("haproxy did not send requests to both servers")


def test_searches_alternate_between_the_servers_with_identical_answers(cluster: Cluster) -> None:
    with httpx.Client(headers=AUTH, timeout=30) as http:
        _wait_for_both_up(http, cluster)
        answers: dict[str, list[list[tuple[str, float]]]] = {"s1": [], "s2": []}
        for query in ("invoices", "周报", "Friday deploys", "Kyoto", "ruff"):
            for _ in range(2):
                answer = http.get(f"{cluster.lb}/v1/search", params={"q": query})
                answers[answer.headers["x-served-by"]].append(_results(answer))
        assert len(answers["s1"]) == len(answers["s2"]) == 5  # round robin: each in turn
        assert answers["s1"] == answers["s2"]
        assert all(answers["s1"])


def test_an_ingest_through_one_is_found_through_the_other_within_2s(cluster: Cluster) -> None:
    (_, first), (_, second) = cluster.servers
    with httpx.Client(headers=AUTH, timeout=30) as http:
        made = http.post(f"{first}/v1/sessions",
                         json=_record("lb-ingest", "The quokka migration is planned for June."))
        assert made.status_code == 201, made.text
        written = time.monotonic()
        while True:
            found = _results(http.get(f"{second}/v1/search", params={"q": "quokka"}))
            if "lb-ingest" in {session_id for session_id, _ in found}:
                break
            assert time.monotonic() - written < 2.0, "not found through the other server in 2 s"
            time.sleep(0.05)


def test_a_reindex_switches_both_servers(cluster: Cluster) -> None:
    env = {**os.environ, "RECALL_HOME": str(cluster.home), "RECALL_EMBEDDER": "hash"}
    with httpx.Client(headers=AUTH, timeout=30) as http:
        before = {http.get(f"{base}/healthz").json()["generation"] for _, base in cluster.servers}
        assert len(before) == 1
        done = subprocess.run([sys.executable, "-m", "api.cli", "reindex"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, done.stderr
        deadline = time.monotonic() + 5
        while True:
            now = {http.get(f"{base}/healthz").json()["generation"] for _, base in cluster.servers}
            if len(now) == 1 and now != before:
                break
            assert time.monotonic() < deadline, (before, now)
            time.sleep(0.1)
        answers = {base: _results(http.get(f"{base}/v1/search", params={"q": "invoices"}))
                   for _, base in cluster.servers}
        assert len({tuple(a) for a in answers.values()}) == 1


@contextmanager
def _busy_cores() -> Iterator[int]:
    """A process per core spinning on the CPU for the length of the block, as another job on the
    machine would (the failover once answered 503 only when the machine was busy)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(cores or 1)]
    try:
        yield len(spinners)
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait(10)


def test_killing_a_server_mid_load_costs_clients_no_request(tmp_path: Path) -> None:
    with _cluster(tmp_path / "home") as cluster, _busy_cores():
        _first_writes_at_once(cluster)
        _kill_mid_load(cluster)


def _first_writes_at_once(cluster: Cluster) -> None:
    """Each server's first request (which opens the token store, made by whichever server comes
    first) and first write (which loads the vector tables' writer, several seconds with every
    core busy, under the writer lock), sent to both at the same moment: the load that follows
    measures failover, not a cold start."""
    barrier = threading.Barrier(len(cluster.servers))
    answers: dict[str, tuple[int, str]] = {}

    def first_write(n: int, base: str) -> None:
        with httpx.Client(headers=AUTH, timeout=60) as http:
            barrier.wait()
            answer = http.post(f"{base}/v1/sessions",
                               json=_record(f"lb-first-{n}", "the heron rollout starts"))
            answers[base] = answer.status_code, answer.text[:200]

    threads = [threading.Thread(target=first_write, args=(n, base))
               for n, (_, base) in enumerate(cluster.servers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert {base: status for base, (status, _) in answers.items()} == {
        base: 201 for _, base in cluster.servers}, answers


def _kill_mid_load(cluster: Cluster) -> None:
    errors: list[str] = []
    served: list[tuple[float, str]] = []
    written: list[str] = []
    stop = threading.Event()

    def client(n: int) -> None:
        with httpx.Client(headers=AUTH, timeout=30) as http:
            i = 0
            while not stop.is_set():
                i += 1
                try:
                    if i % 5 == 0:  # one request in five writes
                        session_id = f"lb-load-{n}-{i}"
                        answer = http.post(f"{cluster.lb}/v1/sessions", json=_record(
                            session_id, f"load line {n} {i} about the heron rollout"))
                        # 200 "changed": false: a retry of a write the killed server had
                        # stored before it could answer; the record is kept once either way
                        ok = answer.status_code in (200, 201)
                        if ok:
                            written.append(session_id)
                    else:
                        answer = http.get(f"{cluster.lb}/v1/search", params={"q": "invoices"})
                        ok = answer.status_code == 200 and bool(answer.json()["results"])
                    if not ok:
                        errors.append(f"{answer.status_code}: {answer.text[:200]}")
                    served.append((time.monotonic(), answer.headers.get("x-served-by", "?")))
                except httpx.HTTPError as exc:
                    errors.append(repr(exc))

    with httpx.Client(headers=AUTH, timeout=30) as http:
        _wait_for_both_up(http, cluster)
    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(2)
    victim, _ = cluster.servers[0]
    victim.kill()  # SIGKILL: no goodbye, requests in flight are cut
    killed = time.monotonic()
    time.sleep(3)
    stop.set()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert any(t < killed for t, who in served if who == "s1")
    assert {who for t, who in served if t > killed + 1.5} == {"s2"}
    assert len([t for t, _ in served if t > killed]) > 10  # the load went on
    _, survivor = cluster.servers[1]
    with httpx.Client(headers=AUTH, timeout=30) as http:
        for session_id in written:
            assert http.get(f"{survivor}/v1/sessions/{session_id}").status_code == 200
