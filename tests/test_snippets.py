"""Snippet windows: the window with the most highlights, found in one pass."""

from __future__ import annotations

import random

from indexer.text.analysis import analyze_query
from search.snippets import LEAD, _best_window, make_snippet


def _best_window_by_counting(spans: list[tuple[int, int]], width: int) -> int:
    if not spans:
        return 0
    best_start, best_count = spans[0][0], 0
    for i, (first, _) in enumerate(spans):
        count = sum(1 for _, end in spans[i:] if end <= first - LEAD + width)
        if count > best_count:
            best_start, best_count = first, count
    return max(0, best_start - LEAD)


def test_best_window_agrees_with_counting_every_window() -> None:
    rng = random.Random(1)
    for _ in range(5000):
        position, spans = 0, []
        for _ in range(rng.randint(0, 30)):
            position += rng.randint(0, 80)
            end = position + rng.randint(1, 30)
            spans.append((position, end))
            position = end + 1
        width = rng.choice([20, 60, 100, 240])
        assert _best_window(spans, width) == _best_window_by_counting(spans, width), (spans, width)


def test_snippet_shows_the_densest_part_of_a_long_message() -> None:
    text = "deploy once. " + "filler words here. " * 40 + "deploy deploy deploy on Friday. " + "more. " * 40
    snippet, highlights = make_snippet(text, analyze_query("deploy"))
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(highlights) == 3
    assert all(snippet[a:b].lower() == "deploy" for a, b in highlights)
