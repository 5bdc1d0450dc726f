"""One vector table with prefilters against one table per kind and language, same rows.

Until schema 3 every passage lived in one LanceDB table, and every search carried the
prefilter `role NOT IN (memory roles) AND lang = …`. This copies the rows of such a table
(a schema-2 index, e.g. from an older `benchmarks/scale.py` run) into one table per kind and
language, builds the same ANN index (indexer/stores/vector.py) on each, and times the same query vectors both
ways in one process:

    python benchmarks/vector_layout.py /tmp/recall-scale/home-10000-hash/index/gen-initial/vectors \
        --work /tmp/vector-layout --queries 100
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

import lancedb
import numpy as np
import pyarrow.compute as pc
from lancedb.index import Bitmap, BTree

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexer.stores.vector_ann import NPROBES, ann_config
from models import MEMORY_TYPES

MEMORY_ROLES = ", ".join(f"'memory:{t}'" for t in MEMORY_TYPES)


def split(old, work: Path) -> dict[str, object]:
    shutil.rmtree(work, ignore_errors=True)
    db = lancedb.connect(str(work))
    data = old.to_arrow()
    memory = pc.starts_with(data["role"], "memory:")
    tables = {}
    for kind, mask in (("messages", pc.invert(memory)), ("memories", memory)):
        for lang in ("cjk", "other"):
            part = data.filter(pc.and_(mask, pc.equal(data["lang"], lang))).drop_columns(["lang"])
            table = db.create_table(f"{kind}_{lang}", part)
            if len(part) >= 10_000:
                for column, config in (("role", Bitmap()), ("channel", Bitmap()), ("day", BTree())):
                    table.create_index(column, config=config)
                dim = part.schema.field("vector").type.list_size
                table.create_index("vector", config=ann_config(len(part), dim))
            tables[f"{kind}_{lang}"] = table
    return tables


def _time(search, vectors) -> float:
    times = []
    for vector in vectors:
        started = time.perf_counter()
        search(vector)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("vectors", type=Path, help="a schema-2 index's vectors folder")
    parser.add_argument("--work", type=Path, default=Path("/tmp/vector-layout"))
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    old = lancedb.connect(str(args.vectors)).open_table("passages")
    started = time.perf_counter()
    tables = split(old, args.work)
    print(f"{old.count_rows()} rows split into {len(tables)} tables in "
          f"{time.perf_counter() - started:.0f} s: "
          + ", ".join(f"{name} {t.count_rows()}" for name, t in tables.items()))
    rng = np.random.default_rng(3)
    sample = old.search().select(["vector"]).limit(5000).to_arrow()["vector"].to_numpy(
        zero_copy_only=False)
    vectors = [np.asarray(sample[i], dtype=np.float32) for i in rng.choice(len(sample), args.queries)]

    def query(table, vector, where=None):
        q = (table.search(vector, vector_column_name="vector").distance_type("cosine")
             .limit(100).nprobes(NPROBES).refine_factor(1).select(["key", "session_id", "message_id", "_distance"]))
        return (q.where(where, prefilter=True) if where else q).to_arrow()

    print(f"{'search (one language, messages)':<44}{'one table + prefilter':>24}{'split tables':>14}")
    for lang in ("other", "cjk"):
        for label, extra in (("no filter", None), ("channel", "channel = 'slack'"),
                             ("date range", "day >= 20250101 AND day <= 20250331")):
            prefilter = " AND ".join(filter(None, (f"role NOT IN ({MEMORY_ROLES})",
                                                   f"lang = '{lang}'", extra)))
            one = _time(lambda v, where=prefilter: query(old, v, where), vectors)
            two = _time(lambda v, table=tables[f"messages_{lang}"], where=extra: query(table, v, where),
                        vectors)
            print(f"{'lang=' + lang + ', ' + label:<44}{one:>21.2f} ms{two:>11.2f} ms  x{one / two:.1f}")


if __name__ == "__main__":
    main()
