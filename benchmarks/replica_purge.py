"""A replica searched every 20 ms through `recall delete ID --purge` on its writer.

    python benchmarks/replica_purge.py --work /tmp/recall-replica-purge [--root CHECKOUT]
        [--embedder hash] [--after 6] [--out F]

Steps, each command a process of its own run from --root (default: this checkout, so a git
worktree of an older commit gives the "before" with the same script):

1. the project's own S3 server (scripts/s3_server.py: Ceph radosgw, objects in RAM) and a bucket;
2. the writer indexes examples/ and one session holding a made-up word, publishing as it goes;
3. `recall serve --from` on an empty directory (RECALL_FOLLOW_INTERVAL=1, the default);
4. one client searches the replica every 20 ms (hybrid, which reads vectors in place from the
   bucket) while the writer runs `recall delete ID --purge`, and for --after seconds more;
5. once the replica has switched to the purged generation: every file under its directory
   holding the made-up word or the session id, and every object of the bucket holding either.

Prints one JSON object: searches, errors by status with their first message, the files and
objects found, and how long the purge command took.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import free_port, wait_ready

ROOT = Path(__file__).resolve().parents[1]
MARKER = "Quixotrombone"  # a made-up word: only the purged session holds it
GONE = "purge-me-session"
QUERIES = [MARKER, "vacation planning in Japan", "升级", "ERR_CONNECTION_REFUSED"]


def recall(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "api.cli", *args], cwd=root, env=env,
                          capture_output=True, text=True, check=True)


def search_every(base: str, period: float, stop: threading.Event,
                 answers: list[tuple[float, int, str]]) -> None:
    """A search every `period` seconds (or right after the last one, when it took longer)."""
    with httpx.Client(timeout=30) as client:
        n = 0
        while not stop.is_set():
            started = time.monotonic()
            query = QUERIES[n % len(QUERIES)]
            n += 1
            try:
                reply = client.get(f"{base}/v1/search", params={"q": query, "limit": 10})
                detail = "" if reply.is_success else reply.text[:300]
                answers.append((started, reply.status_code, detail))
            except httpx.TransportError as exc:
                answers.append((started, 0, repr(exc)))
            stop.wait(max(0.0, period - (time.monotonic() - started)))


def files_with(root: Path, needles: list[str]) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes().lower()
            if any(n.lower().encode() in data for n in needles):
                found.append(path.relative_to(root).as_posix())
    return sorted(found)


def objects_with(client: Any, bucket: str, needles: list[str]) -> list[str]:
    found = []
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            data = client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read().lower()
            if any(n.lower().encode() in data for n in needles):
                found.append(item["Key"])
    return sorted(found)


def run(args: argparse.Namespace) -> dict[str, Any]:
    import boto3

    s3_dir = args.work / "s3"
    started_s3 = subprocess.run([sys.executable, str(ROOT / "scripts" / "s3_server.py"), "start",
                                 "--dir", str(s3_dir)], capture_output=True, text=True, check=True)
    s3 = json.loads(started_s3.stdout)
    proc: subprocess.Popen[bytes] | None = None
    try:
        client = boto3.client("s3", endpoint_url=s3["endpoint"], region_name=s3["region"],
                              aws_access_key_id=s3["access_key"],
                              aws_secret_access_key=s3["secret_key"])
        client.create_bucket(Bucket="recall")
        base_env = {**os.environ, "PYTHONPATH": str(args.root), "RECALL_EMBEDDER": args.embedder,
                    "RECALL_S3_ENDPOINT": s3["endpoint"], "RECALL_S3_REGION": s3["region"],
                    "RECALL_S3_ACCESS_KEY": s3["access_key"],
                    "RECALL_S3_SECRET_KEY": s3["secret_key"], "RECALL_FOLLOW_INTERVAL": "1"}
        writer = {**base_env, "RECALL_HOME": str(args.work / "writer"),
                  "RECALL_STORE": "s3://recall/team"}
        inbox = args.work / "in"
        inbox.mkdir()
        (inbox / f"{GONE}.json").write_text(json.dumps({
            "session_id": GONE, "date": "2026-03-29", "channel": "cli", "participants": ["ann"],
            "messages": [{"id": "m1", "role": "user", "content": f"remember the {MARKER} plan"},
                         {"id": "m2", "role": "assistant",
                          "content": f"noted: the {MARKER} plan ships on Friday"}]}))
        recall(args.root, writer, "index", str(ROOT / "examples"), str(inbox))

        replica_home = args.work / "replica"
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "api.cli", "serve", "--port", str(port), "--from",
             "s3://recall/team"], cwd=args.root, env={**base_env, "RECALL_HOME": str(replica_home)},
            stdout=subprocess.DEVNULL, stderr=(args.work / "replica.log").open("w"))
        base = f"http://127.0.0.1:{port}"
        wait_ready(base, proc)
        httpx.get(f"{base}/v1/search", params={"q": "warm-up"}, timeout=60)

        answers: list[tuple[float, int, str]] = []
        stop = threading.Event()
        searcher = threading.Thread(target=search_every, args=(base, 0.02, stop, answers))
        searcher.start()
        time.sleep(1)
        purge_started = time.monotonic()
        recall(args.root, writer, "delete", GONE, "--purge")
        purge_s = time.monotonic() - purge_started
        writer_gen = (args.work / "writer" / "index" / "CURRENT").read_text()
        deadline = time.monotonic() + 60
        while (replica_home / "index" / "CURRENT").read_text() != writer_gen:
            if time.monotonic() > deadline:
                raise SystemExit("the replica never switched to the purged generation")
            time.sleep(0.05)
        switched_s = time.monotonic() - purge_started
        time.sleep(args.after)
        stop.set()
        searcher.join()
        during = [a for a in answers if a[0] >= purge_started]
        errors = [a for a in during if a[1] != 200]
        return {
            "root": str(args.root), "embedder": args.embedder,
            "searches_during_purge_and_after": len(during), "errors": len(errors),
            "errors_by_status": dict(Counter(str(a[1]) for a in errors)),
            "first_error": errors[0][2] if errors else None,
            "error_window_s": round(errors[-1][0] - errors[0][0], 2) if errors else 0.0,
            "purge_command_s": round(purge_s, 2),
            "replica_switched_after_s": round(switched_s, 2),
            "replica_files_with_purged_text": files_with(replica_home, [MARKER, GONE]),
            "bucket_objects_with_purged_text": objects_with(client, "recall", [MARKER, GONE])}
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=60)
        subprocess.run([sys.executable, str(ROOT / "scripts" / "s3_server.py"), "stop", "--dir",
                        str(s3_dir)], check=False, capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to run")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--after", type=float, default=6.0,
                        help="seconds to keep searching after the replica switched")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    args.root = args.root.resolve()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    result = run(args)
    print(json.dumps(result, indent=1, ensure_ascii=False))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
