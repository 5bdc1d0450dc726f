"""A CJK-aware token estimate: no tokenizer needed, close enough for budgets."""

from __future__ import annotations

import re

__all__ = ["estimate_tokens"]

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def estimate_tokens(text: str) -> int:
    """About 1.5 CJK characters per token and 4 other characters per token."""
    cjk = len(_CJK.findall(text))
    return int(cjk / 1.5 + (len(text) - cjk) / 4 + 0.999)
