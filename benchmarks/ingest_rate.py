"""Ingest speed over one long run: messages/s per segment as the archive grows, and peak RSS.

    python benchmarks/ingest_rate.py --sessions 100000 --embedder hash --work /tmp/recall-100k
    python benchmarks/ingest_rate.py --sessions 10000 --root /tmp/wt-before   # another checkout
    python benchmarks/ingest_rate.py --sessions 10000 --profile /tmp/ingest.prof  # cProfile

Generates the synthetic archive (scripts/generate_archive.py, seed 7: a 1k archive is the first
1k sessions of a 10k one) under --work, kept between runs, and ingests it into a fresh data
directory (`recall index` of the archive folder, through Ingestor.index_paths) in a child process
that reports as it goes: after every `--segment` sessions written, the messages/s of that
segment and the process's RSS. A rate that falls from segment to segment is a cost per message
that grows with the archive. The run's last step (the vector tables optimized, statements
relinked, under the writer lock) is timed apart. The data directory is left in place
(<work>/home-<sessions>-<embedder>). `--root` runs the ingest from another checkout (the same
venv), to measure the code before a change in the same way.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _rss_mb() -> tuple[float, float]:
    """(current, peak) RSS of this process in MB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    current = 0.0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            current = int(line.split()[1]) / 1024
    return round(current, 1), round(peak, 1)


def _cpu_s() -> float:
    """User and system CPU of this process, all its threads (Tantivy's and Lance's too)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(args: argparse.Namespace) -> dict[str, Any]:
    """The ingest, in its own process (its peak RSS is the ingest's), from args.root."""
    sys.path.insert(0, str(args.root))
    from api.http.allocator import limit_arenas

    limit_arenas()  # first, as every `recall` command does (api/cli/main.py)
    from indexer.embedding.embedders import load_embedder
    from indexer.ingest import write
    from indexer.ingest.ingestor import Ingestor
    from indexer.stores.layout import DataDir

    segments: list[dict[str, Any]] = []
    # CPU seconds too: on a shared machine the wall rate says as much about the neighbours
    mark = {"t": time.perf_counter(), "cpu": _cpu_s(), "sessions": 0, "messages": 0}
    inner_flush = write.BatchWriter.flush

    def counting_flush(self: Any, batch: Any, state: Any, gen: Any, report: Any,
                       *rest: Any, **kw: Any) -> None:
        inner_flush(self, batch, state, gen, report, *rest, **kw)
        if report.indexed - mark["sessions"] >= args.segment:
            now, cpu = time.perf_counter(), _cpu_s()
            messages = report.messages - mark["messages"]
            current, peak = _rss_mb()
            segment = {"sessions": report.indexed, "messages": report.messages,
                       "segment_messages": messages, "seconds": round(now - mark["t"], 2),
                       "messages_per_s": round(messages / (now - mark["t"]), 1),
                       "messages_per_cpu_s": round(messages / max(cpu - mark["cpu"], 1e-9), 1),
                       "rss_mb": current, "peak_rss_mb": peak}
            segments.append(segment)
            print(json.dumps(segment), file=sys.stderr, flush=True)
            mark.update(t=now, cpu=cpu, sessions=report.indexed, messages=report.messages)

    write.BatchWriter.flush = counting_flush  # type: ignore[method-assign]
    ingestor = Ingestor(DataDir(args.home), load_embedder(args.embedder))
    started = time.perf_counter()
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        report = profiler.runcall(ingestor.index_paths, [args.archive])
        profiler.dump_stats(args.profile)
    else:
        report = ingestor.index_paths([args.archive])
    seconds = time.perf_counter() - started
    current, peak = _rss_mb()
    return {"sessions": report.indexed, "messages": report.messages,
            "seconds": round(seconds, 1), "messages_per_s": round(report.messages / seconds, 1),
            "last_step_s": round(time.perf_counter() - mark["t"], 1) if segments else None,
            "last_step_cpu_s": round(_cpu_s() - mark["cpu"], 1) if segments else None,
            "segments": segments, "rss_mb": current, "peak_rss_mb": peak}


def run(args: argparse.Namespace) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "scripts"))
    import generate_archive

    args.work.mkdir(parents=True, exist_ok=True)
    archive = args.work / f"archive-{args.sessions}"
    if not (archive / ".complete").exists():
        shutil.rmtree(archive, ignore_errors=True)
        messages = sum(n for _, n in generate_archive.generate(archive, args.sessions))
        (archive / ".complete").write_text(str(messages))
    home = args.work / f"home-{args.sessions}-{args.embedder}"
    shutil.rmtree(home, ignore_errors=True)
    command = [sys.executable, __file__, "--child", "--root", str(args.root),
               "--home", str(home), "--archive", str(archive), "--embedder", args.embedder,
               "--segment", str(args.segment)]
    if args.profile:
        command += ["--profile", str(args.profile)]
    done = subprocess.run(command, cwd=args.root, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"the ingest failed (exit {done.returncode})")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=args.root,
                              capture_output=True, text=True, check=False).stdout.strip()
    result.update(root=str(args.root), commit=revision, embedder=args.embedder,
                  home=str(home))
    return result


def print_table(r: dict[str, Any]) -> None:
    print(f"\n{r['sessions']} sessions, {r['messages']} messages, embedder {r['embedder']}, "
          f"commit {r['commit']}: {r['seconds']} s, {r['messages_per_s']} messages/s overall, "
          f"last step {r['last_step_s']} s, peak RSS {r['peak_rss_mb']:.0f} MB")
    print(f"{'sessions':>10}{'messages/s':>12}{'per CPU-s':>12}{'RSS MB':>10}")
    for s in r["segments"]:
        print(f"{s['sessions']:>10}{s['messages_per_s']:>12}{s['messages_per_cpu_s']:>12}"
              f"{s['rss_mb']:>10.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--work", type=Path, default=Path("/tmp/recall-ingest-rate"))
    parser.add_argument("--segment", type=int, default=1000,
                        help="sessions per reported segment")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to ingest with")
    parser.add_argument("--profile", type=Path, help="write the ingest's cProfile stats here")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--archive", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args)))
        return
    result = run(args)
    print_table(result)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
