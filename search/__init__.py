"""Hybrid search over the keyword and vector indexes.

The names below are loaded on first use (PEP 562): a part such as `search.dates` comes without
the searcher and the indexes behind it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.lazy import lazy_names

if TYPE_CHECKING:
    from search.dates import check_day, date_range
    from search.fusion import reciprocal_rank_fusion
    from search.searcher import Searcher
    from search.snippets import make_snippet

__all__ = ["Searcher", "check_day", "date_range", "make_snippet", "reciprocal_rank_fusion"]

# where each name is defined
_MODULES = {
    "Searcher": "search.searcher",
    "check_day": "search.dates",
    "date_range": "search.dates",
    "make_snippet": "search.snippets",
    "reciprocal_rank_fusion": "search.fusion",
}

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    __getattr__, __dir__ = lazy_names(__name__, _MODULES, globals())
