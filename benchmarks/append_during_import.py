"""Live appends over HTTP while `recall index` imports a large batch of files: their latency.

    python benchmarks/append_during_import.py --work /tmp/recall-aimport \\
        [--messages 100000] [--embedder hash] [--interval 0.1] [--root /tmp/wt-before] [--json]

Generates sessions (scripts/generate_archive.py, seed 13) until they hold `--messages` messages,
one file each, into <work>/inbox-<messages> (kept between runs). Then, in a fresh data
directory, starts `recall serve` on a free loopback port and one live session, starts
`recall index` of the inbox as a separate process, and appends one message to the live session
every `--interval` seconds (the next one that long after the previous answer, at the latest)
until the import has finished. Prints the import's own counts and time, and p50/p95/p99/max of
the appends made while it ran, how many were answered 409 (writer busy) or otherwise failed,
and whether `recall check` agrees afterwards. `--root` runs both recall processes from another
checkout (the same venv), to measure the code before a change in the same way.
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

from benchmarks.load import free_port, percentile


def build_inbox(work: Path, messages: int) -> tuple[Path, int, int]:
    """The input files (kept between runs): their folder, sessions and messages."""
    inbox = work / f"inbox-{messages}"
    done = inbox / "COUNTS"
    if done.exists():
        sessions, total = map(int, done.read_text().split())
        return inbox, sessions, total
    shutil.rmtree(inbox, ignore_errors=True)
    sessions = total = 0
    while total < messages:
        record = session_record(13, sessions)
        folder = inbox / record["date"][:7]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{record['sessionId']}.json").write_text(json.dumps(record, ensure_ascii=False))
        sessions += 1
        total += len(record["messages"])
    done.write_text(f"{sessions} {total}")
    return inbox, sessions, total


def stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {"p50": round(statistics.median(values), 1), "p95": round(percentile(values, 95), 1),
            "p99": round(percentile(values, 99), 1), "max": round(max(values), 1)}


def wait_up(base: str, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(1200):
        try:
            httpx.get(f"{base}/v1/stats", timeout=2)
            return
        except httpx.TransportError:
            if proc.poll() is not None:
                raise SystemExit("the server exited before it answered") from None
            time.sleep(0.1)
    raise SystemExit("the server did not answer in 120 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, required=True, help="working directory (kept)")
    parser.add_argument("--messages", type=int, default=100_000, help="messages to import")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between appends")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to run recall from")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    inbox, sessions, messages = build_inbox(args.work, args.messages)
    home = args.work / "run"
    shutil.rmtree(home, ignore_errors=True)
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_EMBEDDER": args.embedder,
           "RUST_LOG": "error"}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (args.work / "server.log").open("w")
    server = subprocess.Popen([sys.executable, "-m", "api.cli", "serve", "--port", str(port)],
                              cwd=args.root, env=env, stdout=log, stderr=log)
    append_ms: list[float] = []
    statuses: dict[int, int] = {}
    try:
        wait_up(base, server)
        sid = httpx.post(f"{base}/v1/sessions", json={"title": "appends during an import",
                                                      "channel": "bench"},
                         timeout=60).json()["session_id"]
        importing = subprocess.Popen(
            [sys.executable, "-m", "api.cli", "index", str(inbox), "--json"], cwd=args.root,
            env=env, stdout=subprocess.PIPE, stderr=(args.work / "index.stderr").open("w"))
        stop = threading.Event()

        def append() -> None:
            with httpx.Client(base_url=base, timeout=120) as http:
                n = 0
                while not stop.is_set():
                    t0 = time.perf_counter()
                    response = http.post(f"/v1/sessions/{sid}/messages", json={
                        "role": "user", "content": f"note {n} taken while the import runs"})
                    elapsed = time.perf_counter() - t0
                    append_ms.append(elapsed * 1000)
                    statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                    n += 1
                    stop.wait(max(0.0, args.interval - elapsed))

        appender = threading.Thread(target=append)
        appender.start()
        out, _ = importing.communicate()
        stop.set()
        appender.join()
        if importing.returncode != 0:
            raise SystemExit(f"recall index failed ({importing.returncode}): see "
                             f"{args.work / 'index.stderr'}")
        report = json.loads(out)
        stored = httpx.get(f"{base}/v1/sessions/{sid}", timeout=60).json()
        consistent = httpx.get(f"{base}/v1/check", timeout=600).json()["ok"]
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()
    revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=args.root,
                              capture_output=True, text=True, check=False).stdout.strip()
    result: dict[str, Any] = {
        "root": str(args.root), "commit": revision, "embedder": args.embedder,
        "import_sessions": sessions, "import_messages": messages,
        "indexed": report["indexed"], "indexed_messages": report["messages"],
        "import_seconds": round(report["seconds"], 1),
        "appends": len(append_ms), "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "append_ms": stats(append_ms), "stored_live_messages": len(stored["messages"]),
        "check_ok": consistent, "cpus": os.cpu_count()}
    if args.json:
        print(json.dumps(result))
        return
    print(f"import of {result['indexed']} sessions ({result['indexed_messages']} messages) in "
          f"{result['import_seconds']} s, {args.embedder} embedder, from {args.root} "
          f"({revision})")
    print(f"{result['appends']} appends meanwhile, answers {result['statuses']}; "
          f"append ms {result['append_ms']}")
    print(f"live messages stored {result['stored_live_messages']}, check ok: {consistent}")


if __name__ == "__main__":
    main()
