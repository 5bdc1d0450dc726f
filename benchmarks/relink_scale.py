"""The relink at the end of an import, alone, on an indexed data directory: every supersession
link computed from all statements (FactStore.compute_links, what an import's last step runs
outside the writer lock), its time, CPU and peak RSS, and a digest of the links it found.

    python benchmarks/relink_scale.py --home /tmp/recall-100k/home-100000-hash-384 \\
        [--before /tmp/relink-before] [--json docs/performance/relink-100k.json]

Each side runs in a process of its own (its own peak RSS), reading the data directory only:
this checkout, and with --before another one (e.g. `git archive` of an older commit) on the same
statements, after this one. The same digest on both sides means the same links, confidences and
reasons.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def child(home: Path) -> dict[str, Any]:
    sys.path.insert(0, str(Path.cwd()))
    import indexer
    from indexer.stores.facts import FactStore
    from indexer.stores.layout import DataDir

    with FactStore(DataDir(home)) as facts:
        statements = facts._db.execute("SELECT count(*) FROM statements").fetchone()[0]
        wall, cpu = time.perf_counter(), time.process_time()
        _, links = facts.compute_links()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    digest = hashlib.sha256()
    for link in sorted(links, key=lambda x: x.earlier):
        digest.update(f"{link.later}\t{link.earlier}\t{link.confidence!r}\t{link.reason}\n".encode())
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"statements": statements, "links": len(links), "digest": digest.hexdigest()[:16],
            "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "peak_rss_mb": round(peak_mb),
            "code": str(Path(indexer.__file__).parents[1])}


def side(root: Path, home: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child",
                           "--home", str(home)], cwd=root, stdout=subprocess.PIPE, text=True,
                          check=False)
    if done.returncode:
        raise SystemExit(f"the relink in {root} failed (exit {done.returncode})")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["root"] = str(root)
    print(json.dumps(result), flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="an indexed data directory")
    parser.add_argument("--before", type=Path, help="another checkout to run the same way")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.home)))
        return
    rows = {"after": side(ROOT, args.home)}
    if args.before:
        rows["before"] = side(args.before, args.home)
        same = rows["before"]["digest"] == rows["after"]["digest"]
        print(f"same links: {same}; wall {rows['before']['wall_s']} -> {rows['after']['wall_s']} s, "
              f"peak RSS {rows['before']['peak_rss_mb']} -> {rows['after']['peak_rss_mb']} MB")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
