"""What a query asks for beyond its words: here, the current state of something."""

from __future__ import annotations

import re

__all__ = ["asks_for_latest"]

# "what is X now", "current X", "still B2?", "最新的", "现在是多少", "目前"
_LATEST_EN = re.compile(
    r"\b(now|nowadays|current(ly)?|latest|newest|most recent(ly)?|still|anymore|any more|"
    r"these days|at the moment|right now|today|so far|final(ly)?|ended up|in the end)\b",
    re.IGNORECASE)
_LATEST_ZH = re.compile(r"现在|目前|当前|最新|最近|如今|眼下|还是|仍然|依然|最后|最终|后来|改成|改为")


def asks_for_latest(query: str) -> bool:
    """Whether the query asks how things stand now, so that of several sessions on one subject
    the newest should answer."""
    return bool(_LATEST_EN.search(query) or _LATEST_ZH.search(query))
