"""How often recovery picks the expected snapshot on the bilingual benchmark's recovery cases.

    python benchmarks/recovery.py --bench ../shared/bench [--embedder e5|minilm|hash|none]
                                  [--model-cache /tmp/e5home/models] [--reasons]

Loads bench/bilingual/snapshots/<sessionId>/*.json and recovery_cases.jsonl, runs
`search.recovery.recover` on each case's session with its current_context, and prints per case
the expected and chosen snapshot, the strategy and the confidence; then the hit rate, next to
two baselines: recover without the context, and always taking the newest snapshot. `now` is the
session's newest snapshot time (resuming right after the last capture), so strategies do not
depend on the day the benchmark runs. `--embedder none` measures the word-overlap fallback.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api import RecallService, Settings
from indexer import load_embedder
from models.snapshot import Snapshot, parse_snapshot, to_datetime
from search.recovery.choose import recover


def load_snapshots(folder: Path) -> dict[str, list[Snapshot]]:
    by_session: dict[str, list[Snapshot]] = defaultdict(list)
    for path in sorted(folder.rglob("*.json")):
        snapshot = parse_snapshot(json.loads(path.read_text(encoding="utf-8")))
        by_session[snapshot.session_id].append(snapshot)
    return by_session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True, help="the shared bench folder")
    parser.add_argument("--embedder", default="e5",
                        help="e5, minilm, hash, a model path, or none (word overlap)")
    parser.add_argument("--model-cache", type=Path, default=None,
                        help="where the converted e5 model is kept (default: RECALL_MODEL_CACHE "
                             "or <home>/models)")
    parser.add_argument("--reasons", action="store_true", help="print each decision's reasons")
    parser.add_argument("--service", type=Path, metavar="HOME",
                        help="also ingest the snapshots into HOME and decide through the service")
    args = parser.parse_args()

    folder = args.bench / "bilingual"
    sessions = load_snapshots(folder / "snapshots")
    cases = [json.loads(line) for line in
             (folder / "recovery_cases.jsonl").read_text(encoding="utf-8").splitlines() if line]
    cache = Settings.from_env(model_cache=args.model_cache).model_cache
    embedder = None if args.embedder == "none" else load_embedder(args.embedder, cache)

    service = None
    if args.service and embedder is not None:
        service = RecallService(Settings.from_env(home=str(args.service), model_cache=cache),
                                embedder=embedder)
        report = service.index([folder / "snapshots"])
        print(f"service: {report.snapshots} snapshot files ingested into {args.service}")
    hits = {"recover": 0, "no context": 0, "newest": 0} | ({"service": 0} if service else {})
    latencies: list[float] = []
    started = time.perf_counter()
    print(f"embedder: {embedder.name if embedder else 'none (word overlap)'}\n")
    print(f"{'case':<8}{'expected':<13}{'chosen':<13}{'ok':<4}{'strategy':<17}{'conf':>6}"
          f"{'no ctx':>13}{'newest':>13}")
    for case in cases:
        snapshots = sessions[case["sessionId"]]
        now = max(to_datetime(s.created_at) for s in snapshots)
        began = time.perf_counter()
        decision = recover(snapshots, case["current_context"], embedder=embedder, now=now)
        latencies.append((time.perf_counter() - began) * 1000)
        blind = recover(snapshots, None, embedder=embedder, now=now)
        newest = max(snapshots, key=lambda s: to_datetime(s.created_at))
        expected = case["best_snapshot"]
        ok = decision.selected.id == expected
        hits["recover"] += ok
        hits["no context"] += blind.selected.id == expected
        hits["newest"] += newest.id == expected
        if service:
            wired = service.snapshots.recover(case["sessionId"], case["current_context"])
            hits["service"] += wired.selected.id == expected
        print(f"{case['case']:<8}{expected:<13}{decision.selected.id:<13}{'✓' if ok else '✗':<4}"
              f"{decision.strategy:<17}{decision.confidence:>6.2f}{blind.selected.id:>13}"
              f"{newest.id:>13}")
        if args.reasons:
            for reason in decision.reasons:
                print(f"        - {reason}")
            for alt in decision.alternatives:
                print(f"        · {alt.snapshot_id} {alt.score:.3f} {alt.reason}")
    n = len(cases)
    print()
    for name, value in hits.items():
        print(f"{name:<12}{value}/{n} = {value / n:.0%}")
    print(f"\nrecover with context: median {statistics.median(latencies):.0f} ms, "
          f"max {max(latencies):.0f} ms (the first call embeds the background lines); "
          f"{time.perf_counter() - started:.1f} s in all")


if __name__ == "__main__":
    main()
