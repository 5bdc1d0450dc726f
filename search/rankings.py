"""The rankings one search fuses beside the keyword one: vector hits above the query's relevance
floor, one list per passage language, and the days the query names."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import TYPE_CHECKING

import msgspec

from indexer.text.analysis import QueryTerms, is_cjk_text
from models import SearchRequest
from search.candidates import Candidate, from_keyword, from_vector
from search.query_dates import query_dates

if TYPE_CHECKING:  # the vector side is loaded by the first search that uses it
    import numpy as np

    from indexer.stores.generation import Generation
    from indexer.stores.keyword import KeywordHit
    from indexer.stores.vector import VectorHit

__all__ = ["KEYWORD_CANDIDATES", "RRF_K", "UNKNOWN_WORDS_EXTRA_MARGIN", "VECTOR_CANDIDATES",
           "WEIGHT_DICTIONARY", "WEIGHT_KEYWORD", "Ranking", "VectorSearch", "date_rankings",
           "dictionary_ranking", "start_vector_searches", "uses_vectors", "vector_rankings"]

KEYWORD_CANDIDATES = 100
# 50 vector hits per language rank as well as 100 did (LoCoMo and bilingual session R@5, R@10
# and MRR within 0.001, docs/performance.md), and each search reads half the rows: ~1.5 ms less
# a search at 100k sessions.
VECTOR_CANDIDATES = 50
# Fusion settings, chosen on LoCoMo conversations 26-44 and the bilingual dev set
# (docs/benchmarks.md): vectors in the query's own language mostly repeat what keywords
# found, while the other-language list is the only way to an answer written in the other one.
RRF_K = 10
WEIGHT_KEYWORD = 1.0
WEIGHT_SAME_LANGUAGE = 0.5
WEIGHT_OTHER_LANGUAGE = 1.0
# The query translated by the dictionary (search/translation.py), below the query's own words:
# chosen on the tune half of eval/ (docs/benchmarks.md, "A dictionary across languages"), where
# 0.5 found more answers in the top 5 than 0.25, 0.75 or 1.0.
WEIGHT_DICTIONARY = 0.5
# rankings restricted to the days a query names (search/query_dates.py)
WEIGHT_DATE_KEYWORD = 0.5
WEIGHT_DATE_VECTOR = 1.0
DATE_VECTOR_CANDIDATES = 20
# vector hits must rise this much further above the background when no query word is known
UNKNOWN_WORDS_EXTRA_MARGIN = 0.015

# one ranking for fusion: candidate numbers best first, and its weight
Ranking = tuple[list[int], float]
# one running vector search: its language (None: both), its fusion weight, its hits to come
VectorSearch = tuple[str | None, float, "Future[list[VectorHit]]"]
# the relevance floor of a query vector in a passage language (search/background.py)
Floor = Callable[["np.ndarray", str | None], float]


def uses_vectors(request: SearchRequest, multilingual: bool) -> bool:
    """Whether the vector side answers this request with a model that is (or is not)
    multilingual."""
    # An English-only model turns Chinese into [UNK] noise; in hybrid mode its vectors
    # would only push good keyword hits down, so they are left out for CJK queries.
    if request.mode == "vector":
        return True
    return multilingual or not is_cjk_text(request.query)


def start_vector_searches(pool: Executor, gen: Generation, request: SearchRequest,
                          vector: np.ndarray, multilingual: bool) -> list[VectorSearch]:
    """A multilingual model prefers text in the query's language, so in hybrid mode each
    passage language is ranked on its own and fusion gives both a fair place. The searches
    wait on LanceDB's own threads: they run side by side."""
    if multilingual:
        same = "cjk" if is_cjk_text(request.query) else "other"
        other = "other" if same == "cjk" else "cjk"
        lists: list[tuple[str | None, float]] = [(same, WEIGHT_SAME_LANGUAGE),
                                                 (other, WEIGHT_OTHER_LANGUAGE)]
    else:
        lists = [(None, WEIGHT_SAME_LANGUAGE)]
    return [(lang, weight, pool.submit(gen.vectors.search, vector, request.filters,
                                       VECTOR_CANDIDATES, lang))
            for lang, weight in lists]


def vector_rankings(request: SearchRequest, vector: np.ndarray, searches: list[VectorSearch],
                    candidates: dict[int, Candidate], floor: Floor,
                    extra_margin: float = 0.0) -> list[Ranking]:
    """Vector hits above the query's floor, one ranking per language; vector mode ranks all
    hits by how far they rise above the background of their own language."""
    out: list[Ranking] = []
    margins: dict[int, float] = {}
    same_language = searches[0][0] if searches else None
    for lang, weight, found in searches:
        ranked: list[int] = []
        bar = floor(vector, lang) + extra_margin
        for hit in found.result():
            if hit.similarity < bar:
                continue  # below the floor it is noise
            c = from_vector(candidates, hit)
            if c.number in ranked:
                continue  # a message counts once (its best passage)
            ranked.append(c.number)
            margins.setdefault(c.number, hit.similarity - bar)
            if lang == same_language:
                c.same_margin = hit.similarity - bar
            else:
                c.other_margin = hit.similarity - bar
            if c.vector is None or hit.similarity > c.vector:
                c.vector, c.vector_rank = hit.similarity, len(ranked)
        out.append((ranked, weight))
    if request.mode == "vector":
        return [(sorted(margins, key=lambda key: -margins[key]), 1.0)]
    return out


def dictionary_ranking(hits: list[KeywordHit], candidates: dict[int, Candidate],
                       found: list[KeywordHit]) -> Ranking:
    """The hits of the translated query (search/translation.py) as one more ranking, for the
    sessions the query's own words did not find (`found`): it speaks for the other language.
    Counted again for a session the query's names already found, it pushed sessions that
    answer in the query's language down (tests/test_current_state.py). They are not keyword
    evidence of the query's own words, so their BM25 scores are kept apart."""
    sessions = {h.session_no for h in found}
    hits = [h for h in hits if h.session_no not in sessions]
    for rank, hit in enumerate(hits, start=1):
        c = from_keyword(candidates, hit)
        if c.translated_rank is None:
            c.translated_rank = rank
    return [h.key_no for h in hits], WEIGHT_DICTIONARY


def date_rankings(gen: Generation, request: SearchRequest, terms: QueryTerms,
                  vector: np.ndarray | None, candidates: dict[int, Candidate]) -> list[Ranking]:
    """Extra rankings inside the days the query names ("what did we decide on March 29?"):
    its words, and its meaning without a floor, since being held that day is itself the
    evidence. Skipped when the request already has a date filter."""
    f = request.filters
    ranges = () if f.since or f.until or f.date_ranges else tuple(query_dates(request.query))
    if not ranges:
        return []
    dated = msgspec.structs.replace(f, date_ranges=ranges)
    out = []
    keyword = gen.keyword.search(terms, dated, KEYWORD_CANDIDATES)
    for hit in keyword:
        from_keyword(candidates, hit).on_named_day = True
    out.append(([h.key_no for h in keyword], WEIGHT_DATE_KEYWORD))
    if vector is not None:
        ranked: list[int] = []
        for vector_hit in gen.vectors.search(vector, dated, DATE_VECTOR_CANDIDATES):
            c = from_vector(candidates, vector_hit)
            c.on_named_day = True
            if c.number not in ranked:
                ranked.append(c.number)
                if c.vector is None:
                    c.vector = vector_hit.similarity
        out.append((ranked, WEIGHT_DATE_VECTOR))
    return out
