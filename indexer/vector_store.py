"""The vector side: one LanceDB table of passage embeddings with the metadata filters need."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import Bitmap, BTree, IvfHnswSq

from models import MEMORY_TYPES, SearchFilters

from .analysis import is_cjk_text
from .documents import MEMORY_ROLE_PREFIX, Passage, day_number

__all__ = ["VectorHit", "VectorIndex"]

log = logging.getLogger(__name__)

TABLE = "passages"
# A flat scan costs ~2 ms per 1k rows on one core, and hybrid search runs two (one per
# language): past this size an ANN index pays (docs/performance.md).
ANN_MIN_ROWS = 10_000
# IVF_HNSW_SQ: HNSW graphs inside a few IVF partitions over 8-bit scalar-quantized vectors, a few
# ms per query. m=16, ef_construction=100 build ~3x faster than the defaults (20, 300) for about
# the same recall against a flat scan (docs/performance.md). One partition per ROWS_PER_PARTITION.
ANN_INDEX_TYPE = "IVF_HNSW_SQ"
ANN_M = 16
ANN_EF_CONSTRUCTION = 100
ROWS_PER_PARTITION = 250_000
VECTOR_INDEX = "vector_idx"
# New rows are folded into the existing partitions by optimize(); once the table has grown this
# much since the partitions were trained, they are trained again from all rows.
ANN_REBUILD_GROWTH = 2.0
# Scalar indexes for the prefilters every search runs (language always, role always, day and
# channel when filtered) and for deletes by session.
SCALAR_INDEXES = {"lang": Bitmap, "role": Bitmap, "channel": Bitmap, "day": BTree,
                  "session_id": BTree}
# optimize() drops versions older than this: a reader that checked out a version just before
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
        # "cjk" or "other": multilingual models prefer same-language text, so search
        # ranks each language on its own and fusion gives both a fair place
        pa.field("lang", pa.string()),
        pa.field("vector", pa.list_(pa.float32(), dim)),
    ])


def _sql_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class VectorIndex:
    def __init__(self, path: Path, dim: int) -> None:
        self.dim = dim
        self.path = path
        self.db = lancedb.connect(str(path))
        if TABLE in self.db.list_tables().tables:
            self.table = self.db.open_table(TABLE)
        else:
            self.table = self.db.create_table(TABLE, schema=_schema(dim))

    def refresh(self) -> None:
        self.table.checkout_latest()

    def count(self) -> int:
        return self.table.count_rows()

    def delete_sessions(self, session_ids: Sequence[str]) -> None:
        for start in range(0, len(session_ids), 500):
            chunk = session_ids[start : start + 500]
            self.table.delete(f"session_id IN ({', '.join(map(_sql_string, chunk))})")

    def add(self, passages: Sequence[Passage], vectors: np.ndarray) -> None:
        if not passages:
            return
        docs = [p.doc for p in passages]
        batch = pa.table(
            {
                "passage_id": [p.passage_id for p in passages],
                "key": [d.key for d in docs],
                "session_id": [d.session_id for d in docs],
                "message_id": [d.message_id or "" for d in docs],
                "role": [d.role for d in docs],
                "channel": [d.channel for d in docs],
                "participants": ["|" + "|".join(d.participants) + "|" for d in docs],
                "day": pa.array([d.day for d in docs], pa.int32()),
                "lang": ["cjk" if is_cjk_text(p.text) else "other" for p in passages],
                "vector": pa.FixedSizeListArray.from_arrays(
                    pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel()), self.dim),
            },
            schema=_schema(self.dim),
        )
        self.table.add(batch)

    def optimize(self) -> None:
        """Compact fragments, drop old versions, and keep the ANN and scalar indexes covering the
        table: built once it is large enough, new rows folded in, retrained when it has grown."""
        rows = self.count()
        built = self._ann_built_rows()
        if rows >= ANN_MIN_ROWS and (built is None or rows >= ANN_REBUILD_GROWTH * built):
            self.build_indexes()
        else:
            self.table.optimize(cleanup_older_than=VERSION_GRACE)

    def compact(self) -> None:
        """Merge small fragments and drop old versions only: for the middle of a long ingest,
        where building the ANN index now would be thrown away by the next build."""
        self.table.optimize(cleanup_older_than=VERSION_GRACE)

    def build_indexes(self) -> None:
        """(Re)train the ANN index on every row now in the table, and build the scalar indexes."""
        rows = self.count()
        self.table.optimize(cleanup_older_than=VERSION_GRACE)  # compact first: fewer, larger files
        existing = {index.name for index in self.table.list_indices()}
        for column, kind in SCALAR_INDEXES.items():
            if f"{column}_idx" not in existing:
                self.table.create_index(column, config=kind(), name=f"{column}_idx")
        config = IvfHnswSq(distance_type="cosine", num_partitions=max(1, rows // ROWS_PER_PARTITION),
                           m=ANN_M, ef_construction=ANN_EF_CONSTRUCTION)
        # with a config, the first argument names the column (LanceDB's unified index API)
        self.table.create_index("vector", config=config, name=VECTOR_INDEX, replace=True)
        (self.path / ANN_STATE).write_text(json.dumps({"built_rows": rows, "type": ANN_INDEX_TYPE}))
        log.info("built %s over %d vectors", ANN_INDEX_TYPE, rows)

    def index_status(self) -> dict[str, int | None]:
        """Rows covered by the ANN index, rows searched flat, rows when it was trained."""
        stats = None
        if any(index.name == VECTOR_INDEX for index in self.table.list_indices()):
            stats = self.table.index_stats(VECTOR_INDEX)
        return {"rows": self.count(), "built_rows": self._ann_built_rows(),
                "indexed": stats.num_indexed_rows if stats else 0,
                "unindexed": stats.num_unindexed_rows if stats else self.count()}

    def _ann_built_rows(self) -> int | None:
        try:
            return int(json.loads((self.path / ANN_STATE).read_text())["built_rows"])
        except (FileNotFoundError, ValueError, KeyError):
            return None

    def session_counts(self) -> dict[str, int]:
        """Distinct message documents per session (session and memory documents are not counted)."""
        data = (self.table.search().where(f"role NOT LIKE {_sql_string(MEMORY_ROLE_PREFIX + '%')}")
                .select(["session_id", "message_id"])
                .limit(max(self.count(), 1)).to_arrow())
        counts: dict[str, set[str]] = {}
        for session_id, message_id in zip(data["session_id"].to_pylist(),
                                           data["message_id"].to_pylist(), strict=True):
            bucket = counts.setdefault(session_id, set())
            if message_id:
                bucket.add(message_id)
        return {sid: len(ids) for sid, ids in counts.items()}

    def search(self, vector: np.ndarray, filters: SearchFilters, limit: int,
               lang: str | None = None) -> list[VectorHit]:
        query = self.table.search(vector.astype(np.float32), vector_column_name="vector")
        # refine_factor(1) re-scores the hits with the stored vectors: the IVF_HNSW_SQ index
        # returns quantized distances on another scale (about twice the cosine distance), and the
        # searcher compares similarities with a per-query floor. A flat scan ignores it.
        query = query.distance_type("cosine").limit(limit).refine_factor(1)
        where = self._where(filters)
        if lang:
            where = " AND ".join(filter(None, (where, f"lang = {_sql_string(lang)}")))
        if where:
            query = query.where(where, prefilter=True)
        result = query.select(["key", "session_id", "message_id", "_distance"]).to_arrow()
        hits = []
        for key, session_id, message_id, distance in zip(
            result["key"].to_pylist(), result["session_id"].to_pylist(),
            result["message_id"].to_pylist(), result["_distance"].to_pylist(), strict=True,
        ):
            hits.append(VectorHit(key, session_id, message_id or None, 1.0 - float(distance)))
        return hits

    @staticmethod
    def _where(filters: SearchFilters) -> str:
        clauses: list[str] = []
        if filters.since:
            clauses.append(f"day >= {day_number(filters.since)}")
        if filters.until:
            clauses.append(f"day <= {day_number(filters.until)}")
        if filters.date_ranges:
            clauses.append("(" + " OR ".join(
                f"(day >= {day_number(low)} AND day <= {day_number(high)})"
                for low, high in filters.date_ranges) + ")")
        if filters.channel:
            clauses.append(f"channel = {_sql_string(filters.channel.lower())}")
        if filters.role:
            clauses.append(f"role = {_sql_string(filters.role.lower())}")
        if filters.session:
            clauses.append(f"session_id = {_sql_string(filters.session)}")
        if filters.participant:
            pattern = "%|" + filters.participant.lower().replace("|", "") + "|%"
            clauses.append(f"participants LIKE {_sql_string(pattern)}")
        # the memory roles by name, as the keyword side does: a BITMAP index answers IN, while
        # NOT LIKE 'memory:%' scanned every role (~40% of a prefiltered vector search at 200k rows)
        memories = ", ".join(_sql_string(MEMORY_ROLE_PREFIX + t) for t in MEMORY_TYPES)
        if filters.scope == "messages":
            clauses.append(f"role NOT IN ({memories})")
        elif filters.scope == "memories" and filters.memory_type:
            clauses.append(f"role = {_sql_string(MEMORY_ROLE_PREFIX + filters.memory_type)}")
        elif filters.scope == "memories":
            clauses.append(f"role IN ({memories})")
        return " AND ".join(clauses)


