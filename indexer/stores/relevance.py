"""Memory relevance state: one SQLite file (`<home>/relevance.sqlite3`) beside the state database.

Relevance changes on every search that returns a memory, so it is kept out of the memory files
and the LanceDB rows, which are rewritten only when a session is. A row holds the relevance as
of its last write; the value now is computed from the time since (search/relevance.py), so no
scheduled job is needed. Rows are keyed by memory id, which is stable across re-extraction and
reindexing (models/memory.py memory_id).

Pruned memories leave a tombstone (id, session, type, text, relevance when pruned): a reindex
re-extracts every session, and the tombstone keeps a pruned memory from coming back. Deleting a
session forgets both its rows and its tombstones.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from indexer.stores.documents import doc_key
from indexer.stores.facts import FactStore
from indexer.stores.generation import Generation
from indexer.stores.layout import DataDir
from indexer.stores.memories import MemoryStore
from indexer.stores.sqlite import SQLiteStore, transaction
from models import Memory

__all__ = ["PrunedMemory", "RelevanceRow", "RelevanceStore", "pruned_ids", "remove_memories",
           "session_of_memory", "without_pruned"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS relevance (
    memory_id     TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL,
    relevance     REAL NOT NULL,     -- as of updated_at
    updated_at    REAL NOT NULL,     -- epoch seconds
    access_count  INTEGER NOT NULL DEFAULT 0,
    last_accessed REAL
);
CREATE INDEX IF NOT EXISTS relevance_by_session ON relevance (session_id);
CREATE TABLE IF NOT EXISTS pruned (
    memory_id  TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    type       TEXT NOT NULL,
    text       TEXT NOT NULL,
    relevance  REAL NOT NULL,
    pruned_at  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS pruned_by_session ON pruned (session_id);
"""
_UPSERT = ("INSERT INTO relevance VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(memory_id) DO UPDATE SET "
           "relevance = excluded.relevance, updated_at = excluded.updated_at, "
           "access_count = excluded.access_count, last_accessed = excluded.last_accessed")
_CHUNK = 500  # SQLite host parameters per statement stay well under its limit


@dataclass(frozen=True, slots=True)
class RelevanceRow:
    memory_id: str
    session_id: str
    relevance: float
    updated_at: float
    access_count: int
    last_accessed: float | None


@dataclass(frozen=True, slots=True)
class PrunedMemory:
    memory_id: str
    session_id: str
    type: str
    text: str
    relevance: float
    pruned_at: float


def session_of_memory(memory_id: str) -> str:
    return memory_id.rsplit(":mem:", 1)[0]


class RelevanceStore(SQLiteStore):
    def __init__(self, data: DataDir, *, timeout: float = 30.0) -> None:
        super().__init__(data.root / "relevance.sqlite3", _SCHEMA, timeout)

    # reading
    def rows(self, memory_ids: Collection[str] | None = None) -> dict[str, RelevanceRow]:
        sql = f"SELECT {', '.join(RelevanceRow.__slots__)} FROM relevance"
        if memory_ids is None:
            return {r[0]: RelevanceRow(*r) for r in self._db.execute(sql)}
        out = {}
        for chunk in _chunks(list(memory_ids)):
            marks = ", ".join("?" * len(chunk))
            for r in self._db.execute(f"{sql} WHERE memory_id IN ({marks})", chunk):
                out[r[0]] = RelevanceRow(*r)
        return out

    def pruned(self, session_ids: Collection[str] | None = None) -> list[PrunedMemory]:
        """Tombstones, newest first (all, or of these sessions)."""
        sql = f"SELECT {', '.join(PrunedMemory.__slots__)} FROM pruned"
        if session_ids is None:
            found = self._db.execute(sql).fetchall()
        else:
            found = []
            for chunk in _chunks(list(session_ids)):
                marks = ", ".join("?" * len(chunk))
                found += self._db.execute(f"{sql} WHERE session_id IN ({marks})", chunk).fetchall()
        return sorted((PrunedMemory(*r) for r in found), key=lambda p: (-p.pruned_at, p.memory_id))

    def memory_ids_of(self, session_ids: Collection[str]) -> set[str]:
        out: set[str] = set()
        for chunk in _chunks(list(session_ids)):
            marks = ", ".join("?" * len(chunk))
            out.update(r[0] for r in self._db.execute(
                f"SELECT memory_id FROM relevance WHERE session_id IN ({marks})", chunk))
        return out

    # writing: each call is one transaction
    def register(self, memories: Iterable[Memory], now: float) -> None:
        """Give memories seen for the first time a row, starting at their confidence (a reindex
        or re-extraction keeps the rows that exist)."""
        self._write("INSERT INTO relevance (memory_id, session_id, relevance, updated_at) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT(memory_id) DO NOTHING",
                    [(m.id, m.session_id, min(1.0, max(0.0, m.confidence)), now) for m in memories])

    def update(self, memory_ids: Collection[str],
               change: Callable[[str, RelevanceRow | None], RelevanceRow]) -> list[RelevanceRow]:
        """Read these rows and write change(id, row or None) for each, in one transaction, so
        concurrent boosts of the same memory all count."""
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return []
        with transaction(self._db):
            found = self.rows(ids)
            new = [change(i, found.get(i)) for i in ids]
            self._db.executemany(_UPSERT, [_values(r) for r in new])
        return new

    def put(self, rows: Iterable[RelevanceRow]) -> None:
        """Write rows whole (a boost, or a decay written down): one batched UPSERT."""
        self._write(_UPSERT, [_values(r) for r in rows])

    def tombstone(self, entries: Iterable[PrunedMemory]) -> None:
        entries = list(entries)
        with transaction(self._db):
            self._db.executemany(
                "INSERT INTO pruned VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(memory_id) DO UPDATE SET "
                "relevance = excluded.relevance, pruned_at = excluded.pruned_at",
                [(p.memory_id, p.session_id, p.type, p.text, p.relevance, p.pruned_at)
                 for p in entries])
            self._db.executemany("DELETE FROM relevance WHERE memory_id = ?",
                                 [(p.memory_id,) for p in entries])

    def forget_memories(self, memory_ids: Iterable[str]) -> None:
        """Drop rows of memories that no longer exist (their session was re-extracted)."""
        self._write("DELETE FROM relevance WHERE memory_id = ?", [(i,) for i in memory_ids])

    def forget_sessions(self, session_ids: Iterable[str]) -> None:
        """Forget everything about these sessions' memories: rows and tombstones."""
        ids = [(sid,) for sid in session_ids]
        with transaction(self._db):
            self._db.executemany("DELETE FROM relevance WHERE session_id = ?", ids)
            self._db.executemany("DELETE FROM pruned WHERE session_id = ?", ids)

    def _write(self, sql: str, params: list[tuple[object, ...]]) -> None:
        if params:
            with transaction(self._db):
                self._db.executemany(sql, params)


def pruned_ids(data: DataDir, session_ids: Collection[str] | None = None) -> set[str]:
    """The ids of the memories pruned from these sessions (all sessions: None)."""
    with RelevanceStore(data) as store:
        return {p.memory_id for p in store.pruned(session_ids)}


def without_pruned(data: DataDir, extracted: Sequence[tuple[str, list[Memory]]],
                   now: float | None = None) -> list[list[Memory]]:
    """The memories just extracted for these sessions, less the ones pruned before (so a reindex
    does not bring them back); the rest get a relevance row if they had none, and rows of
    memories a changed session no longer yields are dropped."""
    session_ids = [sid for sid, _ in extracted]
    with RelevanceStore(data) as store:
        gone = {p.memory_id for p in store.pruned(session_ids)}
        kept = [[m for m in memories if m.id not in gone] for _, memories in extracted]
        live = {m.id for memories in kept for m in memories}
        store.forget_memories(store.memory_ids_of(session_ids) - live)
        store.register((m for memories in kept for m in memories),
                       time.time() if now is None else now)
    return kept


def remove_memories(data: DataDir, gen: Generation, relevance: Mapping[str, float],
                    now: float) -> list[PrunedMemory]:
    """Prune: tombstone these memories (id -> relevance when chosen), then remove them from the
    memory store and both indexes. The caller holds the writer lock. Tombstones go first: after
    a crash half-way the memory is still tombstoned, and the next reindex leaves it out."""
    store = MemoryStore(data)
    by_session: dict[str, list[Memory]] = {}
    for session_id in sorted({session_of_memory(i) for i in relevance}):
        by_session[session_id] = store.load(session_id) or []
    victims = [m for memories in by_session.values() for m in memories if m.id in relevance]
    if not victims:
        return []
    entries = [PrunedMemory(m.id, m.session_id, m.type, m.text, relevance[m.id], now)
               for m in victims]
    with RelevanceStore(data) as relevance_store:
        relevance_store.tombstone(entries)
    gone = {m.id for m in victims}
    with FactStore(data) as facts:
        facts.forget_memories(gone)
    store.save_many((sid, [m for m in memories if m.id not in gone])
                    for sid, memories in by_session.items() if any(m.id in gone for m in memories))
    keys = [doc_key(m.session_id, m.id) for m in victims]
    gen.keyword.delete_keys(keys)
    gen.keyword.commit()
    gen.vectors.delete_keys(keys, kinds=("memories",))
    gen.mark_changed()
    return entries


def _values(r: RelevanceRow) -> tuple[object, ...]:
    return (r.memory_id, r.session_id, r.relevance, r.updated_at, r.access_count, r.last_accessed)


def _chunks(items: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]
