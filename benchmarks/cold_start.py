"""What a person or an agent waits for: each `recall` command run N times as a separate process,
wall time and peak RSS (min / median / max), on a data directory indexed with the default model.

    python benchmarks/cold_start.py --home /tmp/recall-cold [--runs 3] [--json out.json]

The home is indexed from examples/ first when it holds nothing (with the settings' embedder,
e5 by default). `--server` also measures the CLI with `recall serve` running on the same home.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RECALL = [sys.executable, "-m", "api.cli"]

COMMANDS: dict[str, list[str]] = {
    "help": ["--help"],
    "stats": ["stats"],
    "search keyword": ["search", "最后决定用什么数据库", "--mode", "keyword"],
    "search hybrid": ["search", "最后决定用什么数据库"],
    "search vector": ["search", "vacation planning in Japan", "--mode", "vector"],
}


def run_once(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one process; a failing command stops the benchmark."""
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen([*RECALL, *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # the child's own peak RSS, not ours
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait again
        if proc.returncode not in (0, 1):  # 1: a search with no match is still a run
            err.seek(0)
            raise SystemExit(f"recall {' '.join(args)} failed: {err.read().decode()[-500:]}")
    return wall, usage.ru_maxrss


def measure(name: str, args: list[str], env: dict[str, str], runs: int) -> dict[str, Any]:
    walls, rss = zip(*(run_once(args, env) for _ in range(runs)), strict=True)
    row = {"command": name, "args": args, "runs": runs,
           "wall_s": {"min": round(min(walls), 3), "median": round(statistics.median(walls), 3),
                      "max": round(max(walls), 3)},
           "rss_mb": {"min": round(min(rss) / 1024), "median": round(statistics.median(rss) / 1024),
                      "max": round(max(rss) / 1024)}}
    print(f"{name:<24} wall {row['wall_s']['median']:6.3f} s (min {row['wall_s']['min']:.3f}, "
          f"max {row['wall_s']['max']:.3f})  peak RSS {row['rss_mb']['median']:5d} MB", flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True, help="data directory to use")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--embedder", help="RECALL_EMBEDDER (default: the settings' default, e5)")
    parser.add_argument("--only", nargs="*", help="only these commands (names above)")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    env = {**os.environ, "RECALL_HOME": str(args.home)}
    if args.embedder:
        env["RECALL_EMBEDDER"] = args.embedder
    if not (args.home / "state.sqlite3").exists():
        print(f"indexing examples/ into {args.home} ...", flush=True)
        subprocess.run([*RECALL, "index", "examples"], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    run_once(["search", "warm the page cache"], env)  # the first run reads the files from disk
    load = os.getloadavg()[0]
    rows = [measure(name, cmd, env, args.runs) for name, cmd in COMMANDS.items()
            if not args.only or name in args.only]
    result = {"home": str(args.home), "load_average_at_start": round(load, 2),
              "cpus": os.cpu_count(), "rows": rows,
              "max_rss_self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
