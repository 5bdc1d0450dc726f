"""glibc malloc settings for recall's processes, and what its arenas hold.

glibc gives each thread that finds the arenas busy an arena of its own, up to eight per core,
and keeps what is freed in an arena for that arena. Every `recall` command caps them first
(api/cli/main.py): an import's Lance and Tantivy threads held 971 MB at peak over 10k sessions
with glibc's default, 713 MB with two arenas, at the same speed. `recall serve` runs dozens of
threads (uvicorn's worker pool, Lance's and LanceDB's runtimes, onnxruntime), so the short-lived
buffers of searches and appends spread over 16 arenas on 2 cores, each keeping its own free,
fragmented memory: appends and searches on a LanceDB table from 8 threads ended with 270 MB
taken from the system, 223 MB of it free; with two arenas, 47 MB and 20 MB
(docs/reliability.md, the soak). MALLOC_ARENA_MAX, when the user sets it, is left alone.
"""

from __future__ import annotations

import ctypes
import functools
import os
import tempfile
from pathlib import Path
from xml.etree import ElementTree

__all__ = ["SERVER_ARENAS", "arena_summary", "limit_arenas"]

SERVER_ARENAS = 2
M_ARENA_MAX = -8  # glibc's malloc.h


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt  # noqa: B018 - glibc only (not musl, not macOS)
        libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    except (OSError, AttributeError):
        return None
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    return libc


def limit_arenas(count: int = SERVER_ARENAS) -> bool:
    """Cap malloc's arenas at count, unless MALLOC_ARENA_MAX is set. It holds for the threads
    that start later; the cap is read when a ninth arena would be made, so call it early."""
    libc = _libc()
    if libc is None or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    return bool(libc.mallopt(M_ARENA_MAX, count))


def arena_summary() -> dict[str, int] | None:
    """How many arenas malloc has, and the bytes they hold from the system and in free chunks
    (from malloc_info's XML totals), or None where malloc is not glibc's."""
    libc = _libc()
    if libc is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "malloc_info.xml"
        stream = libc.fopen(str(path).encode(), b"w")
        if not stream:
            return None
        libc.malloc_info(0, stream)
        libc.fclose(stream)
        text = path.read_text()
    root = ElementTree.fromstring(text)
    totals = {t.get("type"): int(t.get("size") or 0) for t in root.findall("total")}
    system = {t.get("type"): int(t.get("size") or 0) for t in root.findall("system")}
    return {"arenas": len(root.findall("heap")),
            "system_bytes": system.get("current", 0),
            "free_bytes": totals.get("fast", 0) + totals.get("rest", 0),
            "mmap_bytes": totals.get("mmap", 0)}
