"""Statements whose value can change, and which later ones supersede which: one SQLite file
(`<home>/facts.sqlite3`) beside the memory store.

`statements` holds one row per memory of a linked kind (indexer/memories/supersession.py): the
memory, its place in its session and its embedding, written in the same ingest batch as the
memory files and forgotten with its session or when the memory is pruned. `links` is derived
from all statements at once (`relink`), after every write that changed them, so the links never
depend on the order in which sessions arrived: a re-index computes the same ones. A crash between
the two leaves `stale` set, and the next writer relinks.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec

from indexer.memories.linking import link_statements
from indexer.memories.supersession import LINKED_KINDS, LINKED_TYPES, Supersession
from indexer.stores.layout import DataDir
from indexer.stores.sqlite import SQLiteStore, transaction
from models import Memory, Session

if TYPE_CHECKING:  # numpy is loaded by the writer, not by a search that reads the links
    import sqlite3

    import numpy as np

__all__ = ["FactStore", "Statement", "is_linked", "statements_of"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS statements (
    memory_id    TEXT PRIMARY KEY,
    session_id   TEXT NOT NULL,
    session_date TEXT NOT NULL,
    position     INTEGER NOT NULL,  -- its first source message's index in the session
    memory       BLOB NOT NULL,     -- the Memory as JSON
    vector       BLOB NOT NULL      -- float32, normalized
);
CREATE INDEX IF NOT EXISTS statements_by_session ON statements (session_id);
CREATE TABLE IF NOT EXISTS links (
    later      TEXT NOT NULL,
    earlier    TEXT PRIMARY KEY,     -- an earlier statement has at most one successor
    confidence REAL NOT NULL,
    reason     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS links_by_later ON links (later);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_CHUNK = 500  # SQLite host parameters per statement stay well under its limit
_DECODE_MEMORY = msgspec.json.Decoder(Memory)
_STATEMENTS_ORDER = "ORDER BY session_date, session_id, position, memory_id"


@dataclass(frozen=True, slots=True)
class Statement:
    """A memory that can be superseded, with what linking needs."""

    memory: Memory
    position: int
    vector: np.ndarray


def is_linked(memory: Memory) -> bool:
    """Whether a memory states something whose value can change later."""
    return memory.type in LINKED_TYPES and (memory.kind or "") in LINKED_KINDS


def statements_of(session: Session, memories: Sequence[Memory],
                  vectors: np.ndarray) -> list[Statement]:
    """The linked memories of a session with their vectors (rows of `vectors` match
    `memories`) and their first source message's place in the session."""
    index = {m.id: n for n, m in enumerate(session.messages)}
    out = []
    for memory, vector in zip(memories, vectors, strict=True):
        if is_linked(memory):
            places = [index[s] for s in memory.source_message_ids if s in index]
            out.append(Statement(memory, min(places, default=0), vector))
    return out


class FactStore(SQLiteStore):
    def __init__(self, data: DataDir) -> None:
        super().__init__(data.root / "facts.sqlite3", _SCHEMA)

    # statements: written by the ingest batch, forgotten with sessions or pruned memories
    def put_sessions(self, items: Iterable[tuple[str, Sequence[Statement]]]) -> None:
        """Replace the statements of each session with these (none: the session has none)."""
        import numpy as np

        rows = []
        sessions = []
        for session_id, statements in items:
            sessions.append(session_id)
            rows += [(s.memory.id, session_id, s.memory.session_date, s.position,
                      msgspec.json.encode(s.memory),
                      np.asarray(s.vector, dtype=np.float32).tobytes()) for s in statements]
        with transaction(self._db):
            before = self._keys(sessions)
            self._forget(sessions)
            self._db.executemany("INSERT OR REPLACE INTO statements VALUES (?, ?, ?, ?, ?, ?)",
                                 rows)
            # a session written again with the same statements (an append that states nothing
            # new) leaves the links as they are
            if self._keys(sessions) != before:
                self._mark_stale()

    def forget_sessions(self, session_ids: Collection[str]) -> None:
        with transaction(self._db):
            self._forget(list(session_ids))
            self._mark_stale()

    def forget_memories(self, memory_ids: Collection[str]) -> None:
        ids = list(memory_ids)
        with transaction(self._db):
            for i in range(0, len(ids), _CHUNK):
                marks = ",".join("?" * len(ids[i:i + _CHUNK]))
                self._db.execute(f"DELETE FROM statements WHERE memory_id IN ({marks})",
                                 ids[i:i + _CHUNK])
            self._mark_stale()

    def _keys(self, session_ids: list[str]) -> set[tuple[str, str, int]]:
        """What linking depends on for these sessions' statements: id, day and place."""
        keys: set[tuple[str, str, int]] = set()
        for i in range(0, len(session_ids), _CHUNK):
            chunk = session_ids[i:i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            keys.update(self._db.execute(
                "SELECT memory_id, session_date, position FROM statements "
                f"WHERE session_id IN ({marks})", chunk))
        return keys

    def _forget(self, session_ids: list[str]) -> None:
        for i in range(0, len(session_ids), _CHUNK):
            chunk = session_ids[i:i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            self._db.execute(f"DELETE FROM statements WHERE session_id IN ({marks})", chunk)

    def session_ids(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT DISTINCT session_id FROM statements")}

    def statement_ids(self) -> dict[str, set[str]]:
        """Statement ids by session."""
        out: dict[str, set[str]] = {}
        for memory_id, session_id in self._db.execute(
                "SELECT memory_id, session_id FROM statements"):
            out.setdefault(session_id, set()).add(memory_id)
        return out

    @property
    def complete(self) -> bool:
        """Whether every indexed session's statements were written (false for a data directory
        indexed before statements were kept, until they are filled in)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'complete'").fetchone()
        return bool(row and row[0] == "1")

    def mark_complete(self) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('complete', '1')")

    def _mark_stale(self) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('stale', '1')")
        # counted, so links computed from a snapshot of the statements can tell whether they
        # still hold when they are stored (store_links)
        self._db.execute("INSERT INTO meta VALUES ('changes', '1') ON CONFLICT (key) "
                         "DO UPDATE SET value = CAST(value AS INTEGER) + 1")

    @property
    def changes(self) -> int:
        """How many writes have changed the statements (a counter, for store_links)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'changes'").fetchone()
        return int(row[0]) if row else 0

    def statements(self) -> list[Statement]:
        """Every statement, oldest first (by session date, session, place in the session)."""
        import numpy as np

        with self._snapshot():
            return [Statement(_DECODE_MEMORY.decode(m), p, np.frombuffer(v, dtype=np.float32))
                    for m, p, v in self._db.execute(
                        "SELECT memory, position, vector FROM statements " + _STATEMENTS_ORDER)]

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """One read transaction: what is read in it is one snapshot (WAL lets writers go on)."""
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            self._db.execute("COMMIT")

    def memories(self, memory_ids: Collection[str]) -> dict[str, Memory]:
        ids = list(memory_ids)
        found: dict[str, Memory] = {}
        for i in range(0, len(ids), _CHUNK):
            chunk = ids[i:i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for (raw,) in self._db.execute(
                    f"SELECT memory FROM statements WHERE memory_id IN ({marks})", chunk):
                memory = _DECODE_MEMORY.decode(raw)
                found[memory.id] = memory
        return found

    # links: derived from every statement at once
    @property
    def stale(self) -> bool:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'stale'").fetchone()
        return bool(row and row[0] == "1")

    def relink(self) -> int:
        """Recompute every link from the statements; returns how many there are."""
        changes, links = self.compute_links()
        self.store_links(changes, links)
        return len(links)

    def compute_links(self) -> tuple[int, list[Supersession]]:
        """Every link, computed from a snapshot of the statements, with the change counter of
        that snapshot; reads only, so it needs no writer lock (Ingestor.index_paths)."""
        with self._snapshot():  # the counter and the rows it counts
            return self.changes, link_statements(_StoredRows(self._db))

    def store_links(self, changes: int, links: Sequence[Supersession]) -> bool:
        """Replace the links by these, computed when the change counter was `changes`; False
        (nothing stored) when a write has changed the statements since."""
        with transaction(self._db):
            if self.changes != changes:
                return False
            self._db.execute("DELETE FROM links")
            self._db.executemany("INSERT OR REPLACE INTO links VALUES (?, ?, ?, ?)",
                                 [(x.later, x.earlier, x.confidence, x.reason) for x in links])
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('stale', '0')")
        return True

    def links(self) -> list[Supersession]:
        return [Supersession(*row) for row in self._db.execute(
            "SELECT later, earlier, confidence, reason FROM links ORDER BY earlier")]


class _StoredRows:
    """The statements of the store as linking reads them (indexer/memories/linking.py,
    StatementRows): in order once, remembering each one's row, then by row."""

    PART = 4_096  # vectors read at a time in the second pass

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._rowids: list[int] = []  # by number

    def in_order(self) -> Iterator[tuple[Memory, int, np.ndarray]]:
        import numpy as np

        self._rowids = []
        for rowid, raw, place, blob in self._db.execute(
                "SELECT rowid, memory, position, vector FROM statements "
                + _STATEMENTS_ORDER):
            self._rowids.append(rowid)
            yield _DECODE_MEMORY.decode(raw), place, np.frombuffer(blob, dtype=np.float32)

    def vector_parts(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """In the table's own order (no sort): each row's number found among the rows read."""
        import numpy as np

        rowids = np.asarray(self._rowids, dtype=np.int64)
        by_rowid = np.argsort(rowids)
        ordered = rowids[by_rowid]
        cursor = self._db.execute("SELECT rowid, vector FROM statements ORDER BY rowid")
        while part := cursor.fetchmany(self.PART):
            ids = np.fromiter((rowid for rowid, _ in part), dtype=np.int64, count=len(part))
            vectors = np.frombuffer(b"".join(blob for _, blob in part), dtype=np.float32)
            yield by_rowid[np.searchsorted(ordered, ids)], vectors.reshape(len(part), -1)

    def memories(self, numbers: list[int]) -> dict[int, tuple[Memory, int]]:
        number_of = {self._rowids[n]: n for n in numbers}
        ids = list(number_of)
        found: dict[int, tuple[Memory, int]] = {}
        for i in range(0, len(ids), _CHUNK):
            chunk = ids[i:i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for rowid, raw, place in self._db.execute(
                    f"SELECT rowid, memory, position FROM statements WHERE rowid IN ({marks})",
                    chunk):
                found[number_of[rowid]] = (_DECODE_MEMORY.decode(raw), place)
        return found
