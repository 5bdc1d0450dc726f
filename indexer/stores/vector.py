"""The vector side: LanceDB tables of passage embeddings with the metadata filters need.

Passages live in four tables, one per kind (messages, memories) and language (cjk, other).
Every search names its kind and language, so the common search (messages, one language, no
filter) is a bare ANN lookup: no prefilter mask, whose cost grows with the table
(docs/performance.md).

Reads (counts, rows, searches) open each table's Lance dataset directly. LanceDB, whose import
alone takes most of a second, is loaded only to write: to add, delete, compact and build
indexes, or to create the tables of a new index."""

from __future__ import annotations

import heapq
import json
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import lance
import numpy as np
import pyarrow as pa

from indexer.stores.documents import MEMORY_ROLE_PREFIX, Passage, split_key
from indexer.stores.faults import damaged, reading
from indexer.stores.remote_tables import RemoteTables, remote_storage
from indexer.stores.vector_ann import (
    ANN_MIN_ROWS,
    ANN_REBUILD_GROWTH,
    NPROBES,
    REFINE_FACTOR,
    VECTOR_INDEX,
    ann_config,
)
from indexer.stores.vector_build import ann_build_running
from indexer.stores.vector_filters import lance_where, sql_string
from indexer.text.analysis import is_cjk_text
from models import SearchFilters

if TYPE_CHECKING:
    from lancedb.table import Table

__all__ = ["LANGS", "VectorHit", "VectorIndex", "vector_rows"]

log = logging.getLogger(__name__)

KINDS = ("messages", "memories")
LANGS = ("cjk", "other")
# Scalar indexes for the filters a user may set (role, day, channel) and for deletes by session
# (LanceDB's index types, by name: importing LanceDB is left to the writes).
SCALAR_INDEXES: dict[str, Literal["Bitmap", "BTree"]] = {
    "role": "Bitmap", "channel": "Bitmap", "day": "BTree", "session_id": "BTree"}
# Lance answers every ANN query on a table with deleted rows through a mask of its live rows,
# built per query at a cost that grows with the table (one deleted session: 5.9 -> 7.6 ms at
# 200k rows, benchmarks/deleted_rows.py; 10 -> 49 ms at 1.1M). So every write ends by rewriting the fragments that hold deleted
# rows, and fragments stay this small so that rewrite touches only what an update hit.
FRAGMENT_ROWS = 131_072
# Small fragments (one per write) are merged once there are this many, not on every write: a
# merge rewrites them all, and a table with a few extra fragments searches as fast.
MERGE_SMALL_FRAGMENTS = 8
# tidy() drops versions older than this: a reader that checked out a version just before
# (the searcher checks out the latest on every query) keeps its files for a while.
VERSION_GRACE = timedelta(minutes=2)
ANN_STATE = "ann.json"


@dataclass(frozen=True, slots=True)
class VectorHit:
    key: str  # the document key (session + message)
    session_id: str
    message_id: str | None
    similarity: float  # cosine


def _schema(dim: int) -> pa.Schema:
    return pa.schema([
        pa.field("passage_id", pa.string()),
        pa.field("key", pa.string()),
        pa.field("session_id", pa.string()),
        pa.field("message_id", pa.string()),
        pa.field("role", pa.string()),
        pa.field("channel", pa.string()),
        # "|alice|bob|": a LIKE filter on a plain string is simple and fast in Lance
        pa.field("participants", pa.string()),
        pa.field("day", pa.int32()),
        pa.field("vector", pa.list_(pa.float32(), dim)),
    ])


def table_name(kind: str, lang: str) -> str:
    return f"{kind}_{lang}"


TABLES = tuple(table_name(kind, lang) for kind in KINDS for lang in LANGS)


def vector_rows(passages: Sequence[Passage], vectors: np.ndarray,
                dim: int) -> dict[str, pa.Table]:
    """The rows of each table that these passages (rows of `vectors` match) go to, as Arrow."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    parts: dict[str, list[int]] = {}
    for row, passage in enumerate(passages):
        parts.setdefault(_part(passage), []).append(row)
    return {name: _rows([passages[i] for i in rows], vectors[rows], dim)
            for name, rows in parts.items()}


def _rows(passages: Sequence[Passage], vectors: np.ndarray, dim: int) -> pa.Table:
    docs = [p.doc for p in passages]
    return pa.table(
        {
            "passage_id": [p.passage_id for p in passages],
            "key": [d.key for d in docs],
            "session_id": [d.session_id for d in docs],
            "message_id": [d.message_id or "" for d in docs],
            "role": [d.role for d in docs],
            "channel": [d.channel for d in docs],
            "participants": ["|" + "|".join(d.participants) + "|" for d in docs],
            "day": pa.array([d.day for d in docs], pa.int32()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim),
        },
        schema=_schema(dim),
    )


def _part(passage: Passage) -> str:
    # multilingual models prefer same-language text, so search ranks each language on its own
    # and fusion gives both a fair place
    kind = "memories" if passage.doc.role.startswith(MEMORY_ROLE_PREFIX) else "messages"
    return table_name(kind, "cjk" if is_cjk_text(passage.text) else "other")


def _tidy(table: Table, update_index: bool = True) -> None:
    """Rewrite every fragment holding deleted rows, merge small fragments once there are a few,
    fold new rows into the indexes, and drop versions past the grace period. (LanceDB's own
    optimize() leaves deletions below 10% of a fragment, and rewrites a growing fragment on
    every small append.)"""
    dataset = table.to_lance()
    fragments = [fragment.metadata for fragment in dataset.get_fragments()]
    small = sum(1 for fragment in fragments if fragment.num_rows < FRAGMENT_ROWS)
    if small >= MERGE_SMALL_FRAGMENTS or any(fragment.num_deletions for fragment in fragments):
        dataset.optimize.compact_files(target_rows_per_fragment=FRAGMENT_ROWS,
                                       materialize_deletions=True,
                                       materialize_deletions_threshold=0.0)
    if update_index and dataset.describe_indices():
        dataset.optimize.optimize_indices()
    dataset.cleanup_old_versions(older_than=VERSION_GRACE)
    table.checkout_latest()


def deleted_rows(table: Table) -> int:
    """Rows deleted but still in the table's data files."""
    return sum(fragment.metadata.num_deletions for fragment in table.to_lance().get_fragments())


class VectorIndex:
    def __init__(self, path: Path, dim: int, *, create: bool = False,
                 remote: RemoteTables | None = None) -> None:
        self.dim = dim
        self.path = path
        self.remote = remote
        self._tables: dict[str, Table] | None = None  # LanceDB's, for writes: see tables
        self._datasets: dict[str, lance.LanceDataset] = {}  # for reads, see _dataset()
        missing = [] if remote else [n for n in TABLES if not self._location(n).is_dir()]
        if missing and create:
            self._open_tables()  # a new index: its tables are created now
        elif missing:  # opening would quietly make new, empty tables in their place
            raise damaged("vector", path, f"table {missing[0]} is missing")

    def _location(self, name: str) -> Path:
        """Where LanceDB keeps a table of the database at self.path."""
        return self.path / f"{name}.lance"

    @property
    def tables(self) -> dict[str, Table]:
        """The LanceDB tables, which every write goes through. The first call connects, and
        so imports LanceDB (most of a second): reads never need them."""
        if self.remote is not None:
            raise PermissionError(f"the vector tables at {self.remote.uri} are read-only here: "
                                  "a follower never writes them")
        return self._tables if self._tables is not None else self._open_tables()

    def _open_tables(self) -> dict[str, Table]:
        import lancedb

        db = lancedb.connect(str(self.path))
        existing = set(db.list_tables().tables)
        self._tables = {name: (db.open_table(name) if name in existing
                               else db.create_table(name, schema=_schema(self.dim)))
                        for name in TABLES}
        return self._tables

    def refresh(self) -> None:
        for table in (self._tables or {}).values():
            table.checkout_latest()
        if self.remote is not None:  # a follower moves the versions on after each publish
            self.remote = RemoteTables.of(self.path.parent) or self.remote
        self._datasets.clear()

    def _dataset(self, name: str) -> lance.LanceDataset:
        """The table as a Lance dataset, which every read queries directly: LanceDB's own query
        layer added ~3 ms to every search of a 1.1M-row table (docs/performance.md), and its
        import most of a second to every command. Opened once, at the table's latest version
        (~2 ms), dropped by refresh() and by every write here."""
        dataset = self._datasets.get(name)
        if dataset is None:
            with reading("vector", self.path):
                dataset = self._datasets[name] = (
                    lance.dataset(str(self._location(name))) if self.remote is None
                    else lance.dataset(f"{self.remote.uri}/{name}.lance",
                                       version=self.remote.versions.get(name),
                                       storage_options=remote_storage()))
        return dataset

    def count(self) -> int:
        with reading("vector", self.path):
            return sum(self._dataset(name).count_rows() for name in TABLES)

    def delete_sessions(self, session_ids: Sequence[str]) -> None:
        self._datasets.clear()
        for start in range(0, len(session_ids), 500):
            where = f"session_id IN ({', '.join(map(sql_string, session_ids[start:start + 500]))})"
            for table in self.tables.values():
                table.delete(where)

    def delete_keys(self, keys: Sequence[str], kinds: Sequence[str] = KINDS) -> None:
        """Delete every passage of these documents (pruned memories) from the tables of kinds."""
        self._datasets.clear()
        for start in range(0, len(keys), 500):
            where = f"key IN ({', '.join(map(sql_string, keys[start:start + 500]))})"
            for kind in kinds:
                for lang in LANGS:
                    self.tables[table_name(kind, lang)].delete(where)

    def add(self, passages: Sequence[Passage], vectors: np.ndarray) -> None:
        self.add_rows(vector_rows(passages, vectors, self.dim))

    def add_rows(self, rows: dict[str, pa.Table]) -> None:
        """Add the rows vector_rows made (maybe in another process), table by table."""
        self._datasets.clear()
        for name, table in rows.items():
            self.tables[name].add(table)

    def optimize(self) -> None:
        """Compact fragments, drop old versions, and keep the ANN and scalar indexes covering
        each table: built once it is large enough, new rows folded in, retrained when it has
        grown."""
        self._datasets.clear()
        due = self.due_indexes()
        for name, table in self.tables.items():
            if name in due:
                self._build_indexes(name)
            else:
                _tidy(table)

    def due_indexes(self) -> list[str]:
        """The tables whose ANN index is to be built now: large enough for one and without one,
        or grown ANN_REBUILD_GROWTH times since it was trained."""
        built = self._ann_state()
        return [name for name, table in self.tables.items()
                if (rows := table.count_rows()) >= ANN_MIN_ROWS
                and (name not in built or rows >= ANN_REBUILD_GROWTH * built[name])]

    def build(self, names: Sequence[str]) -> None:
        """(Re)train the ANN index of these tables, without compacting them first: for a build
        that holds AnnBuild but not the writer lock (indexer/ingest/ann_build.py)."""
        self.refresh()  # from the latest version: Lance commits the index over later writes
        for name in names:
            self._build_indexes(name, tidy=False)

    def compact(self, rebuilding: Sequence[str] = ()) -> None:
        """Merge small fragments and drop old versions only: for the middle of a long ingest,
        where building the ANN index now would be thrown away by the next build. Left to a
        later write while an ANN build runs: its commit cannot follow a rewrite of the fragments
        it read (indexer/stores/vector_build.py)."""
        self._datasets.clear()
        if ann_build_running(self.path):
            log.debug("compaction of %s left for later: an ANN build is under way", self.path)
            return
        for name, table in self.tables.items():
            # an index about to be trained again is not worth bringing up to date first
            _tidy(table, update_index=name not in rebuilding)

    def _build_indexes(self, name: str, tidy: bool = True) -> None:
        from lancedb.index import Bitmap, BTree

        table = self.tables[name]
        rows = table.count_rows()
        if tidy:
            _tidy(table)  # compact first: fewer, larger files
        existing = {index.name for index in table.list_indices()}
        for column, kind in SCALAR_INDEXES.items():
            if f"{column}_idx" not in existing:
                scalar = Bitmap() if kind == "Bitmap" else BTree()
                table.create_index(column, config=scalar, name=f"{column}_idx")
        config = ann_config(rows, self.dim)
        # with a config, the first argument names the column (LanceDB's unified index API)
        table.create_index("vector", config=config, name=VECTOR_INDEX, replace=True)
        state = self._ann_state() | {name: rows}
        (self.path / ANN_STATE).write_text(json.dumps({"built_rows": state}))
        log.info("built %s over %d vectors of %s", type(config).__name__, rows, name)

    def index_status(self) -> dict[str, dict[str, int | None]]:
        """Per table: its rows, rows covered by its ANN index, rows searched flat, and the rows
        it had when the index was trained."""
        built = self._ann_state()
        out = {}
        for name, table in self.tables.items():
            rows = table.count_rows()
            stats = None
            if any(index.name == VECTOR_INDEX for index in table.list_indices()):
                stats = table.index_stats(VECTOR_INDEX)
            out[name] = {"rows": rows, "built_rows": built.get(name),
                         "indexed": stats.num_indexed_rows if stats else 0,
                         "unindexed": stats.num_unindexed_rows if stats else rows}
        return out

    def _ann_state(self) -> dict[str, int]:
        try:
            built = json.loads((self.path / ANN_STATE).read_text())["built_rows"]
            return {str(name): int(rows) for name, rows in built.items()}
        except (FileNotFoundError, ValueError, KeyError, AttributeError):
            return {}

    def rows(self, columns: Sequence[str], kinds: Sequence[str] = KINDS) -> Iterator[pa.Table]:
        """Every row of the tables of these kinds, with these columns."""
        for kind in kinds:
            for lang in LANGS:
                dataset = self._dataset(table_name(kind, lang))
                with reading("vector", self.path):
                    rows = dataset.to_table(columns=list(columns)) if dataset.count_rows() else None
                if rows is not None:
                    yield rows

    def session_counts(self) -> dict[str, int]:
        """Distinct message documents per session (session and memory documents are not counted)."""
        counts: dict[str, set[str]] = {}
        for data in self.rows(["session_id", "message_id"], kinds=["messages"]):
            for session_id, message_id in zip(data["session_id"].to_pylist(),
                                               data["message_id"].to_pylist(), strict=True):
                bucket = counts.setdefault(session_id, set())
                if message_id:
                    bucket.add(message_id)
        return {sid: len(ids) for sid, ids in counts.items()}

    def search(self, vector: np.ndarray, filters: SearchFilters, limit: int,
               lang: str | None = None) -> list[VectorHit]:
        """The `limit` passages nearest the vector under the filters, in the filters' scope and in
        one language (both when lang is None)."""
        kinds = {"messages": ["messages"], "memories": ["memories"]}.get(filters.scope, KINDS)
        names = [table_name(kind, one) for kind in kinds for one in ([lang] if lang else LANGS)]
        where = lance_where(filters)
        found = [hit for name in names for hit in self._search_table(name, vector, where, limit)]
        return found if len(names) == 1 else heapq.nlargest(limit, found, key=lambda h: h.similarity)

    def _search_table(self, name: str, vector: np.ndarray, where: str,
                      limit: int) -> list[VectorHit]:
        # A flat scan ignores nprobes and refine_factor. Only the key is read: every column read
        # costs ~1.5 ms per 100 hits, and the key holds the session and message ids.
        nearest = {"column": "vector", "q": vector.astype(np.float32), "k": limit,
                   "metric": "cosine", "nprobes": NPROBES, "refine_factor": REFINE_FACTOR}
        dataset = self._dataset(name)
        with reading("vector", self.path):
            result = dataset.to_table(
                columns=["key", "_distance"], nearest=nearest, filter=where or None,
                prefilter=bool(where), disable_scoring_autoprojection=True)
        hits = []
        for key, distance in zip(result["key"].to_pylist(), result["_distance"].to_pylist(),
                                 strict=True):
            session_id, message_id = split_key(key)
            hits.append(VectorHit(key, session_id, message_id, 1.0 - float(distance)))
        return hits
