"""Whether two data directories hold the same index: the check that a Ray run wrote what the
single-process path writes (same sessions, keyword documents, memories, and vectors within a
float tolerance: workers may add floats in another order).

    python -m indexer.distributed.parity HOME_A HOME_B
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from indexer.stores.generation import Generation
from indexer.stores.layout import DataDir
from indexer.stores.memories import MemoryStore
from indexer.stores.state import State

__all__ = ["differences"]

VECTOR_TOLERANCE = 1e-4  # cosine of unit vectors; ONNX threads may sum in another order
_VECTOR_COLUMNS = ("passage_id", "key", "session_id", "message_id", "role", "channel",
                   "participants", "day", "vector")


def differences(a: DataDir, b: DataDir, tolerance: float = VECTOR_TOLERANCE) -> list[str]:
    """What differs between the live indexes of a and b (empty: the same)."""
    found = []
    sessions_a, sessions_b = _sessions(a), _sessions(b)
    if sessions_a != sessions_b:
        found.append(f"sessions differ: {len(sessions_a)} vs {len(sessions_b)}, "
                     f"{len(set(sessions_a.items()) ^ set(sessions_b.items()))} rows unlike")
    for sid in sorted(sessions_a.keys() & sessions_b.keys()):
        if MemoryStore(a).load(sid) != MemoryStore(b).load(sid):
            found.append(f"memories of session {sid} differ")
    with _live(a) as gen_a, _live(b) as gen_b:
        for name in ("messages", "memories"):
            docs_a, docs_b = _documents(gen_a, name), _documents(gen_b, name)
            if docs_a != docs_b:
                found.append(f"keyword {name} documents differ: {len(docs_a)} vs {len(docs_b)}")
        found += _vector_differences(gen_a, gen_b, tolerance)
    return found


def _sessions(data: DataDir) -> dict[str, tuple[str, str]]:
    state = State(data.state_db)
    try:
        return {r.session_id: (r.content_hash, r.status) for r in state.sessions()}
    finally:
        state.close()


@contextmanager
def _live(data: DataDir) -> Iterator[Generation]:
    name = data.current_generation()
    if name is None:
        raise ValueError(f"{data.root} has no index")
    gen = Generation.open(data.generation(name))
    try:
        yield gen
    finally:
        gen.close()


def _documents(gen: Generation, shard: str) -> list[tuple]:
    index = gen.keyword.messages if shard == "messages" else gen.keyword.memories
    return sorted(tuple(sorted((k, tuple(v)) for k, v in doc.to_dict().items()))
                  for doc in index.every_document())


def _vector_differences(a: Generation, b: Generation, tolerance: float) -> list[str]:
    rows_a, rows_b = _vectors(a), _vectors(b)
    if rows_a.keys() != rows_b.keys():
        return [f"vector passages differ: {len(rows_a)} vs {len(rows_b)}"]
    unlike = [pid for pid in rows_a if rows_a[pid][0] != rows_b[pid][0]]
    far = [pid for pid in rows_a
           if float(np.max(np.abs(rows_a[pid][1] - rows_b[pid][1]))) > tolerance]
    found = []
    if unlike:
        found.append(f"{len(unlike)} vector passages differ in their columns, e.g. {unlike[0]}")
    if far:
        found.append(f"{len(far)} vectors differ by more than {tolerance}, e.g. {far[0]}")
    return found


def _vectors(gen: Generation) -> dict[str, tuple[tuple, np.ndarray]]:
    out = {}
    for table in gen.vectors.rows(_VECTOR_COLUMNS):
        columns = table.to_pydict()
        for n, pid in enumerate(columns["passage_id"]):
            meta = tuple(columns[c][n] for c in _VECTOR_COLUMNS[1:-1])
            out[pid] = (meta, np.asarray(columns["vector"][n], dtype=np.float32))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    problems = differences(DataDir(Path(sys.argv[1])), DataDir(Path(sys.argv[2])))
    print("\n".join(problems) or "the same")
    sys.exit(1 if problems else 0)
