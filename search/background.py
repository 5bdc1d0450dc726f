"""A per-query relevance floor for vector hits.

Embedding models put all text in a narrow band of cosine similarity (multilingual-e5: unrelated
text scores 0.78-0.86), so no fixed number tells a match from noise. Instead, each query is also
compared with a few generic chat lines that answer nothing; a vector hit counts only if it beats
the best of them by a margin. Nonsense queries then find nothing, real ones keep their hits.
Lines in the passage's own language set the bar: the same model scores text in the other
language lower across the board, answers included.
"""

from __future__ import annotations

import threading
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
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._lines: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()  # server threads may ask at once; embed the lines once

    def floor(self, query_vector: np.ndarray, lang: str | None = None) -> float:
        """The similarity a vector hit in passages of `lang` ("cjk", "other" or None for
        both) must reach to count as a match for this query."""
        with self._lock:
            if not self._lines:
                self._lines = {"other": self.embedder.embed_passages(list(GENERIC_LINES_EN)),
                               "cjk": self.embedder.embed_passages(list(GENERIC_LINES_ZH))}
        langs = [lang] if lang else list(self._lines)
        background = max(float((self._lines[k] @ query_vector).max()) for k in langs)
        return max(self.embedder.similarity_floor, background + self.embedder.similarity_margin)
