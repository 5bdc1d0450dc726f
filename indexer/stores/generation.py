"""An index generation: a Tantivy index and a LanceDB table built together, with a record of
how they were built. A generation opened with another embedder refuses to serve vectors."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.stores.keyword import KeywordIndex
from indexer.stores.layout import atomic_write
from models import IndexMismatch, IndexUnavailable, NewerData

if TYPE_CHECKING:
    from indexer.stores.vector import VectorIndex

__all__ = ["COPYABLE_SCHEMAS", "SCHEMA_VERSION", "Generation"]

# 3: one vector table per kind and language; 4: memories in their own Tantivy index;
# 5: key and session numbers in Tantivy columns
SCHEMA_VERSION = 5
# Older schemas whose documents and vectors are still right, only kept elsewhere: an upgrade
# copies them into a new generation (indexer/maintenance/purge.py) instead of embedding everything again.
COPYABLE_SCHEMAS = {3, 4}


class Generation:
    def __init__(self, path: Path, meta: dict, *, create: bool = False) -> None:
        self.path = path
        self.meta = meta
        self.keyword = KeywordIndex(path / "keyword", create=create,
                                    as_written=meta.get("schema") != SCHEMA_VERSION)
        self._vectors: VectorIndex | None = None

    @classmethod
    def create(cls, path: Path, embedder_name: str, dim: int) -> Generation:
        path.mkdir(parents=True, exist_ok=True)
        meta = {"schema": SCHEMA_VERSION, "embedder": embedder_name, "dim": dim,
                "created": time.time()}
        atomic_write(path / "meta.json", json.dumps(meta, indent=1).encode())
        gen = cls(path, meta, create=True)
        from indexer.stores.vector import VectorIndex

        # its vector tables too, now: a generation made live is then whole, and one found
        # without them later is damaged (VectorIndex)
        gen._vectors = VectorIndex(path / "vectors", dim, create=True)
        return gen

    @classmethod
    def open(cls, path: Path, *, accept: set[int] | None = None) -> Generation:
        """Open a generation of this recall's schema, or of one in accept (to copy it)."""
        try:
            meta = json.loads((path / "meta.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError) as exc:
            raise IndexUnavailable(
                f"index at {path} is missing or damaged ({exc}); run `recall reindex`") from exc
        schema = meta.get("schema")
        if isinstance(schema, int) and schema > SCHEMA_VERSION:
            raise NewerData(
                f"this data directory was written by a newer recall (index schema {schema}; this "
                f"recall reads up to {SCHEMA_VERSION}). Nothing was changed. Upgrade recall to "
                "use it; or, to go back to this version, run `recall reindex`, which rebuilds "
                "the index from the archive (the newer recall would then rebuild it again).")
        if meta.get("schema") != SCHEMA_VERSION and meta.get("schema") not in (accept or set()):
            how = ("`recall index PATH` (copies it into the new layout, nothing is embedded "
                   "again) or `recall reindex`" if meta.get("schema") in COPYABLE_SCHEMAS
                   else "`recall reindex`")
            raise IndexMismatch(f"index at {path} has schema {meta.get('schema')}, this recall "
                                f"needs {SCHEMA_VERSION}; run {how}")
        return cls(path, meta)

    @staticmethod
    def schema_of(path: Path) -> int | None:
        """The schema a generation was written with, or None when it has no readable record."""
        try:
            return int(json.loads((path / "meta.json").read_text())["schema"])
        except (FileNotFoundError, json.JSONDecodeError, KeyError, TypeError, ValueError):
            return None

    @property
    def embedder_name(self) -> str:
        return str(self.meta["embedder"])

    @property
    def dim(self) -> int:
        return int(self.meta["dim"])

    def check_embedder(self, embedder_name: str) -> None:
        if embedder_name != self.embedder_name:
            raise IndexMismatch(
                f"the index was built with embedder {self.embedder_name!r}, but the configured "
                f"embedder is {embedder_name!r}. Run `recall reindex` to rebuild it with "
                f"{embedder_name!r}, or set RECALL_EMBEDDER={self.embedder_name} to keep it.")

    @property
    def vectors(self) -> VectorIndex:
        """The vector side, opened on first use: a keyword search never loads Lance."""
        if self._vectors is None:
            from indexer.stores.remote_tables import RemoteTables
            from indexer.stores.vector import VectorIndex

            self._vectors = VectorIndex(self.path / "vectors", self.dim,
                                        remote=RemoteTables.of(self.path))
        return self._vectors

    def refresh(self) -> None:
        self.keyword.refresh()
        if self._vectors is not None:
            self._vectors.refresh()

    # Writers touch a stamp after every change, so readers reopen only when something changed
    # (reloading both indexes on every query cost more than the keyword search itself).
    def mark_changed(self) -> None:
        atomic_write(self.path / "stamp", str(time.time_ns()).encode())

    def stamp(self) -> int:
        try:
            return (self.path / "stamp").stat().st_mtime_ns
        except FileNotFoundError:
            return 0

    def close(self) -> None:
        self.keyword.close()
