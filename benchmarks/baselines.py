"""Baselines for benchmarks/retrieval.py: what one builds from stock parts, on the same messages.

- `Fts5Bm25`: SQLite FTS5 (stdlib sqlite3, in memory, porter over unicode61), one row per
  message, bm25 ranking; the query's words each quoted and OR-ed, so no word is FTS5 syntax and
  any word may match.
- `LanceHybrid`: a LanceDB table of the messages with a native FTS index (default settings:
  simple tokenizer, English stemming and stop words) and vectors from recall's own embedder,
  queried with `query_type="hybrid"` and fused by `RRFReranker` (k=60).

Both see each message as "speaker: content" (recall indexes speaker and participant names
too), rank sessions by their best message and filter per conversation the way recall's
participant filter does: the session's participants, lowercased, must include the name.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import FTS
from lancedb.rerankers import RRFReranker

from models import parse_session

__all__ = ["BenchMessage", "Fts5Bm25", "LanceHybrid", "Ranking", "fts5_query", "load_messages"]

# Messages fetched per query before grouping by session: enough for 10 distinct sessions.
CANDIDATES = 100


@dataclass(frozen=True, slots=True)
class BenchMessage:
    session_id: str
    message_id: str
    participants: str  # "|caroline|melanie|": lowercased, as recall's participant filter compares
    text: str


@dataclass(frozen=True, slots=True)
class Ranking:
    sessions: list[str]
    messages: list[str]


def load_messages(sessions_dir: Path) -> list[BenchMessage]:
    """Every non-empty message, parsed by recall's own parser (same ids, same content)."""
    out = []
    for path in sorted(sessions_dir.rglob("*.json")):
        session = parse_session(json.loads(path.read_text("utf-8")), fallback_id=path.stem)
        participants = "|" + "|".join(p.lower() for p in session.participants) + "|"
        for m in session.messages:
            if m.content.strip():
                text = f"{m.speaker}: {m.content}" if m.speaker else m.content
                out.append(BenchMessage(session.session_id, m.id, participants, text))
    return out


def ranking(hits: list[BenchMessage], limit: int) -> Ranking:
    """Sessions in order of their best message; the first `limit` messages as ranked."""
    sessions = list(dict.fromkeys(h.session_id for h in hits))[:limit]
    return Ranking(sessions, [h.message_id for h in hits[:limit]])


def fts5_query(text: str) -> str | None:
    """Each word quoted and OR-ed: punctuation and FTS5 operators in questions cannot break it."""
    words = dict.fromkeys(re.findall(r"\w+", text.lower()))
    return " OR ".join(f'"{w}"' for w in words) or None


def _participant_pattern(participant: str) -> str:
    return f"%|{participant.lower()}|%"


class Fts5Bm25:
    name = "FTS5 BM25"

    def __init__(self, messages: list[BenchMessage]) -> None:
        self.messages = messages
        self.db = sqlite3.connect(":memory:")
        # porter over unicode61: English stemming, as LanceDB's FTS default does
        self.db.execute("CREATE VIRTUAL TABLE m USING fts5(text, participants UNINDEXED, "
                        "tokenize='porter unicode61')")
        self.db.executemany("INSERT INTO m (rowid, text, participants) VALUES (?, ?, ?)",
                            [(i, m.text, m.participants) for i, m in enumerate(messages)])

    def search(self, query: str, participant: str | None = None, limit: int = 10) -> Ranking:
        match = fts5_query(query)
        if match is None:
            return Ranking([], [])
        sql, params = "SELECT rowid FROM m WHERE m MATCH ?", [match]
        if participant:
            sql += " AND participants LIKE ?"
            params.append(_participant_pattern(participant))
        # all matches, best first: a session's rank is its best message's bm25
        rows = self.db.execute(sql + " ORDER BY bm25(m)", params).fetchall()
        return ranking([self.messages[r] for (r,) in rows], limit)


class LanceHybrid:
    name = "LanceDB hybrid"

    def __init__(self, messages: list[BenchMessage], embedder, folder: Path) -> None:
        self.messages = messages
        self.embedder = embedder
        vectors = cached_vectors(messages, embedder, folder)
        table = pa.table({
            "row": pa.array(range(len(messages)), pa.int32()),
            "participants": [m.participants for m in messages],
            "text": [m.text for m in messages],
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()),
                                                        vectors.shape[1]),
        })
        self.table = lancedb.connect(str(folder / "lancedb")).create_table(
            "messages", table, mode="overwrite")
        # native FTS with its defaults; FTS() is create_fts_index's non-deprecated spelling
        self.table.create_index("text", config=FTS(), replace=True)
        self.reranker = RRFReranker()

    def search(self, query: str, participant: str | None = None, limit: int = 10) -> Ranking:
        vector = self.embedder.embed_query(query)
        builder = (self.table.search(query_type="hybrid", vector_column_name="vector")
                   .vector(vector).text(query).rerank(self.reranker).limit(CANDIDATES))
        if participant:
            pattern = _participant_pattern(participant).replace("'", "''")
            builder = builder.where(f"participants LIKE '{pattern}'", prefilter=True)
        rows = builder.to_arrow()["row"].to_pylist()
        return ranking([self.messages[r] for r in rows], limit)


def cached_vectors(messages: list[BenchMessage], embedder, folder: Path) -> np.ndarray:
    """Passage vectors for the messages, kept on disk: e5 takes about a minute for LoCoMo."""
    digest = hashlib.sha256(embedder.name.encode())
    for m in messages:
        digest.update(b"\x1e" + m.text.encode())
    path = folder / f"vectors-{digest.hexdigest()[:16]}.npy"
    if path.exists():
        return np.load(path)
    folder.mkdir(parents=True, exist_ok=True)
    vectors = np.ascontiguousarray(embedder.embed_passages([m.text for m in messages]), np.float32)
    np.save(path, vectors)
    return vectors


def fts5_reference(archive: Path, db_path: Path, queries: list[str],
                   filters: dict[str, dict[str, str]]) -> dict[str, Any]:
    """SQLite FTS5 over the same archive (bm25, porter): its build time, size and latency per
    filter, the reference benchmarks/scale.py reports beside recall's keyword leg."""

    db_path.unlink(missing_ok=True)
    db = sqlite3.connect(db_path)
    db.execute("CREATE VIRTUAL TABLE m USING fts5(text, session_id UNINDEXED, day UNINDEXED, "
               "channel UNINDEXED, tokenize='porter unicode61')")
    started = time.perf_counter()
    rows = 0
    for path in sorted(archive.rglob("*.json")):
        session = parse_session(json.loads(path.read_text("utf-8")), fallback_id=path.stem)
        db.executemany("INSERT INTO m VALUES (?, ?, ?, ?)",
                       [(m.content, session.session_id, session.date, session.channel or "")
                        for m in session.messages if m.content.strip()])
        rows += len(session.messages)
    db.commit()
    build = time.perf_counter() - started
    latency: dict[str, Any] = {}
    for name, f in filters.items():
        clauses, params = ["m MATCH ?"], []
        if "since" in f:
            clauses.append("day BETWEEN ? AND ?")
            params += [f["since"], f["until"]]
        if "channel" in f:
            clauses.append("channel = ?")
            params.append(f["channel"])
        sql = f"SELECT session_id FROM m WHERE {' AND '.join(clauses)} ORDER BY bm25(m) LIMIT 100"
        times = []
        for q in queries:
            match = fts5_query(q) or '""'
            started = time.perf_counter()
            db.execute(sql, [match, *params]).fetchall()
            times.append((time.perf_counter() - started) * 1000)
        latency[f"keyword / {name}"] = {
            "p50": round(statistics.median(times), 2),
            "p95": round(sorted(times)[min(len(times) - 1, int(0.95 * len(times)))], 2),
            "p99": round(sorted(times)[min(len(times) - 1, int(0.99 * len(times)))], 2)}
    db.close()
    return {"messages": rows, "build_s": round(build, 2), "latency_ms": latency,
            "db_mb": round(db_path.stat().st_size / 1e6, 1)}
