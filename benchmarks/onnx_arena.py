"""onnxruntime's CPU memory arena on or off, for the e5 encoder as `recall serve` uses it: the
memory a long-running process keeps, and what each run costs.

    python benchmarks/onnx_arena.py --bench ../shared/bench --model-cache /tmp/models \
        [--rounds 60] [--queries 300] [--batches 30] [--json out.json]

Sides: the arena kept (onnxruntime's default), "shrunk" (given back after each run: recall's
default), and off.

- Memory: one child process per side runs the same seeded stream, as a server does: a thread
  embedding LoCoMo questions one by one without pause, and writes of LoCoMo messages (mostly 1-4,
  sometimes a whole session of 40-150, a fifth of them long texts of many messages joined)
  through the bulk encoder. Anonymous memory (RssAnon) after every tenth of the rounds.
- Speed: in this process, both sides alternate query by query (the same questions, one thread,
  wall and thread CPU time), then batch by batch for passages (32 messages a batch).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexer.embedding.embedders import load_embedder
from indexer.embedding.onnx_encoder import OnnxEncoder

SIDES = ("kept", "shrunk", "off")  # onnxruntime's default; given back after each run; none


def locomo(bench: Path) -> tuple[list[str], list[str]]:
    texts = [m["content"] for p in sorted((bench / "locomo" / "sessions").rglob("*.json"))[:60]
             for m in json.loads(p.read_text())["messages"] if m.get("content")]
    questions = [json.loads(line)["question"] for line in (bench / "locomo" / "queries.jsonl").open()]
    return texts, questions


def anon_mb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon"):
            return int(line.split()[1]) // 1024
    raise RuntimeError("no RssAnon in /proc/self/status")


def writes(texts: list[str], rounds: int) -> list[list[str]]:
    """The seeded stream of writes, the same for both sides."""
    rng = random.Random(7)
    out = []
    for _ in range(rounds):
        n = rng.choice([1, 1, 1, 2, 4, 40, 150])
        start = rng.randrange(len(texts) - n)
        batch = texts[start:start + n]
        if rng.random() < 0.2:  # long messages: several joined, up to the model's 512 tokens
            batch = [" ".join(texts[start:start + rng.randrange(2, 30)]) for _ in range(max(1, n // 10))]
        out.append(batch)
    return out


def child(args: argparse.Namespace) -> None:
    """One side's memory under the stream; prints one JSON line."""
    folder = args.folder
    queries = OnnxEncoder(folder, threads=1, arena=args.child)
    bulk = OnnxEncoder(folder, threads=0, arena=args.child)
    texts, questions = locomo(args.bench)
    stream = writes(texts, args.rounds)
    stop = threading.Event()

    def asker() -> None:
        i = 0
        while not stop.is_set():
            queries.encode([questions[i % len(questions)]], prompt="query: ")
            i += 97

    thread = threading.Thread(target=asker)
    started = anon_mb()
    thread.start()
    marks = []
    for n, batch in enumerate(stream, 1):
        bulk.encode(batch, prompt="passage: ")
        if n % max(1, args.rounds // 10) == 0:
            marks.append({"round": n, "anon_mb": anon_mb()})
    stop.set()
    thread.join()
    print(json.dumps({"start_mb": started, "marks": marks}))


def memory(args: argparse.Namespace) -> dict[str, dict]:
    out = {}
    for side in SIDES:
        began = time.monotonic()
        done = subprocess.run([sys.executable, __file__, "--child", side, "--folder", str(args.folder),
                               "--bench", str(args.bench), "--rounds", str(args.rounds)],
                              capture_output=True, text=True, check=True)
        out[side] = json.loads(done.stdout.strip().splitlines()[-1])
        out[side]["seconds"] = round(time.monotonic() - began, 1)
    return out


def speed(args: argparse.Namespace) -> dict[str, dict]:
    texts, questions = locomo(args.bench)
    encoders = {side: OnnxEncoder(args.folder, threads=1, arena=side) for side in SIDES}
    timings: dict[str, dict[str, list[float]]] = {side: {"wall": [], "cpu": [], "passages": []}
                                                  for side in SIDES}
    for encoder in encoders.values():
        encoder.encode(questions[:5], prompt="query: ")  # opened and warm
    for i, question in enumerate(questions[:args.queries]):
        for side in SIDES[i % 3:] + SIDES[:i % 3]:  # each side first in turn
            wall, cpu = time.perf_counter(), time.thread_time()
            encoders[side].encode([question], prompt="query: ")
            timings[side]["wall"].append((time.perf_counter() - wall) * 1000)
            timings[side]["cpu"].append((time.thread_time() - cpu) * 1000)
    for n, i in enumerate(range(0, 32 * args.batches, 32)):
        for side in SIDES[n % 3:] + SIDES[:n % 3]:
            began = time.thread_time()
            encoders[side].encode(texts[i:i + 32], prompt="passage: ")
            timings[side]["passages"].append(32 / (time.thread_time() - began))
    return {side: {"query_p50_ms": round(statistics.median(t["wall"]), 2),
                   "query_cpu_p50_ms": round(statistics.median(t["cpu"]), 2),
                   "passages_per_cpu_s": round(statistics.median(t["passages"]), 1)}
            for side, t in timings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--model-cache", type=Path)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--child", choices=SIDES, help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--batches", type=int, default=30, help="passage batches of 32 per side")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.folder is None:
        args.folder = load_embedder("e5", args.model_cache).queries.folder  # type: ignore[attr-defined]
    report = {"memory": memory(args), "speed": speed(args)}
    for side in SIDES:
        mem, fast = report["memory"][side], report["speed"][side]
        print(f"{side}: anonymous MB {mem['start_mb']} -> "
              + " ".join(str(m["anon_mb"]) for m in mem["marks"])
              + f" (rounds {args.rounds}, {mem['seconds']} s); query p50 {fast['query_p50_ms']} ms "
              f"(CPU {fast['query_cpu_p50_ms']} ms), passages {fast['passages_per_cpu_s']} per CPU-s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
