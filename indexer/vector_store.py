"""The vector side: one LanceDB table of passage embeddings with the metadata filters need."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import lancedb
import numpy as np
import pyarrow as pa

from models import SearchFilters

from .analysis import is_cjk_text
from .documents import MEMORY_ROLE_PREFIX, Passage, day_number

__all__ = ["VectorHit", "VectorIndex"]

TABLE = "passages"


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
        self.table.optimize()

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
        query = query.distance_type("cosine").limit(limit)
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
        memories = _sql_string(MEMORY_ROLE_PREFIX + "%")
        if filters.scope == "messages":
            clauses.append(f"role NOT LIKE {memories}")
        elif filters.scope == "memories" and filters.memory_type:
            clauses.append(f"role = {_sql_string(MEMORY_ROLE_PREFIX + filters.memory_type)}")
        elif filters.scope == "memories":
            clauses.append(f"role LIKE {memories}")
        return " AND ".join(clauses)


