"""One query embedding on one thread, two builds of the e5 ONNX encoder side by side, in one
process: the questions people ask (LoCoMo and the bilingual set), each embedded by both builds in
turn, many rounds, so that whatever else runs on the machine weighs on both alike.

    python benchmarks/query_encoder_speed.py --bench ../shared/bench \
        --before /tmp/old/multilingual-e5-small-onnx --after MODELS/multilingual-e5-small-onnx \
        [--rounds 20] [--json out.json]

The questions are benchmarks/embedders.py's (the first 25 of each set), so the figures compare
with round 4's 7.9 ms. Per build: p50 / p95 of the wall time and the p50 of the thread's CPU
time (which other processes on the cores do not inflate), and the after / before ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexer.embedding.onnx_encoder import OnnxEncoder


def questions(bench: Path) -> list[str]:
    locomo = [json.loads(line)["question"] for line in (bench / "locomo" / "queries.jsonl").open()]
    bilingual = [json.loads(line)["query"] for line in (bench / "bilingual" / "queries.jsonl").open()]
    return locomo[:25] + bilingual[:25]


def timed(encoder: OnnxEncoder, text: str) -> tuple[float, float]:
    """Wall and thread-CPU milliseconds of one query embedding."""
    wall, cpu = time.perf_counter(), time.thread_time()
    encoder.encode([text], encoder.prompts["query"])
    return (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000


def summary(walls: list[float], cpus: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(walls, n=20)
    return {"wall_p50_ms": round(statistics.median(walls), 2), "wall_p95_ms": round(cuts[18], 2),
            "cpu_p50_ms": round(statistics.median(cpus), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True, help="../shared/bench")
    parser.add_argument("--before", type=Path, required=True, help="an e5 ONNX export folder")
    parser.add_argument("--after", type=Path, required=True, help="another one")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    texts = questions(args.bench)
    encoders = {side: OnnxEncoder(getattr(args, side), threads=1) for side in ("before", "after")}
    for encoder in encoders.values():
        for text in texts[:5]:
            encoder.encode([text], encoder.prompts["query"])
    walls: dict[str, list[float]] = {side: [] for side in encoders}
    cpus: dict[str, list[float]] = {side: [] for side in encoders}
    load_at_start = os.getloadavg()[0]
    for round_ in range(args.rounds):
        order = ["before", "after"] if round_ % 2 == 0 else ["after", "before"]
        for text in texts:
            for side in order:
                wall, cpu = timed(encoders[side], text)
                walls[side].append(wall)
                cpus[side].append(cpu)
    sides = {side: summary(walls[side], cpus[side]) for side in encoders}
    result = {
        "questions": len(texts), "rounds": args.rounds,
        "folders": {side: str(getattr(args, side)) for side in encoders},
        "load_average_at_start": round(load_at_start, 2),
        "sides": sides,
        "ratio_after_before": {key: round(sides["after"][key] / sides["before"][key], 3)
                               for key in sides["after"]},
        "load_average_at_end": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
