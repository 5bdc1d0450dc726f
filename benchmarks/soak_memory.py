"""The memory side of benchmarks/soak.py: the server's memory from /proc, per window and as a
slope after the warm-up, and the Python allocation sites its tracemalloc hook reported."""

from __future__ import annotations

import argparse
import json
import statistics
import tracemalloc
from pathlib import Path

__all__ = ["growth", "memory_rows", "print_memory", "proc_memory", "read_trace_folder", "slopes",
           "trace_path"]

# /proc/PID/status fields sampled: kB, except Threads
FIELDS = {"VmRSS": "rss", "RssAnon": "anon", "RssFile": "file", "Threads": "threads"}


def proc_memory(pid: int) -> dict[str, float]:
    """The process's RSS, anonymous and file-backed memory (MB) and its thread count."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in FIELDS:
            number = int(value.split()[0])
            out[FIELDS[name]] = number if name == "Threads" else number / 1024
    return out


def trace_path(args: argparse.Namespace) -> Path:
    """The folder the server's tracemalloc hook writes to."""
    return (args.out.with_suffix(".tracemalloc") if args.out
            else args.home.parent / f"{args.home.name}.tracemalloc")


def memory_rows(samples: list[tuple[float, dict[str, float]]], start: float, end: float) -> dict:
    """Mean and max of each sampled figure in [start, end)."""
    inside = [sample for at, sample in samples if start <= at < end]
    row: dict[str, float | None] = {}
    for key in ("rss", "anon", "file", "threads"):
        values = [sample[key] for sample in inside if key in sample]
        row[f"{key}_mean"] = round(statistics.mean(values)) if values else None
        row[f"{key}_max"] = round(max(values)) if values else None
    return row


def slopes(samples: list[tuple[float, dict[str, float]]], after_s: float,
           window_s: float) -> dict[str, float | None]:
    """Least-squares slope of RSS and of anonymous memory, MB per window, after the warm-up."""
    warm = [(at, sample) for at, sample in samples if at >= after_s]
    out: dict[str, float | None] = {}
    for key in ("rss", "anon"):
        points = [(at, sample[key]) for at, sample in warm if key in sample]
        out[key] = None
        if len(points) > 2:
            fit = statistics.linear_regression([at for at, _ in points], [mb for _, mb in points])
            out[key] = round(fit.slope * window_s, 1)
    return out


def print_memory(report: dict) -> None:
    memory = report.get("memory")
    if not memory:
        return
    print(f"\nserver memory per window (MB; threads), after a {memory['warmup_min']:.0f} min warm-up: "
          f"RSS slope {memory['slope_rss_mb_per_10min']} and anonymous {memory['slope_anon_mb_per_10min']} "
          "MB per 10 min")
    print("| minutes | RSS mean / max | anonymous mean / max | file-backed mean | threads max |")
    print("|---|---|---|---|---|")
    for row in memory["windows"]:
        print(f"| {row['minutes']} | {row['rss_mean']} / {row['rss_max']} | {row['anon_mean']} / "
              f"{row['anon_max']} | {row['file_mean']} | {row['threads_max']} |")
    traces = report.get("tracemalloc")
    if not traces:
        return
    for line in traces["dumps"]:
        malloc = line.get("malloc") or {}
        arrow = line.get("arrow") or {}
        print(f"at {line['at_s'] / 60:.0f} min: Python heap traced {mb(line['traced_bytes'])} MB; "
              f"malloc {malloc.get('arenas')} arenas, {mb(malloc.get('system_bytes'))} MB from the "
              f"system, {mb(malloc.get('free_bytes'))} MB of it free; Arrow's pool "
              f"({arrow.get('backend', '?')}) {mb(arrow.get('bytes'))} MB")
    if traces["top_growing"]:
        print(f"Python allocation sites that grew most from {traces['from_s'] / 60:.0f} to "
              f"{traces['to_s'] / 60:.0f} min (traced {traces['traced_mb_first']} -> "
              f"{traces['traced_mb_last']} MB):")
        for site in traces["top_growing"][:10]:
            print(f"  +{site['size_diff_kb']:.0f} KB ({site['count_diff']:+d} blocks) "
                  f"{' <- '.join(reversed(site['traceback'][-3:]))}")


def mb(value: int | None) -> str:
    return "?" if value is None else f"{value / 2**20:.0f}"


def read_trace_folder(folder: Path) -> dict:
    """What the server's tracemalloc hook (api/http/memory_trace.py) left in folder: the malloc
    figures of each dump, and the sites that grew most from the first snapshot to the last."""
    malloc_lines = folder / "malloc.jsonl"
    dumps = [json.loads(line) for line in malloc_lines.read_text().splitlines()
             if line.strip()] if malloc_lines.exists() else []
    snapshots = sorted(folder.glob("snapshot-*.tracemalloc"))
    report: dict = {"dumps": dumps, "top_growing": [], "from_s": None, "to_s": None}
    if len(snapshots) >= 2:
        report |= growth(tracemalloc.Snapshot.load(str(snapshots[0])),
                         tracemalloc.Snapshot.load(str(snapshots[-1])))
        report["from_s"], report["to_s"] = (int(p.stem.split("-")[1]) for p in (snapshots[0], snapshots[-1]))
    return report


def growth(first: tracemalloc.Snapshot, now: tracemalloc.Snapshot, top: int = 25) -> dict:
    """The traced total now and the sites (by their whole traceback) that grew most since first."""
    ignore = [tracemalloc.Filter(False, tracemalloc.__file__)]
    first, now = first.filter_traces(ignore), now.filter_traces(ignore)
    diffs = sorted(now.compare_to(first, "traceback"), key=lambda d: d.size_diff, reverse=True)
    return {
        "traced_mb_first": round(sum(stat.size for stat in first.statistics("filename")) / 2**20, 1),
        "traced_mb_last": round(sum(stat.size for stat in now.statistics("filename")) / 2**20, 1),
        "top_growing": [{"size_diff_kb": round(d.size_diff / 1024, 1), "count_diff": d.count_diff,
                         "size_kb": round(d.size / 1024, 1),
                         "traceback": [f"{frame.filename}:{frame.lineno}" for frame in d.traceback]}
                        for d in diffs[:top] if d.size_diff > 0],
    }
