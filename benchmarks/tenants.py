"""What tenants and tokens cost a server, over real HTTP.

    python benchmarks/tenants.py --work /tmp/recall-tenants [--tenants 20] [--out F]

Indexes examples/ into the default tenant and into --tenants others (each its own data
directory), starts `recall serve` as installed (RECALL_EMBEDDER from the environment, default
e5), makes a read token per tenant, then measures:

1. GET /v1/facets (a read of the tenant's state, not of the model or the indexes): p50 with
   RECALL_API_TOKEN (compared in memory) and with a token from tokens.sqlite3 (looked up per
   request), the same default tenant, 300 requests each, alternating;
2. GET /v1/search: each tenant's first search (its service is made, its Tantivy index and
   Lance tables opened) and its later ones;
3. the server's resident memory before and after every tenant searched.
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
from load import rss_mb, serve_installed

ROOT = Path(__file__).resolve().parents[1]
RECALL = Path(sys.executable).with_name("recall")
sys.path.insert(0, str(ROOT))


def _ms(call: Any) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def main() -> int:
    from indexer.stores.layout import DataDir
    from indexer.stores.tokens import TokenStore

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--tenants", type=int, default=20)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    home = args.work / "home"
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_API_TOKEN": "bench-admin"}
    tenants = [f"t{n:02d}" for n in range(args.tenants)]
    started = time.monotonic()
    for tenant in ["default", *tenants]:
        subprocess.run([str(RECALL), "index", str(ROOT / "examples")], check=True,
                       env={**env, "RECALL_TENANT": tenant}, capture_output=True)
    index_s = time.monotonic() - started
    with TokenStore(DataDir(home)) as store:
        tokens = {tenant: store.create(f"{tenant}-read", tenant, "read")[1]
                  for tenant in ["default", *tenants]}
    proc, base = serve_installed(home, env)
    try:
        with httpx.Client(timeout=60) as http:
            def facets(token: str) -> None:
                http.get(f"{base}/v1/facets", headers={"Authorization": f"Bearer {token}"}
                         ).raise_for_status()

            for _ in range(20):  # warm-up
                facets("bench-admin")
                facets(tokens["default"])
            setting, stored = [], []
            for _ in range(300):
                setting.append(_ms(lambda: facets("bench-admin")))
                stored.append(_ms(lambda: facets(tokens["default"])))
            rss_before = rss_mb(proc.pid)
            def search(token: str) -> None:
                http.get(f"{base}/v1/search", params={"q": "deploy"},
                         headers={"Authorization": f"Bearer {token}"}).raise_for_status()

            search(tokens["default"])  # the model, warm for every tenant alike
            first = [_ms(lambda t=t: search(tokens[t])) for t in tenants]
            later = [_ms(lambda t=t: search(tokens[t])) for t in tenants for _ in range(10)]
            rss_after = rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(60)
    result = {
        "embedder": os.environ.get("RECALL_EMBEDDER", "e5"), "tenants": args.tenants,
        "index_all_s": round(index_s, 1),
        "facets_p50_ms": {"RECALL_API_TOKEN": round(statistics.median(setting), 2),
                          "token_from_tokens_db": round(statistics.median(stored), 2)},
        "tenant_first_search_ms": {"p50": round(statistics.median(first), 1),
                                   "max": round(max(first), 1)},
        "tenant_later_searches_p50_ms": round(statistics.median(later), 2),
        "server_rss_mb": {"before_tenants": round(rss_before), "after_all_tenants": round(rss_after),
                          "per_tenant": round((rss_after - rss_before) / args.tenants, 1)},
    }
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
