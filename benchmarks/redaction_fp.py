"""False positives of the redactor: how much ordinary text it changes.

    python benchmarks/redaction_fp.py BENCH_DIR [BENCH_DIR ...] [--examples 10] [--json]

Reads every archived session (*.json with a `messages` list) under the folders given, runs the
redactor over each message's text as ingest does, and reports the share of messages changed,
the kinds found, and examples (the words around each marker). On text that holds no secrets
every change is a false positive.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from indexer.text.redact import redact_text

CONTEXT = 40  # characters shown each side of a marker


def archived_sessions(folders: list[Path]) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Each archived session record (*.json with a `messages` list) under the folders, in order;
    files that cannot be read or hold something else are passed over."""
    for folder in folders:
        for path in sorted(folder.rglob("*.json")):
            try:
                record = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(record, dict) and isinstance(record.get("messages"), list):
                yield path, record


def measure(folders: list[Path], examples: int) -> dict[str, Any]:
    started = time.monotonic()
    files = messages = changed = characters = 0
    kinds: Counter[str] = Counter()
    shown: list[dict[str, str]] = []
    for path, record in archived_sessions(folders):
        files += 1
        for message in record["messages"]:
            text = message.get("content") if isinstance(message, dict) else None
            if not isinstance(text, str) or not text:
                continue
            messages += 1
            characters += len(text)
            out, counts = redact_text(text)
            if out == text:
                continue
            changed += 1
            kinds.update(counts)
            if len(shown) < examples:
                at = out.index("[REDACTED:")
                shown.append({"session": str(record.get("sessionId", path.stem)),
                              "before": text[max(0, at - CONTEXT): at + 2 * CONTEXT],
                              "after": out[max(0, at - CONTEXT): at + 2 * CONTEXT]})
    return {"files": files, "messages": messages, "characters": characters,
            "messages_changed": changed,
            "share_changed": round(changed / messages, 6) if messages else 0.0,
            "kinds": dict(kinds.most_common()), "examples": shown,
            "seconds": round(time.monotonic() - started, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, metavar="BENCH_DIR")
    parser.add_argument("--examples", type=int, default=10, help="changed messages to show")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    missing = [str(f) for f in args.folders if not f.is_dir()]
    if missing:
        parser.error(f"not a folder: {', '.join(missing)}")
    report = measure(args.folders, args.examples)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
        return 0
    print(f"{report['messages']} messages ({report['characters']:,} characters) in "
          f"{report['files']} sessions, {report['seconds']}s")
    print(f"changed by the redactor: {report['messages_changed']} "
          f"({100 * report['share_changed']:.3f}%)")
    for kind, n in report["kinds"].items():
        print(f"  {kind}: {n}")
    for example in report["examples"]:
        print(f"- {example['session']}: {example['before']!r}\n  -> {example['after']!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
