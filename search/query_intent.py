"""What a query asks for beyond its words: how something stands now, or how it stood at first."""

from __future__ import annotations

import re

__all__ = ["asks_for_history", "asks_for_latest"]

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


# "what did we first decide", "originally", "before it moved", "最开始", "原来约的", "以前"
_HISTORY_EN = re.compile(
    r"\b(?:we|i|you) first\b|\bfirst (?:decid|set|pick|chose|choose|agree|plan)\w*|"
    r"\boriginal(?:ly)?\b|\binitial(?:ly)?\b|\bat first\b|\bused to\b|\bpreviously\b|"
    r"\bbefore (?:it|that|we) (?:moved|changed|switched)", re.IGNORECASE)
_HISTORY_ZH = re.compile(r"最开始|一开始|起初|最初|原来|原先|最早|当初|以前|之前定|之前约|之前决定|之前的")


def asks_for_history(query: str) -> bool:
    """Whether the query asks how something stood before it changed, so that of several
    sessions on one subject the oldest should answer."""
    if asks_for_latest(query):
        return False
    return bool(_HISTORY_EN.search(query) or _HISTORY_ZH.search(query))
