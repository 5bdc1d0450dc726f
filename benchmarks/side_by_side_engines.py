"""What a user would pick instead of recall, built from an archive and timed: SQLite FTS5 and a
LanceDB table with its native full-text index and vectors (benchmarks/side_by_side.py).

Both read the same archive JSON with recall's own parser, one row per non-empty message, as
"speaker: content" (recall indexes the speaker too), in batches of sessions so memory stays flat
at 1M messages. The LanceDB table's vectors come from recall's own hash embedder, computed once
per archive and cached on disk (`vectors-<dim>.npy`): the embedding is the same code whichever
engine stores the vectors, so it is timed apart and the engine's ingest is what the engine does.

- FTS5: a file database, `porter unicode61` (English stemming, as LanceDB's FTS default), bm25;
  a query is its words quoted and OR-ed (benchmarks/baselines.py's `fts5_query`), the best 100
  messages fetched.
- LanceDB: `FTS()` with its defaults on `text`, and `create_index` with its defaults (IVF_PQ)
  and the cosine metric on `vector` (from recall's ANN_MIN_ROWS rows; a flat scan below, as
  recall does too, and PQ cannot train on a few hundred rows); queried with `query_type="hybrid"`, the hash vector of the
  query, fused by `RRFReranker()` (k=60), the best 100 messages fetched.
"""

from __future__ import annotations

import json
import multiprocessing
import resource
import shutil
import sqlite3
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS
from lancedb.rerankers import RRFReranker

from benchmarks.baselines import fts5_query
from indexer.embedding.embedders import HashEmbedder
from indexer.stores.vector_ann import ANN_MIN_ROWS
from models import parse_session

__all__ = ["Fts5Engine", "LanceEngine", "build_baselines", "message_batches"]

SESSIONS_PER_BATCH = 2000
# Messages fetched per query: what benchmarks/baselines.py fetches to find 10 sessions.
CANDIDATES = 100


def message_batches(sessions_dir: Path) -> Iterator[list[tuple[str, str]]]:
    """(session id, "speaker: content") of every non-empty message, a batch of sessions at a time."""
    paths = sorted(sessions_dir.rglob("*.json"))
    for start in range(0, len(paths), SESSIONS_PER_BATCH):
        batch: list[tuple[str, str]] = []
        for path in paths[start:start + SESSIONS_PER_BATCH]:
            session = parse_session(json.loads(path.read_text("utf-8")), fallback_id=path.stem)
            batch += [(session.session_id, f"{m.speaker}: {m.content}" if m.speaker else m.content)
                      for m in session.messages if m.content.strip()]
        yield batch


def _embed(args: tuple[int, list[str]]) -> np.ndarray:
    dim, texts = args
    return HashEmbedder(dim).embed_passages(texts)


def _cpu_with_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + usage.ru_utime + usage.ru_stime


class Phases:
    """Wall and CPU seconds (this process's, every thread) spent in each named phase."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.wall[name] = self.wall.get(name, 0.0) + time.perf_counter() - wall
            self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - cpu

    def engine(self, names: list[str], messages: int) -> dict[str, float]:
        wall, cpu = sum(self.wall.get(n, 0.0) for n in names), sum(self.cpu.get(n, 0.0) for n in names)
        return {"seconds": round(wall, 1), "messages_per_s": round(messages / wall, 1),
                "cpu_s": round(cpu, 1), "messages_per_cpu_s": round(messages / cpu, 1)}


def hash_vectors(sessions_dir: Path, dim: int, cache: Path, workers: int) -> dict[str, Any]:
    """Hash vectors of every message, in message_batches' order, saved to `cache`; timed with
    the reading, on `workers` processes (CPU: theirs and this one's)."""
    started, cpu = time.perf_counter(), _cpu_with_children()
    chunks: list[np.ndarray] = []
    # spawned, not forked: a fork of a process that has loaded LanceDB may deadlock (its warning)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for batch in message_batches(sessions_dir):
            texts = [text for _, text in batch]
            parts = [texts[i:i + 1000] for i in range(0, len(texts), 1000)]
            chunks += pool.map(_embed, [(dim, part) for part in parts])
    vectors = np.concatenate(chunks).astype(np.float32)
    seconds, cpu = time.perf_counter() - started, _cpu_with_children() - cpu
    np.save(cache, vectors)
    timing = {"messages": len(vectors), "seconds": round(seconds, 1), "workers": workers,
              "messages_per_s": round(len(vectors) / seconds, 1), "cpu_s": round(cpu, 1),
              "messages_per_cpu_s": round(len(vectors) / cpu, 1)}
    cache.with_suffix(".json").write_text(json.dumps(timing))
    return timing


class Fts5Engine:
    name = "SQLite FTS5"

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path)

    @classmethod
    def create(cls, path: Path) -> Fts5Engine:
        path.unlink(missing_ok=True)
        engine = cls(path)
        engine.db.execute("CREATE VIRTUAL TABLE m USING fts5(text, session_id UNINDEXED, "
                          "tokenize='porter unicode61')")
        return engine

    def add(self, batch: list[tuple[str, str]]) -> None:
        self.db.executemany("INSERT INTO m (text, session_id) VALUES (?, ?)",
                            [(text, session_id) for session_id, text in batch])

    def commit(self) -> None:
        self.db.commit()

    def search(self, query: str) -> list[str]:
        match = fts5_query(query) or '""'
        rows = self.db.execute("SELECT session_id FROM m WHERE m MATCH ? ORDER BY bm25(m) LIMIT ?",
                               [match, CANDIDATES]).fetchall()
        return [session_id for (session_id,) in rows]


class LanceEngine:
    name = "LanceDB hybrid"

    def __init__(self, folder: Path, dim: int) -> None:
        self.folder, self.dim = folder, dim
        self.db = lancedb.connect(str(folder))
        self.table: Any = (self.db.open_table("messages") if "messages" in self.db.list_tables().tables
                           else None)
        self.embedder = HashEmbedder(dim)
        self.reranker = RRFReranker()

    @classmethod
    def create(cls, folder: Path, dim: int) -> LanceEngine:
        shutil.rmtree(folder, ignore_errors=True)  # a second run starts over, never appends
        return cls(folder, dim)

    def add(self, batch: list[tuple[str, str]], vectors: np.ndarray) -> None:
        data = pa.table({
            "session_id": [session_id for session_id, _ in batch],
            "text": [text for _, text in batch],
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), self.dim)})
        if self.table is None:
            self.table = self.db.create_table("messages", data, mode="overwrite")
        else:
            self.table.add(data)

    def build_fts(self) -> None:
        self.table.create_index("text", config=FTS(), replace=True)

    def build_ann(self) -> None:
        self.table.create_index(metric="cosine", vector_column_name="vector", replace=True)

    def search(self, query: str) -> list[str]:
        vector = self.embedder.embed_query(query)
        builder = (self.table.search(query_type="hybrid", vector_column_name="vector")
                   .vector(vector).text(query).rerank(self.reranker).limit(CANDIDATES)
                   .select(["session_id"]))
        return list(builder.to_arrow()["session_id"].to_pylist())


def _size_mb(path: Path) -> float:
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return round(sum(p.stat().st_size for p in files) / 1e6, 1)


def build_baselines(sessions_dir: Path, work: Path, dim: int, workers: int) -> dict[str, Any]:
    """Both baselines from the archive, each phase timed (wall and CPU): reading and parsing
    (which both pay), FTS5's inserts and commit, LanceDB's writes, FTS index and ANN index."""
    work.mkdir(parents=True, exist_ok=True)
    cache = work / f"vectors-{dim}.npy"
    if cache.exists():  # computed by an earlier run on this archive: its timing was kept
        embedding = {**json.loads(cache.with_suffix(".json").read_text()), "cached": True}
    else:
        embedding = hash_vectors(sessions_dir, dim, cache, workers)
    vectors = np.load(cache, mmap_mode="r")
    fts5 = Fts5Engine.create(work / "fts5.sqlite3")
    lance = LanceEngine.create(work / "lancedb", dim)
    phases = Phases()
    done = 0
    batches = message_batches(sessions_dir)
    while True:
        with phases("parse"):
            batch = next(batches, None)
        if batch is None:
            break
        with phases("fts5 insert"):
            fts5.add(batch)
        with phases("lance add"):
            lance.add(batch, np.ascontiguousarray(vectors[done:done + len(batch)]))
        done += len(batch)
    if done != len(vectors):
        raise SystemExit(f"{cache} holds {len(vectors)} vectors for {done} messages: delete it")
    with phases("fts5 commit"):
        fts5.commit()
    with phases("lance fts index"):
        lance.build_fts()
    ann = done >= ANN_MIN_ROWS
    if ann:
        with phases("lance ann index"):
            lance.build_ann()
    return {"messages": done, "ann_index": ann,
            "phases_s": {k: round(v, 2) for k, v in phases.wall.items()},
            "phases_cpu_s": {k: round(v, 2) for k, v in phases.cpu.items()},
            "hash_vectors": embedding,
            "fts5": phases.engine(["parse", "fts5 insert", "fts5 commit"], done)
            | {"disk_mb": _size_mb(work / "fts5.sqlite3")},
            "lancedb": phases.engine(["parse", "lance add", "lance fts index", "lance ann index"], done)
            | {"disk_mb": _size_mb(work / "lancedb")}}
