"""Requests on one kept-alive connection against a new connection each, over real HTTP.

    python benchmarks/keep_alive.py --home DIR [--requests 200] [--out F]

Starts `recall serve` as installed on --home (an indexed data directory; RECALL_EMBEDDER from
the environment, default e5) and sends GET /healthz, /v1/facets and /v1/search?q=... with
http.client: --requests on one kept-alive connection, then --requests each on a new connection;
prints the median milliseconds of each. A kept-alive request slower than a new connection's by
tens of milliseconds is the sign of Nagle's algorithm meeting a delayed ACK (api/http/server.py).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import serve_installed

PATHS = ("/healthz", "/v1/facets", "/v1/search?q=deploy")


def _get(conn: http.client.HTTPConnection, path: str) -> float:
    started = time.perf_counter()
    conn.request("GET", path)
    answer = conn.getresponse()
    answer.read()
    if answer.status != 200:
        raise SystemExit(f"{path}: {answer.status}")
    return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    proc, base = serve_installed(args.home, dict(os.environ))
    port = int(base.rsplit(":", 1)[1])
    result: dict[str, dict[str, float]] = {}
    try:
        for path in PATHS:
            kept = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            for _ in range(5):
                _get(kept, path)  # warm-up
            kept_ms = [_get(kept, path) for _ in range(args.requests)]
            kept.close()
            fresh_ms = []
            for _ in range(args.requests):
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                fresh_ms.append(_get(conn, path))
                conn.close()
            result[path] = {"kept_alive_p50_ms": round(statistics.median(kept_ms), 2),
                            "new_connection_p50_ms": round(statistics.median(fresh_ms), 2)}
    finally:
        proc.terminate()
        proc.wait(60)
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
