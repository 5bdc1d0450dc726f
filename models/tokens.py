"""A CJK-aware token estimate: no tokenizer needed, close enough for budgets."""

from __future__ import annotations

import re

__all__ = ["CJK_CHAR", "CJK_RANGES", "estimate_tokens"]

# kana, CJK ideographs (with extension A and compatibility), Hangul: the one definition of "CJK"
CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
CJK_CHAR = re.compile(f"[{CJK_RANGES}]")


def estimate_tokens(text: str) -> int:
    """About 1.5 CJK characters per token and 4 other characters per token."""
    cjk = len(CJK_CHAR.findall(text))
    return int(cjk / 1.5 + (len(text) - cjk) / 4 + 0.999)
