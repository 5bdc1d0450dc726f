"""Import speed per transcript format, and what the readers leave out of the sample fixtures.

    python benchmarks/import_speed.py [--messages 10000] [--formats a,b,c] [--json]

For each format (every one `recall import` takes) it generates a transcript set of about
--messages messages in a temporary folder (seeded, so every run reads the same text; the
generators are in transcript_generators.py, transcript_generators_ide.py and, for the formats
added later, transcript_generators_cli.py and transcript_generators_db.py, which also say how
many messages each file holds: the reader must find exactly those), picks the files as `recall
import` does (importer.candidate_files), then times
  read     the format reader alone: sources.load_file on bytes already in memory (decode, JSON,
           branch choice, tool clipping), or, for a SQLite database (Cursor, opencode, Zed,
           goose, Crush, Warp, Windsurf), which is read in place and never as bytes,
           sources.load_database on its path (so its read includes SQLite's own page reads,
           from the OS cache right after writing)
  parse    read + redaction + normalization into a Session (what an import does before writing)
  ingest   a whole `recall import` into an empty data dir with the hash embedder: archive, memory
           extraction, Tantivy and LanceDB, but no model (embedding speed is measured elsewhere)
and prints messages per second. Then, on tests/data/formats, the share of units (lines, rows,
records: see skip_shares.py) each skip reason accounts for, for the formats whose units
skip_shares.py counts (the first ten).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import (
    transcript_generators,
    transcript_generators_cli,
    transcript_generators_db,
    transcript_generators_ide,
)
from benchmarks.skip_shares import UNITS, skipped_shares
from benchmarks.transcript_generators import MESSAGES_PER_SESSION
from indexer import DataDir, HashEmbedder
from indexer.formats import FORMAT_NAMES, ImportOptions, database
from indexer.formats.importer import candidate_files
from indexer.formats.sources import RawSession, RawSnapshot, load_database, load_file, normalize
from indexer.ingest.ingestor import Ingestor

FIXTURES = ROOT / "tests" / "data" / "formats"
GENERATORS = {**transcript_generators.GENERATORS, **transcript_generators_ide.GENERATORS,
              **transcript_generators_cli.GENERATORS, **transcript_generators_db.GENERATORS}
assert set(GENERATORS) == set(FORMAT_NAMES), "a format without a generator"
NO_LIMIT = 10**9


def measure(fmt: str, folder: Path, sessions: int) -> dict[str, Any]:
    expected = GENERATORS[fmt](folder / "input", sessions, random.Random(8))
    files = candidate_files(fmt, [folder / "input"])
    options = ImportOptions(format=fmt)
    databases = [p for p in files if database.is_database(p)]
    blobs = [(p, p.read_bytes()) for p in files if p not in databases]
    started = time.perf_counter()
    read_files: list[tuple[Path, list[RawSession | RawSnapshot]]] = [
        (path, list(load_file(path, data, NO_LIMIT, options))) for path, data in blobs]
    read_files += [(path, list(load_database(path, options))) for path in databases]
    read = time.perf_counter() - started
    started = time.perf_counter()
    per_file = {path: sum(len(normalize(r.record, r.fallback_id)[0].messages)
                          for r in raws if isinstance(r, RawSession)) for path, raws in read_files}
    parse = read + time.perf_counter() - started
    if expected is not None:  # every generated file read whole, and nothing else picked
        assert per_file == expected, (fmt, per_file, expected)
    raws = [raw for _, file_raws in read_files for raw in file_raws]
    messages = sum(per_file.values())
    ingestor = Ingestor(DataDir(folder / "home"), HashEmbedder(), import_options=options)
    report = ingestor.index_paths(files)
    assert report.indexed == len(raws) and not report.rejected, report
    return {"format": fmt, "files": len(files), "databases": len(databases),
            "sessions": len(raws), "messages": messages,
            "megabytes": round(sum(p.stat().st_size for p in files) / 1e6, 1),
            "read_s": round(read, 2), "parse_s": round(parse, 2),
            "ingest_s": round(report.seconds, 2),
            "read_msgs_per_s": round(messages / read), "parse_msgs_per_s": round(messages / parse),
            "ingest_msgs_per_s": round(messages / report.seconds)}


def formats_wanted(value: str | None) -> tuple[str, ...]:
    if not value:
        return FORMAT_NAMES
    wanted = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    unknown = [f for f in wanted if f not in GENERATORS]
    if unknown:
        raise SystemExit(f"unknown format {', '.join(unknown)}: "
                         f"choose from {', '.join(FORMAT_NAMES)}")
    return wanted


def print_table(results: list[dict[str, Any]], shares: list[dict[str, Any]]) -> None:
    print("| format | sessions | messages | input | read msg/s | parse msg/s | "
          "ingest msg/s (hash) |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        kind = "SQLite database" if r["databases"] else "file"
        where = f"{r['files']} {kind}{'s' if r['files'] != 1 else ''}"
        print(f"| {r['format']} | {r['sessions']} | {r['messages']:,} | "
              f"{r['megabytes']} MB, {where} | "
              f"{r['read_msgs_per_s']:,} | {r['parse_msgs_per_s']:,} | {r['ingest_msgs_per_s']:,} "
              f"({r['ingest_s']} s) |")
    print()
    for s in shares:
        parts = ", ".join(f"{reason} {v['count']} ({v['share']:.1%})"
                          for reason, v in s["skipped"].items())
        rejected = "; ".join(f"{r['file']}: {r['reason']}" for r in s["rejected"])
        print(f"{s['format']}: {s['units']} {s['unit']} in {s['files']} files; skipped: "
              f"{parts or 'nothing'}" + (f"; rejected: {rejected}" if rejected else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--formats", help="comma-separated formats to run (default: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    formats = formats_wanted(args.formats)
    sessions = max(1, args.messages // MESSAGES_PER_SESSION)
    with tempfile.TemporaryDirectory() as tmp:  # the first import loads Tantivy and LanceDB
        measure(formats[0], Path(tmp), 1)  # (~2.5 s), no format's cost: pay it untimed
    results = []
    for fmt in formats:
        with tempfile.TemporaryDirectory() as tmp:
            results.append(measure(fmt, Path(tmp), sessions))
        if not args.json:
            print(f"{fmt}: done", file=sys.stderr)
    shares = skipped_shares(FIXTURES, tuple(f for f in formats if f in UNITS))
    if args.json:
        print(json.dumps({"speed": results, "skipped": shares}, ensure_ascii=False, indent=1))
    else:
        print_table(results, shares)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
