"""Hybrid search over the keyword and vector indexes."""

from search.dates import check_day, date_range
from search.fusion import reciprocal_rank_fusion
from search.searcher import Searcher
from search.snippets import make_snippet

__all__ = ["Searcher", "check_day", "date_range", "make_snippet", "reciprocal_rank_fusion"]
