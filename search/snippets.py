"""Snippets: the part of a message that best shows why it matched, with highlight offsets."""

from __future__ import annotations

from indexer.text.analysis import QueryTerms, match_spans

__all__ = ["make_snippet"]

WIDTH = 240
LEAD = 60  # context kept before the first highlighted word


def make_snippet(text: str, terms: QueryTerms, width: int = WIDTH) -> tuple[str, tuple[tuple[int, int], ...]]:
    spans = match_spans(text, terms)
    start = _best_window(spans, width)
    start = _word_start(text, start)
    end = min(len(text), start + width)
    body = text[start:end].replace("\n", " ").replace("\r", " ").replace("\t", " ")
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    shift = len(prefix) - start
    highlights = tuple(
        (max(a, start) + shift, min(b, end) + shift) for a, b in spans if a < end and b > start
    )
    return prefix + body + suffix, highlights


def _best_window(spans: list[tuple[int, int]], width: int) -> int:
    """Where the window that holds the most highlights starts (LEAD before its first one)."""
    if not spans:
        return 0
    best_start, best_count, last = spans[0][0], 0, 0
    for i, (first, _) in enumerate(spans):
        # spans are sorted and disjoint, so the window's last fitting span only moves forward
        last = max(last, i)
        while last < len(spans) and spans[last][1] <= first - LEAD + width:
            last += 1
        if last - i > best_count:
            best_start, best_count = first, last - i
    return max(0, best_start - LEAD)


def _word_start(text: str, start: int) -> int:
    # step forward to a word boundary so a snippet does not open mid-word (Latin text only)
    if start == 0:
        return 0
    for i in range(start, min(start + 20, len(text))):
        if text[i - 1].isspace():
            return i
    return start
