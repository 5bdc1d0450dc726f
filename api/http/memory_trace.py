"""Where a long-running `recall serve` allocates: with RECALL_TRACEMALLOC=FOLDER, tracemalloc
runs, and every RECALL_TRACEMALLOC_EVERY seconds (default 600) the server dumps a snapshot of
its Python allocations to FOLDER/snapshot-<seconds>.tracemalloc and appends glibc malloc's
arenas and the bytes they hold, and the bytes Arrow's own pool (jemalloc, not glibc) holds for
Lance's and LanceDB's buffers, to FOLDER/malloc.jsonl. RECALL_TRACEMALLOC_FRAMES=0 leaves
tracemalloc off and writes only those figures, at no cost to the server's speed. Comparing the snapshots (which sites
grew) is left to another process (benchmarks/soak_memory.py): grouping millions of traces in
the server held its interpreter for minutes under load.

A diagnostic for soaks (benchmarks/soak.py --trace), off unless the variable is set: tracing
every allocation slows the server down. Memory that grows while the traced sites stay flat is
native (the allocator, or a library's own caches), not Python objects.
"""

from __future__ import annotations

import json
import threading
import time
import tracemalloc
from collections.abc import Mapping
from pathlib import Path

from api.http.allocator import arena_summary

__all__ = ["start_from_env"]

# enough to see which recall call reached the library that allocates; each frame more makes
# every allocation and every snapshot slower
FRAMES = 5


def start_from_env(environ: Mapping[str, str]) -> threading.Thread | None:
    """Start tracing and the thread that dumps snapshots when RECALL_TRACEMALLOC names a folder."""
    folder = environ.get("RECALL_TRACEMALLOC")
    if not folder:
        return None
    every = float(environ.get("RECALL_TRACEMALLOC_EVERY", "600"))
    frames = int(environ.get("RECALL_TRACEMALLOC_FRAMES", str(FRAMES)))
    if frames > 0:
        tracemalloc.start(frames)
    thread = threading.Thread(target=_dump_every, args=(Path(folder), every),
                              name="recall-tracemalloc", daemon=True)
    thread.start()
    return thread


def _dump_every(folder: Path, every: float) -> None:
    started = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        time.sleep(every)
        dump(folder, round(time.monotonic() - started))


def dump(folder: Path, at_s: int) -> Path:
    """Write one snapshot (if tracing) and one line of allocator figures; the snapshot's path."""
    path = folder / f"snapshot-{at_s:06d}.tracemalloc"
    if tracemalloc.is_tracing():
        tracemalloc.take_snapshot().dump(str(path))
    with (folder / "malloc.jsonl").open("a") as out:
        out.write(json.dumps({"at_s": at_s, "traced_bytes": tracemalloc.get_traced_memory()[0],
                              "malloc": arena_summary(), "arrow": arrow_pool()}) + "\n")
    return path


def arrow_pool() -> dict[str, object]:
    """The bytes Arrow's default pool has handed out and not taken back, and its allocator."""
    import pyarrow  # Lance's dependency, loaded already wherever this runs

    pool = pyarrow.default_memory_pool()
    return {"backend": pool.backend_name, "bytes": pool.bytes_allocated(),
            "max_bytes": pool.max_memory()}
