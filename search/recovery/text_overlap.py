"""Word overlap between short texts, in English and Chinese, for when no embedder is at hand.

Texts go through the keyword analyzer (stemmed English words, identifiers and their pieces,
CJK character bigrams), so "deploying" meets "deploy" and "上线" meets "上线计划".
"""

from __future__ import annotations

from indexer.text.analysis import STOP_WORDS, analyze, analyze_query

__all__ = ["content_terms", "coverage", "jaccard", "query_terms"]


def content_terms(text: str) -> frozenset[str]:
    """The topic terms of a stored text (stop words dropped)."""
    analyzed = analyze(text)
    return frozenset(t for t in analyzed.body + analyzed.parts if t not in STOP_WORDS)


def query_terms(text: str) -> frozenset[str]:
    """The topic terms of a request: question scaffolding ("还记得…吗", "what did I") dropped."""
    terms = analyze_query(text)
    return frozenset(terms.body + terms.parts + terms.chars)


def coverage(wanted: frozenset[str], available: frozenset[str]) -> float:
    """Share of the wanted terms that the available ones contain (0 when nothing is wanted)."""
    return len(wanted & available) / len(wanted) if wanted else 0.0


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0
