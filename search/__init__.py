"""Hybrid search over the keyword and vector indexes."""

from .dates import check_day, date_range
from .fusion import reciprocal_rank_fusion
from .searcher import Searcher
from .snippets import make_snippet

__all__ = ["Searcher", "check_day", "date_range", "make_snippet", "reciprocal_rank_fusion"]
