"""Live-session append latency over real HTTP: from sending a message until a search finds it.

    python benchmarks/append_latency.py --work /tmp/recall-append [--appends 1000] \\
        [--base-sessions 1000] [--clients 1] [--embedder hash|e5|minilm] [--json]

Indexes a base archive of generated sessions (scripts/generate_archive.py, the same sessions
for the same count) into <work>/home, starts `recall serve` on a free loopback port, starts one
live session, then each client appends messages one at a time (varied generated texts, each
with a unique word added) and, as soon as the append returns, searches until the message is in
the results of both stores: a keyword search for its word over the whole archive, and a vector
search for its text within the session (hybrid search merges the two). A message the vector
search still does not rank among the session's three best after five rounds (a near
neighbour, or the e5 query/passage asymmetry) is counted apart. Prints p50/p95/p99/max of the
append alone and of append until searchable, for all appends and for the first and last 100
(small index fragments pile up between compactions), and how many rounds of searches it took (1: found at the first try).
The hash embedder is the default; with --embedder e5 the append includes embedding the
message with the real model.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from generate_archive import session_record

from benchmarks.load import free_port, percentile, wait_ready


def build_base(work: Path, sessions: int, embedder: str) -> Path:
    """<work>/home with `sessions` generated sessions indexed (kept between runs)."""
    home = work / f"home-{sessions}-{embedder}"
    if (home / "index" / "CURRENT").exists():
        return home
    inbox = work / f"archive-{sessions}"
    shutil.rmtree(inbox, ignore_errors=True)
    for index in range(sessions):
        record = session_record(7, index)
        folder = inbox / record["date"][:7]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{record['sessionId']}.json").write_text(json.dumps(record, ensure_ascii=False))
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_EMBEDDER": embedder}
    subprocess.run([sys.executable, "-m", "api.cli", "index", str(inbox), "--json"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    return home


def _texts(count: int) -> list[str]:
    """Varied message texts (English and Chinese, short and long) from generated sessions."""
    out: list[str] = []
    index = 0
    while len(out) < count:
        record = session_record(11, index)
        out += [m["content"][:400] for m in record["messages"] if m["content"].strip()]
        index += 1
    return out[:count]


def _finds(http: httpx.Client, message_id: str, query: str, mode: str, **filters: str) -> bool:
    found = http.get("/v1/search", params={"q": query, "mode": mode, "limit": 3, **filters}).json()
    return any(m["id"] == message_id for r in found["results"] for m in r["messages"])


def stats(values: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values), 1), "p95": round(percentile(values, 95), 1),
            "p99": round(percentile(values, 99), 1), "max": round(max(values), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, required=True, help="working directory (kept)")
    parser.add_argument("--appends", type=int, default=1000)
    parser.add_argument("--base-sessions", type=int, default=1000,
                        help="generated sessions indexed before the live one (0: an empty index)")
    parser.add_argument("--clients", type=int, default=1, help="concurrent appenders, one session")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.appends > 5000:
        raise SystemExit("--appends is capped at 5000")
    args.work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    if args.base_sessions:
        home = build_base(args.work, args.base_sessions, args.embedder)
        run_home = args.work / "run"
        shutil.rmtree(run_home, ignore_errors=True)
        shutil.copytree(home, run_home, ignore=shutil.ignore_patterns("writer.lock"))
    else:
        run_home = args.work / "run"
        shutil.rmtree(run_home, ignore_errors=True)
    base_seconds = time.monotonic() - started

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "RECALL_HOME": str(run_home), "RECALL_EMBEDDER": args.embedder,
           "RUST_LOG": "error"}
    log = (args.work / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "api.cli", "serve", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=log, stderr=log)
    try:
        if args.base_sessions:
            wait_ready(base, proc)
        else:
            for _ in range(600):
                try:
                    httpx.get(f"{base}/v1/stats", timeout=2)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
        sid = httpx.post(f"{base}/v1/sessions", json={"title": "append latency", "channel": "bench"},
                         timeout=60).json()["session_id"]
        append_ms: list[float] = []
        searchable_ms: list[float] = []
        searches: list[int] = []
        vector_misses: list[str] = []
        texts = _texts(args.appends)
        errors: list[str] = []
        lock = threading.Lock()
        per_client = args.appends // args.clients

        def client(name: int) -> None:
            with httpx.Client(base_url=base, timeout=60) as http:
                for n in range(per_client):
                    word = f"marker{name}x{n}q"
                    text = f"{texts[(name * per_client + n) % len(texts)]} ({word})"
                    t0 = time.perf_counter()
                    response = http.post(f"/v1/sessions/{sid}/messages",
                                         json={"role": "user", "content": text})
                    t1 = time.perf_counter()
                    if response.status_code != 201:
                        errors.append(response.text)
                        return
                    message_id = response.json()["message_ids"][0]
                    tries, vector_found = 0, True
                    while True:  # found by its word (keyword) and by its text (vector)
                        tries += 1
                        if not _finds(http, message_id, word, "keyword"):
                            if time.perf_counter() - t0 > 30:
                                errors.append(f"{word} not found by keyword search after 30 s")
                                return
                            continue
                        if _finds(http, message_id, text, "vector", session=sid):
                            break
                        if tries >= 5:  # a near neighbour of the session outranks it: not a delay
                            vector_found = False
                            break
                    t2 = time.perf_counter()
                    with lock:
                        append_ms.append((t1 - t0) * 1000)
                        if vector_found:
                            searchable_ms.append((t2 - t0) * 1000)
                            searches.append(tries)
                        else:
                            vector_misses.append(word)

        threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
        t_start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - t_start
        stored = httpx.get(f"{base}/v1/sessions/{sid}", timeout=60).json()
        consistent = httpx.get(f"{base}/v1/check", timeout=600).json()["ok"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()
    if errors:
        raise SystemExit(f"{len(errors)} errors, e.g. {errors[0]}")
    result: dict[str, Any] = {
        "appends": len(append_ms), "clients": args.clients, "embedder": args.embedder,
        "base_sessions": args.base_sessions, "base_seconds": round(base_seconds, 1),
        "wall_seconds": round(wall, 1), "appends_per_second": round(len(append_ms) / wall, 1),
        "append_ms": stats(append_ms), "searchable_ms": stats(searchable_ms),
        "searchable_ms_first_100": stats(searchable_ms[:100]),
        "searchable_ms_last_100": stats(searchable_ms[-100:]),
        "searches_needed": dict(sorted((str(k), searches.count(k)) for k in set(searches))),
        "not_top3_by_vector": len(vector_misses),
        "stored_messages": len(stored["messages"]), "check_ok": consistent,
        "python": sys.version.split()[0], "cpus": os.cpu_count()}
    if args.json:
        print(json.dumps(result))
        return
    print(f"{result['appends']} appends by {args.clients} client(s) to one live session over HTTP, "
          f"embedder {args.embedder}, on an index of {args.base_sessions} sessions; "
          f"{result['appends_per_second']} appends/s")
    for key in ("append_ms", "searchable_ms", "searchable_ms_first_100", "searchable_ms_last_100"):
        s = result[key]
        print(f"{key:<24} p50 {s['p50']:>7.1f}  p95 {s['p95']:>7.1f}  p99 {s['p99']:>7.1f}  "
              f"max {s['max']:>7.1f}")
    print(f"searches until found: {result['searches_needed']}; not in the vector search's top "
          f"three after 5 tries (left out of 'searchable'): {len(vector_misses)}; stored "
          f"{result['stored_messages']} messages; check ok: {consistent}")


if __name__ == "__main__":
    main()
