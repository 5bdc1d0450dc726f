"""A writer publishing to S3 and a replica following it, measured over real HTTP.

    python benchmarks/object_storage.py --home /tmp/recall-scale-out/single \\
        --bench ../shared/bench --work /tmp/recall-object-storage [--queries 50] [--out F]

--home is an indexed data directory (it is copied, never changed); its embedder is read from
RECALL_EMBEDDER (default e5). The S3 server is the project's own (scripts/s3_server.py: Ceph
radosgw, objects in RAM, on this machine). Steps:

1. the first publish of the copy (`recall publish`): seconds, objects, MB;
2. `recall serve` on the writer's copy (RECALL_STORE set: it publishes as it goes) and
   `recall serve --from` on an empty directory: the replica's start (its first copy);
3. --queries LoCoMo questions through both: median and p95 ms, and how many answers match;
4. a session ingested through the writer's HTTP API: seconds until the replica finds it
   (its publish, then the replica's next look; RECALL_FOLLOW_INTERVAL=1), five times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import percentile, serve_installed

ROOT = Path(__file__).resolve().parents[1]
RECALL = Path(sys.executable).with_name("recall")


def start_s3(folder: Path) -> dict[str, str]:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "s3_server.py"), "start",
                           "--dir", str(folder)], capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout))


def timed_searches(base: str, questions: list[str]) -> tuple[list[float], list[list[str]]]:
    times, tops = [], []
    with httpx.Client(timeout=60) as client:
        for question in questions[:3]:  # warm-up
            client.get(f"{base}/v1/search", params={"q": question})
        for question in questions:
            started = time.perf_counter()
            answer = client.get(f"{base}/v1/search", params={"q": question, "limit": 10})
            times.append((time.perf_counter() - started) * 1000)
            answer.raise_for_status()
            tops.append([hit["session_id"] for hit in answer.json()["results"]])
    return times, tops


def visible_after_write(writer: str, replica: str, n: int) -> float:
    word = f"zorblax{n}quandary"
    session = {"session_id": f"bench-visible-{n}", "date": "2026-11-30", "channel": "cli",
               "participants": ["ann"],
               "messages": [{"id": "m1", "role": "user", "content": f"the {word} is settled"}]}
    started = time.monotonic()
    httpx.post(f"{writer}/v1/sessions", json=session, timeout=120).raise_for_status()
    while time.monotonic() - started < 120:
        found = httpx.get(f"{replica}/v1/search", params={"q": word, "mode": "keyword"},
                          timeout=30).json()["results"]
        if any(hit["session_id"] == session["session_id"] for hit in found):
            return time.monotonic() - started
        time.sleep(0.05)
    raise SystemExit("the replica never found the new session")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    s3 = start_s3(args.work / "s3")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        client_env = {**os.environ, "RECALL_S3_ENDPOINT": s3["endpoint"],
                      "RECALL_S3_REGION": s3["region"], "RECALL_S3_ACCESS_KEY": s3["access_key"],
                      "RECALL_S3_SECRET_KEY": s3["secret_key"], "RECALL_FOLLOW_INTERVAL": "1"}
        import boto3

        boto3.client("s3", endpoint_url=s3["endpoint"], region_name=s3["region"],
                     aws_access_key_id=s3["access_key"],
                     aws_secret_access_key=s3["secret_key"]).create_bucket(Bucket="recall")
        uri = "s3://recall/bench"
        writer_home = args.work / "writer"
        shutil.copytree(args.home, writer_home, ignore=shutil.ignore_patterns("*.lock", "cache"))
        writer_env = {**client_env, "RECALL_STORE": uri}
        started = time.monotonic()
        done = subprocess.run([str(RECALL), "publish", "--json"], capture_output=True, text=True,
                              env={**writer_env, "RECALL_HOME": str(writer_home)}, check=True)
        first = {**json.loads(done.stdout), "wall_s": round(time.monotonic() - started, 1)}
        first["seconds"] = round(first["seconds"], 1)
        first["mb"] = round(sum(size for _, size in _listing(s3, "recall")) / 1e6, 1)

        proc, writer = serve_installed(writer_home, writer_env)
        procs.append(proc)
        started = time.monotonic()
        proc, replica = serve_installed(args.work / "replica", client_env, "--from", uri)
        procs.append(proc)
        replica_start = round(time.monotonic() - started, 1)

        questions = [json.loads(line)["question"] for line in
                     (args.bench / "locomo" / "queries.jsonl").read_text().splitlines()]
        questions = questions[:args.queries]
        local_ms, local_tops = timed_searches(writer, questions)
        replica_ms, replica_tops = timed_searches(replica, questions)
        visible = [visible_after_write(writer, replica, n) for n in range(5)]
        result: dict[str, Any] = {
            "first_publish": first, "replica_start_s": replica_start,
            "search_ms": {name: {"p50": round(statistics.median(ms), 1),
                                 "p95": round(percentile(ms, 95), 1)}
                          for name, ms in (("writer", local_ms), ("replica", replica_ms))},
            "identical_top10": sum(a == b for a, b in zip(local_tops, replica_tops, strict=True)),
            "queries": len(questions),
            "write_visible_s": {"median": round(statistics.median(visible), 2),
                                "max": round(max(visible), 2)}}
        print(json.dumps(result, indent=1))
        if args.out:
            args.out.write_text(json.dumps(result, indent=1) + "\n")
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=60)
        subprocess.run([sys.executable, str(ROOT / "scripts" / "s3_server.py"), "stop", "--dir",
                        str(args.work / "s3")], check=False)
    return 0


def _listing(s3: dict[str, str], bucket: str) -> list[tuple[str, int]]:
    import boto3

    client = boto3.client("s3", endpoint_url=s3["endpoint"], region_name=s3["region"],
                          aws_access_key_id=s3["access_key"],
                          aws_secret_access_key=s3["secret_key"])
    return [(item["Key"], item["Size"])
            for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket)
            for item in page.get("Contents", [])]


if __name__ == "__main__":
    sys.exit(main())
