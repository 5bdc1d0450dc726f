"""The parity gate of the ONNX export: cosine against the fp32 sentence-transformers model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from indexer.embedding.e5.verify import VERIFY_SENTENCES

__all__ = ["BUILD_TEXTS", "MIN_COSINE", "cosines"]

# Every text must embed at this cosine or better against the fp32 model, as a query (and as a
# passage wherever passages use the export too). int8 on every MatMul lands just under it.
MIN_COSINE = 0.99

_QUERIES = [
    "which database did we pick?",
    "Friday deploys",
    "ERR_CONNECTION_REFUSED",
    "vacation planning in Japan",
    "how did we fix the flaky test",
    "what did Caroline research last week?",
    "rotate API keys before release",
    "redis vs postgres for the job queue",
    "kubectl rollout undo deployment/api",
    "最后决定用什么数据库",
    "升级",
    "周五上线",
    "上次讨论的缓存方案",
    "怎么修复内存泄漏",
    "日本旅行计划",
    "Docker 镜像太大了怎么办",
    "上周关于 API rate limit 的讨论",
    "the 数据库 migration 什么时候做",
    "pytest 的 fixture 为什么慢",
    "😀 emoji and 𠀀 CJK extension B",
]

# A fixed set, a few dozen texts, so that the build stays fast; benchmarks/onnx_parity.py runs
# the full set of the repository's own texts. The last two are cut at the model's 512 tokens.
BUILD_TEXTS: tuple[str, ...] = (
    *VERIFY_SENTENCES,
    *_QUERIES,
    "",
    " ".join(VERIFY_SENTENCES[:8]) * 12,
    "".join(VERIFY_SENTENCES[8:16]) * 12,
)


def cosines(reference: np.ndarray, candidate: np.ndarray) -> np.ndarray:
    """Row-wise cosine between two (n, dim) arrays of embeddings."""
    ref = reference / np.linalg.norm(reference, axis=1, keepdims=True)
    cand = candidate / np.linalg.norm(candidate, axis=1, keepdims=True)
    return np.sum(ref * cand, axis=1)


def summary(values: Sequence[float] | np.ndarray) -> dict[str, float | int]:
    """min, mean and count of a set of cosines, rounded for a marker file or a report."""
    arr = np.asarray(values, dtype=np.float64)
    return {"texts": int(arr.size), "min": round(float(arr.min()), 5),
            "mean": round(float(arr.mean()), 5)}
