"""The ledger of the real transcript corpus (tests/data/real): per format, the samples, records
read, imported, merged and left out by reason, and the sessions and messages recall imports
beside the counts made by hand (each manifest's `hand_count`), with the named reason of each
difference (its `recall` entry: the left-out reasons or merges it expects) (docs/import.md).

    python benchmarks/corpus_ledger.py [--markdown]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from indexer.formats.common import FORMAT_NAMES, ImportOptions
from indexer.formats.ledger import Ledger
from indexer.formats.sources import load_database, load_file, normalize

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "data" / "real"


def ledger_of(fmt: str) -> dict[str, Any]:
    manifest = json.loads((REAL / fmt / "MANIFEST.json").read_text("utf-8"))
    totals: Counter[str] = Counter()
    left_out: Counter[str] = Counter()
    parts: Counter[str] = Counter()
    by_hand: Counter[str] = Counter()
    differs: Counter[str] = Counter()  # messages recall reads apart from the hand count, by why
    for sample in manifest["samples"]:
        path = REAL / fmt / sample["file"]
        ledger = Ledger()
        options = ImportOptions(format=fmt, deleted=True)
        data = path.read_bytes()
        raws: list[Any] = (load_database(path, options, ledger) if data.startswith(b"SQLite")
                           else load_file(path, data, 50_000_000, options, ledger))
        sessions = [normalize(raw.record, raw.fallback_id)[0] for raw in raws]
        t = ledger.totals()
        totals.update(samples=1, records=t.records, imported=t.imported, merged=t.merged,
                      sessions=len(sessions), messages=sum(len(s.messages) for s in sessions))
        left_out.update(t.left_out)
        parts.update(t.parts_left_out)
        hand, recall = sample["hand_count"], sample.get("recall", {})
        by_hand.update(sessions=hand["sessions"], messages=hand["messages"])
        fewer = hand["messages"] - recall.get("messages", hand["messages"])
        if fewer:
            why = [f"{r} left out" for r in recall.get("left_out_reasons", [])] + \
                  [f"{r} merged" for r in recall.get("merged", {})]
            differs[", ".join(why) or "no named reason"] += fewer
    return {"format": fmt, **totals, "left_out": dict(left_out.most_common()),
            "parts_left_out": dict(parts.most_common()), "by_hand": dict(by_hand),
            "differs": dict(differs.most_common()),
            "missing": manifest.get("missing", "") if len(manifest["samples"]) < 2 else ""}


def markdown(rows: list[dict[str, Any]]) -> str:
    out = ["| format | samples | records | imported | merged | left out, by reason | sessions (by hand) | messages (by hand) |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        reasons = "; ".join(f"{n} {reason}" for reason, n in r["left_out"].items()) or "-"
        why = "".join(f"; {n} fewer: {reason}" for reason, n in r["differs"].items())
        out.append(f"| {r['format']} | {r.get('samples', 0)} | {r.get('records', 0)} | "
                   f"{r.get('imported', 0)} | {r.get('merged', 0)} | {reasons} | "
                   f"{r.get('sessions', 0)} ({r['by_hand'].get('sessions', 0)}) | "
                   f"{r.get('messages', 0)} ({r['by_hand'].get('messages', 0)}{why}) |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="a Markdown table")
    args = parser.parse_args()
    rows = [ledger_of(fmt) for fmt in FORMAT_NAMES]
    print(markdown(rows) if args.markdown else json.dumps(rows, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
