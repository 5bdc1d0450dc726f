"""Searches from 8 clients over real HTTP while another process ingests and then reindexes:
no errors, and no result ever mixes two versions of a session."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from models import SearchRequest

from .helpers import SESSIONS, make_service, serve

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = 8
QUERIES = ("lighthouse keeper", "升级", "ERR_CONNECTION_REFUSED", "postgres", "灯塔 守护")


def _version(n: int) -> dict:
    """Every message of version n carries the marker revN: a mixed result shows two markers."""
    return {"sessionId": "t-conc", "date": "2026-06-02", "channel": "cli", "messages": [
        {"id": f"m{i}", "role": "user" if i % 2 else "assistant",
         "content": f"lighthouse keeper log rev{n} entry {i}: 灯塔 守护 记录 rev{n}"}
        for i in range(1, 7)]}


def _recall(env: dict, *args: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "api.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr


def test_searches_during_ingest_and_reindex(tmp_path: Path) -> None:
    home, inbox = tmp_path / "home", tmp_path / "inbox"
    inbox.mkdir()
    make_service(home).index([SESSIONS])
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_EMBEDDER": "hash"}
    server, base = serve(home)
    stop = threading.Event()
    latencies: list[float] = []
    errors: list[str] = []
    mixed: list[list[str]] = []
    lock = threading.Lock()

    def client(number: int) -> None:
        with httpx.Client(base_url=base, timeout=30) as http:
            i = number
            while not stop.is_set():
                query = QUERIES[i % len(QUERIES)]
                i += 1
                started = time.perf_counter()
                response = http.get("/v1/search", params={"q": query, "limit": 5})
                elapsed = (time.perf_counter() - started) * 1000
                with lock:
                    latencies.append(elapsed)
                    if response.status_code != 200:
                        errors.append(f"{response.status_code} {response.text[:200]}")
                        continue
                    for hit in response.json()["results"]:
                        if hit["session_id"] == "t-conc":
                            revs = {w for m in hit["messages"] for w in m["snippet"].split()
                                    if w.startswith("rev")}
                            if len(revs) > 1:
                                mixed.append(sorted(revs))

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    try:
        for t in threads:
            t.start()
        for n in range(4):  # a separate writer process, as `recall index` from cron would be
            (inbox / "t-conc.json").write_text(json.dumps(_version(n), ensure_ascii=False))
            (inbox / f"extra-{n}.json").write_text(json.dumps(
                {"sessionId": f"t-extra-{n}", "date": "2026-06-03",
                 "messages": [{"role": "user", "content": f"postgres tuning note {n}"}]}))
            _recall(env, "index", str(inbox))
        _recall(env, "reindex")
        time.sleep(1)  # searches after the switch too
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
        server.terminate()
        server.communicate(timeout=10)

    assert not errors, errors[:5]
    assert not mixed, mixed[:5]
    assert len(latencies) >= CLIENTS * 5, "the clients barely ran"
    latencies.sort()
    p95 = latencies[int(len(latencies) * 0.95)]
    print(f"\n{len(latencies)} searches from {CLIENTS} clients, p50 {statistics.median(latencies):.1f} ms, "
          f"p95 {p95:.1f} ms, 0 errors")
    # the last version is what the archive and the search now hold
    hits = make_service(home).search(SearchRequest(query="lighthouse keeper")).results
    assert hits and hits[0].session_id == "t-conc"
    assert all("rev3" in m.snippet for m in hits[0].messages)
