"""What glibc malloc keeps while a pool of threads appends to and searches a LanceDB table, as
`recall serve` does, with glibc's default arenas and with the server's limit (api/http/allocator.py).

    python benchmarks/malloc_arenas.py [--limit] [--rounds 800] [--threads 8]

Each round, one pool thread appends 2 rows to a table of 3,000 (384 dimensions) and tidies it
as every write does (`_tidy`: compaction, old versions dropped), then every pool thread runs
one vector search on a freshly opened dataset, as the searcher does after a write. Every 100
rounds: the process's anonymous memory, and malloc's arenas with the bytes they took from the
system and how many of them are free. Run it once with and once without --limit: the limit must
be set before the pool's threads first allocate, so it cannot be switched within one process.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api.http.allocator import arena_summary, limit_arenas


def anonymous_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", action="store_true", help="limit arenas as recall serve does")
    parser.add_argument("--rounds", type=int, default=800)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    if args.limit and not limit_arenas():  # first: before any thread allocates
        sys.exit("could not limit malloc's arenas (not glibc, or MALLOC_ARENA_MAX is set)")

    import lance
    import lancedb
    import numpy as np
    import pyarrow as pa

    from indexer.stores.vector import _schema, _tidy

    dim = 384
    rng = np.random.default_rng(0)

    def rows(count: int) -> pa.Table:
        vectors = rng.random(count * dim, dtype=np.float32)
        return pa.table({
            "passage_id": [f"p{i}" for i in range(count)], "key": [f"k{i}" for i in range(count)],
            "session_id": ["s"] * count, "message_id": ["m"] * count, "role": ["user"] * count,
            "channel": ["c"] * count, "participants": ["|a|"] * count,
            "day": pa.array([1] * count, pa.int32()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors), dim)}, schema=_schema(dim))

    folder = tempfile.mkdtemp(prefix="recall-arenas-")
    table = lancedb.connect(folder).create_table("messages", schema=_schema(dim))
    table.add(rows(3000))
    query = rng.random(dim, dtype=np.float32)

    def append() -> None:
        table.add(rows(2))
        _tidy(table)

    def search(_: int) -> None:
        dataset = lance.dataset(f"{folder}/messages.lance")
        dataset.to_table(columns=["key", "_distance"], disable_scoring_autoprojection=True,
                         nearest={"column": "vector", "q": query, "k": 10})

    print(f"{'limit' if args.limit else 'glibc default'}, {args.threads} threads")
    print("| rounds | anonymous MB | arenas | from the system MB | free MB |")
    print("|---|---|---|---|---|")
    with ThreadPoolExecutor(args.threads) as pool:
        for done in range(args.rounds + 1):
            pool.submit(append).result()
            list(pool.map(search, range(args.threads)))
            if done % 100 == 0:
                gc.collect()
                malloc = arena_summary() or {}
                print(f"| {done} | {anonymous_mb():.0f} | {malloc.get('arenas')} | "
                      f"{malloc.get('system_bytes', 0) / 2**20:.0f} | "
                      f"{malloc.get('free_bytes', 0) / 2**20:.0f} |", flush=True)


if __name__ == "__main__":
    main()
