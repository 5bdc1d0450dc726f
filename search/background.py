"""A per-query relevance floor for vector hits.

Embedding models put all text in a narrow band of cosine similarity (multilingual-e5: unrelated
text scores 0.78-0.86), so no fixed number tells a match from noise. Instead, each query is also
compared with a few generic chat lines that answer nothing; a vector hit counts only if it beats
the best of them by a margin. Nonsense queries then find nothing, real ones keep their hits.
Lines in the passage's own language set the bar: the same model scores text in the other
language lower across the board, answers included.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from indexer.embedding.embedders import Embedder

__all__ = ["GENERIC_LINES_EN", "GENERIC_LINES_ZH", "Background"]

GENERIC_LINES_EN = (
    "Okay, sounds good.", "Let me think about it and get back to you.", "Thanks for your help!",
    "Sure, I can do that.", "What do you mean?", "That makes sense.",
    "Can you explain that again?", "I'm not sure, let me check.", "Good morning!",
    "See you tomorrow.", "Here is what I found.", "Let's continue where we left off.",
    "Could you give me more details?", "That's a good question.", "I agree with you.",
)
GENERIC_LINES_ZH = (
    "好的，我明白了。", "谢谢你的帮助。", "让我想一想再回复你。", "你说的是什么意思？",
    "没问题，我来处理。", "早上好！", "明天见。", "我们继续上次的话题吧。", "能再解释一下吗？",
    "这个问题问得好。", "我同意你的看法。", "我查一下再告诉你。", "有更多细节吗？",
    "这样说得通。", "好的，就这么办。",
)


class Background:
    """The reference lines' vectors, embedded once per process; with a ``cache_dir`` and an
    embedder that names its exact weights (a ``version`` attribute), once per model: a cold
    `recall search` then skips ~150 ms of embedding on one thread."""

    def __init__(self, embedder: Embedder, cache_dir: Path | None = None) -> None:
        self.embedder = embedder
        self.cache_dir = cache_dir
        self._lines: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()  # server threads may ask at once; embed the lines once

    def prepare(self) -> None:
        """Embed the reference lines (once; a search does it on first use)."""
        with self._lock:
            if not self._lines:
                vectors = self._load()
                split = len(GENERIC_LINES_EN)
                self._lines = {"other": vectors[:split], "cjk": vectors[split:]}

    def _load(self) -> np.ndarray:
        import numpy as np

        lines = [*GENERIC_LINES_EN, *GENERIC_LINES_ZH]
        path = self._cache_path(lines)
        if path is not None:
            try:
                cached: np.ndarray = np.load(path)  # an .npy file holds one array
                if cached.shape == (len(lines), self.embedder.dim):
                    return cached
            except (OSError, ValueError):
                pass  # not there yet, or damaged: embed again
        vectors = self.embedder.embed_passages(lines)
        if path is not None:
            try:  # best effort: a read-only data directory only costs the embedding next time
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                with tmp.open("wb") as fh:
                    np.save(fh, vectors)
                os.replace(tmp, path)
            except OSError:
                pass
        return vectors

    def _cache_path(self, lines: list[str]) -> Path | None:
        version = getattr(self.embedder, "version", None)
        if self.cache_dir is None or not version:
            return None
        key = json.dumps([self.embedder.name, version, lines], ensure_ascii=False)
        return self.cache_dir / f"background-{hashlib.sha256(key.encode()).hexdigest()[:16]}.npy"

    def floor(self, query_vector: np.ndarray, lang: str | None = None) -> float:
        """The similarity a vector hit in passages of `lang` ("cjk", "other" or None for
        both) must reach to count as a match for this query."""
        self.prepare()
        langs = [lang] if lang else list(self._lines)
        background = max(float((self._lines[k] @ query_vector).max()) for k in langs)
        return max(self.embedder.similarity_floor, background + self.embedder.similarity_margin)
