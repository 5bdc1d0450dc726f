"""Embedding models side by side, in one run: raw encode speed, ingest speed, query latency.

    python benchmarks/embedders.py --bench ../shared/bench [--models minilm,e5,e5-torch]

`e5` is the default (the int8 ONNX export, no torch); `e5-torch` is the same converted model run
in fp32 by sentence-transformers, as recall ran it before the export. For each model: `SentenceTransformer.encode` throughput on the LoCoMo and bilingual passages
recall would embed (the pipeline's own passages, so the ratio ingest/encode is the pipeline's
overhead), a full ingest of both sets into a fresh data dir, and the median latency of one
query embedding (50 queries, after warm-up).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from api import RecallService, Settings
from indexer.embedding.embedders import Embedder, e5_on_torch, ensure_e5_model, load_embedder
from indexer.stores.documents import session_documents, split_passages
from models import parse_session


def embedder_for(model: str, model_cache: Path) -> Embedder:
    if model == "e5-torch":
        return e5_on_torch(ensure_e5_model(model_cache))
    return load_embedder(model, model_cache)


def passages(folder: Path) -> list[str]:
    out = []
    for path in sorted(folder.rglob("*.json")):
        session = parse_session(json.loads(path.read_text()), fallback_id=path.stem)
        out += [p.text for d in session_documents(session) for p in split_passages(d)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--models", default="minilm,e5")
    parser.add_argument("--model-cache", type=Path, default=Path(tempfile.gettempdir()) / "recall-models")
    args = parser.parse_args()
    print(f"torch threads: {torch.get_num_threads()}")
    sets = {name: args.bench / name / "sessions" for name in ("locomo", "bilingual")}
    texts = {name: passages(folder) for name, folder in sets.items()}
    queries = [json.loads(line)["question"] for line in (args.bench / "locomo" / "queries.jsonl").open()][:25]
    queries += [json.loads(line)["query"] for line in (args.bench / "bilingual" / "queries.jsonl").open()][:25]
    print(f"{'model':<40}{'set':<10}{'passages':>9}{'encode/s':>10}{'ingest msg/s':>14}{'ingest s':>10}{'overhead':>10}")
    latency = {}
    for model in args.models.split(","):
        with tempfile.TemporaryDirectory() as home:
            embedder = embedder_for(model, args.model_cache)
            service = RecallService(Settings(home=Path(home), embedder=model, model_cache=args.model_cache),
                                    embedder=embedder)
            embedder.embed_passages(["warm up"] * 8)
            for name, folder in sets.items():
                started = time.perf_counter()
                embedder.embed_passages(texts[name])
                encode_s = time.perf_counter() - started
                report = service.index([folder])
                print(f"{model:<40}{name:<10}{len(texts[name]):>9}{len(texts[name]) / encode_s:>10.1f}"
                      f"{report.messages / report.seconds:>14.1f}{report.seconds:>10.1f}"
                      f"{report.seconds / encode_s:>9.2f}x")
            times = []
            for query in queries:
                started = time.perf_counter()
                embedder.embed_query(query)
                times.append((time.perf_counter() - started) * 1000)
            latency[model] = statistics.median(times)
    for name, ms in latency.items():
        print(f"query embedding, median of {len(queries)}: {name}: {ms:.1f} ms")


if __name__ == "__main__":
    main()
