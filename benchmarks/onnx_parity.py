"""The ONNX e5 encoder against the fp32 sentence-transformers model, in one process: parity
(cosine per text, queries one at a time and passages in batches) and speed (one query on one
thread; bulk passages on every core), on the repository's own English, Chinese and mixed texts.

    python benchmarks/onnx_parity.py --model-cache /tmp/recall-cold/models \
        [--compare DIR ...] [--bench ../shared/bench] [--json out.json]

The int8 export is the one recall builds (`<model-cache>/multilingual-e5-small-onnx`); pass
other exports (an fp32 one: `build_onnx_encoder(..., quantize=False)`) to compare them too. With
`--bench`, the LoCoMo and bilingual passages are added to the texts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexer.embedding.e5.onnx_parity import cosines, summary
from indexer.embedding.embedders import ensure_e5_encoder, ensure_e5_model
from indexer.embedding.onnx_encoder import OnnxEncoder
from indexer.stores.documents import session_documents, split_passages
from models import parse_session

_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{3,}")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？\n])\s*")


def repository_texts(extra: list[Path]) -> list[str]:
    """Every distinct passage of the sessions under examples/, tests/data and ``extra``."""
    texts: dict[str, None] = {}
    for folder in [ROOT / "examples", ROOT / "tests" / "data", *extra]:
        for path in sorted(folder.rglob("*.json")):
            try:
                session = parse_session(json.loads(path.read_text(encoding="utf-8")),
                                        fallback_id=path.stem)
            except Exception:  # noqa: BLE001, S112 - tests/data holds deliberately bad files
                continue
            for doc in session_documents(session):
                for passage in split_passages(doc):
                    texts.setdefault(passage.text.strip(), None)
                    # and each sentence alone: short texts are what queries look like
                    for sentence in _SENTENCE_END.split(passage.text):
                        texts.setdefault(sentence.strip(), None)
    return [t for t in texts if len(t) >= 4]


def language(text: str) -> str:
    cjk, latin = bool(_CJK.search(text)), bool(_LATIN.search(text))
    return "mixed" if cjk and latin else "zh" if cjk else "en"


def per_language(texts: list[str], values: np.ndarray) -> dict[str, dict[str, float | int]]:
    out = {"all": summary(values)}
    for lang in ("en", "zh", "mixed"):
        picked = [v for t, v in zip(texts, values, strict=True) if language(t) == lang]
        if picked:
            out[lang] = summary(picked)
    return out


def timed(fn, *args) -> tuple[np.ndarray, float]:
    started = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - started


def query_p50_ms(embed, queries: list[str]) -> float:
    for q in queries[:5]:
        embed(q)
    times = []
    for q in queries:
        started = time.perf_counter()
        embed(q)
        times.append(time.perf_counter() - started)
    return round(statistics.median(times) * 1000, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-cache", type=Path, required=True)
    parser.add_argument("--compare", type=Path, action="append", default=[],
                        help="another export folder to compare as well (repeatable)")
    parser.add_argument("--bench", type=Path, help="../shared/bench: add its passages")
    parser.add_argument("--limit", type=int, default=2000, help="at most this many texts")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    extra = [args.bench / "locomo", args.bench / "bilingual"] if args.bench else []
    texts = repository_texts(extra)[: args.limit]
    short = [t for t in texts if len(t) <= 80]
    queries = short[:: max(1, len(short) // 200)][:200]
    print(f"{len(texts)} texts ({sum(language(t) == 'zh' for t in texts)} zh, "
          f"{sum(language(t) == 'mixed' for t in texts)} mixed), {len(queries)} queries", flush=True)

    import torch
    from sentence_transformers import SentenceTransformer

    model_dir = ensure_e5_model(args.model_cache)
    st = SentenceTransformer(str(model_dir), device="cpu")
    threads = torch.get_num_threads()

    def st_passages(batch: list[str]) -> np.ndarray:
        return st.encode(batch, prompt_name="passage", batch_size=32, normalize_embeddings=True,
                         convert_to_numpy=True, show_progress_bar=False)

    def st_query(text: str) -> np.ndarray:
        return st.encode([text], prompt_name="query", normalize_embeddings=True,
                         convert_to_numpy=True, show_progress_bar=False)[0]

    ref_passages, st_seconds = timed(st_passages, texts)
    torch.set_num_threads(1)
    ref_queries = np.stack([st_query(q) for q in queries])
    st_query_ms = query_p50_ms(st_query, queries)
    torch.set_num_threads(threads)
    rows: list[dict[str, object]] = [{
        "variant": "sentence-transformers fp32 (torch)", "passages_per_s": round(len(texts) / st_seconds, 1),
        "query_p50_ms_1_thread": st_query_ms}]
    print(f"{'sentence-transformers fp32':<28} passages {rows[0]['passages_per_s']:7.1f}/s  "
          f"query p50 {st_query_ms:5.1f} ms", flush=True)

    variants = [("onnx int8 (default)", ensure_e5_encoder(model_dir))]
    variants += [(f"onnx {folder.name}", folder) for folder in args.compare]
    for label, folder in variants:
        bulk = OnnxEncoder(folder, threads=0)
        one = OnnxEncoder(folder, threads=1)
        vectors, seconds = timed(bulk.encode, texts, bulk.prompts["passage"])
        query_vectors = np.stack([one.encode([q], one.prompts["query"])[0] for q in queries])
        row = {"variant": label, "folder": str(folder),
               "passages_per_s": round(len(texts) / seconds, 1),
               "passage_speedup": round(st_seconds / seconds, 2),
               "query_p50_ms_1_thread": query_p50_ms(
                   lambda q, e=one: e.encode([q], e.prompts["query"]), queries),
               "passage_cosine": per_language(texts, cosines(ref_passages, vectors)),
               "query_cosine": per_language(queries, cosines(ref_queries, query_vectors))}
        rows.append(row)
        print(f"{label:<28} passages {row['passages_per_s']:7.1f}/s ({row['passage_speedup']}x)  "
              f"query p50 {row['query_p50_ms_1_thread']:5.1f} ms  cosine passages "
              f"{row['passage_cosine']['all']}  queries {row['query_cosine']['all']}", flush=True)

    result = {"texts": len(texts), "queries": len(queries), "cpus": os.cpu_count(),
              "load_average_at_start": round(os.getloadavg()[0], 2), "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
