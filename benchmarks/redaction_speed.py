"""Throughput of the redactor over real messages, optionally against an older commit's rules.

    python benchmarks/redaction_speed.py BENCH_DIR [BENCH_DIR ...] [--against REF] [--repeat 15]

Reads every message of every archived session (*.json with a `messages` list) under the folders
given and times `redact_text` over all of them, as ingest runs it on each message. With
--against, the redactor's modules (indexer/text/redact*.py) at REF are loaded beside the
current ones under another package name, and the two are timed in turn in this one process,
so both see the same machine load. Reports the best and median of the repeats.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.redaction_fp import archived_sessions
from indexer.text.redact import redact_text

Redactor = Callable[[str], tuple[str, Any]]


def messages(folders: list[Path]) -> list[str]:
    return [m["content"] for _, record in archived_sessions(folders) for m in record["messages"]
            if isinstance(m, dict) and isinstance(m.get("content"), str)]


def redactor_at(ref: str, into: Path) -> Redactor:
    """redact_text as the redactor's modules were at ref, imported as package `redact_at_ref`."""
    package = into / "redact_at_ref"
    package.mkdir()
    (package / "__init__.py").write_text("")
    names = subprocess.run(
        ["git", "ls-tree", "--name-only", ref, "indexer/text/"], cwd=ROOT, check=True,
        capture_output=True, text=True).stdout.split()
    for name in names:
        if Path(name).name.startswith("redact") and name.endswith(".py"):
            source = subprocess.run(["git", "show", f"{ref}:{name}"], cwd=ROOT, check=True,
                                    capture_output=True, text=True).stdout
            (package / Path(name).name).write_text(source.replace("indexer.text.", "redact_at_ref."))
    sys.path.insert(0, str(into))
    module = importlib.import_module("redact_at_ref.redact")
    redact: Redactor = module.redact_text
    return redact


def time_once(redact: Redactor, texts: list[str]) -> float:
    started = time.perf_counter()
    for text in texts:
        redact(text)
    return time.perf_counter() - started


def measure(texts: list[str], redactors: dict[str, Redactor], repeat: int) -> dict[str, Any]:
    seconds: dict[str, list[float]] = {name: [] for name in redactors}
    for _ in range(repeat):
        for name, redact in redactors.items():  # in turn, so load drifts hit both alike
            seconds[name].append(time_once(redact, texts))
    characters = sum(map(len, texts))
    report: dict[str, Any] = {"messages": len(texts), "characters": characters}
    for name, runs in seconds.items():
        best = min(runs)
        report[name] = {"best_ms": round(1000 * best, 1),
                        "median_ms": round(1000 * statistics.median(runs), 1),
                        "mb_per_s": round(characters / best / 1e6, 2),
                        "us_per_message": round(1e6 * best / max(1, len(texts)), 1)}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, metavar="BENCH_DIR")
    parser.add_argument("--against", metavar="REF", help="also time the rules at this commit")
    parser.add_argument("--repeat", type=int, default=15, help="timed passes over all messages")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    missing = [str(f) for f in args.folders if not f.is_dir()]
    if missing:
        parser.error(f"not a folder: {', '.join(missing)}")
    texts = messages(args.folders)
    with tempfile.TemporaryDirectory() as tmp:
        redactors: dict[str, Redactor] = {}
        if args.against:
            redactors[args.against] = redactor_at(args.against, Path(tmp))
        redactors["current"] = redact_text
        report = measure(texts, redactors, args.repeat)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{report['messages']} messages, {report['characters']:,} characters, "
          f"best and median of {args.repeat}")
    for name in redactors:
        r = report[name]
        print(f"  {name}: best {r['best_ms']} ms, median {r['median_ms']} ms, "
              f"{r['mb_per_s']} MB/s, {r['us_per_message']} us a message")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
