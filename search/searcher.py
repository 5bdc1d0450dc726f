"""Hybrid search: BM25 and vector candidates under the same filters, fused, grouped by session,
ordered (search/session_order.py) and, with the facts links, marked with what is current
(search/current.py): the answer every interface gives."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from indexer.stores.generation import Generation
from indexer.stores.keyword import KeywordHit
from indexer.text.analysis import analyze_query
from models import IndexUnavailable, SearchRequest, SearchResponse
from search.background import Background
from search.candidates import Candidate, by_session, from_keyword, weigh_by_relevance
from search.current import CurrentState
from search.fusion import reciprocal_rank_fusion
from search.ranker import Ranker
from search.rankings import (
    KEYWORD_CANDIDATES,
    RRF_K,
    UNKNOWN_WORDS_EXTRA_MARGIN,
    WEIGHT_KEYWORD,
    VectorSearch,
    date_rankings,
    dictionary_ranking,
    start_vector_searches,
    uses_vectors,
    vector_rankings,
)
from search.request_checks import check_request
from search.session_hits import session_hits
from search.session_order import Found, features, rank_sessions
from search.translation import search_translated

if TYPE_CHECKING:  # the vector side is loaded by the first search that uses it
    import numpy as np

    from indexer.embedding.embedders import Embedder
    from indexer.stores.layout import DataDir

__all__ = ["Searcher"]

log = logging.getLogger(__name__)

MAX_LIMIT = 100
REFRESH_AT_LEAST_EVERY = 30.0  # seconds
MAX_QUERY_CHARS = 2_000


class Searcher:
    """Reads the live generation; notices a reindex switch and reopens.

    Built as RecallService builds it (api/service/core.py), `search` answers exactly as the
    service does: `ranker` orders hybrid results (`learned_ranker(mode)`, search/ranker.py; None:
    fused scores), `memory_relevance` weighs memories for memory_rank "relevance", and `current`
    (the facts store and the archive) marks statements current or superseded and puts what
    stands now first. Without `current` it answers in its own order, unmarked. `translates`:
    the query translated by the dictionary is one more keyword ranking (search/translation.py).
    """

    def __init__(self, data: DataDir, embedder: Callable[[], Embedder], *,
                 ranker: Ranker | None,
                 current: CurrentState | None = None,
                 max_query_chars: int = MAX_QUERY_CHARS,
                 memory_relevance: Callable[[list[str]], dict[str, float]] | None = None,
                 translates: bool = True) -> None:
        self.data = data
        self.translates = translates
        self._ranker = ranker
        self._current = current
        # memory id -> relevance now, for memory_rank "relevance" (api/service/relevance.py)
        self.memory_relevance = memory_relevance
        self.max_query_chars = max_query_chars
        self._embedder_factory = embedder
        self._embedder: Embedder | None = None
        self._gen: Generation | None = None
        self._gen_name: str | None = None
        self._stamp, self._refreshed = 0, 0.0
        # the keyword searches (the query's words, their translation) and one vector search per
        # language run side by side
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="search")
        self._background_floor: Background | None = None

    @property
    def ranker(self) -> Ranker | None:
        """What orders sessions in hybrid mode when made for this embedder (search/ranker.py)."""
        return self._ranker

    def variant(self, ranker: Ranker | None, *, marks_current: bool = True,
                translates: bool | None = None) -> Searcher:
        """This searcher with another ranker, and without marking what is current or without
        the dictionary's ranking when asked: for benchmarks that compare in one process."""
        return Searcher(self.data, self._embedder_factory, ranker=ranker,
                        current=self._current if marks_current else None,
                        max_query_chars=self.max_query_chars,
                        memory_relevance=self.memory_relevance,
                        translates=self.translates if translates is None else translates)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self._embedder_factory()
        return self._embedder

    def generation(self) -> Generation:
        name = self.data.current_generation()
        if name is None:
            raise IndexUnavailable(
                f"nothing is indexed in {self.data.root} yet; run `recall index PATH` first")
        if name != self._gen_name or self._gen is None:
            self._gen = Generation.open(self.data.generation(name))
            self._gen_name = name
            self._stamp, self._refreshed = self._gen.stamp(), time.monotonic()
            return self._gen
        stamp = self._gen.stamp()
        # also now and then without a change: compaction may retire the version we hold
        if stamp != self._stamp or time.monotonic() - self._refreshed > REFRESH_AT_LEAST_EVERY:
            self._gen.refresh()
            self._stamp, self._refreshed = stamp, time.monotonic()
        return self._gen

    def search(self, request: SearchRequest) -> SearchResponse:
        found = self._find(request)
        ranked = rank_sessions(found, request, self._ranker_for(request))
        response = SearchResponse(request.query,
                                  session_hits(found, ranked, request.messages_per_session))
        return self._current.mark(response, request) if self._current else response

    def ranking_rows(self, request: SearchRequest, count: int) -> list[tuple[str, list[float]]]:
        """The first `count` sessions by fused score for this request, each with the feature row
        the learned ranker weighs (search/ranker.py): what scripts/train_ranker.py learns from."""
        found = self._find(request)
        ranked, docs, rows = features(found, request, by_session(found.candidates)[:count])
        return [(docs[g[0].number].session_id, row) for g, row in zip(ranked, rows, strict=True)]

    def _find(self, request: SearchRequest) -> Found:
        """Every ranking's candidates, fused."""
        check_request(request, self.max_query_chars, MAX_LIMIT)
        gen = self.generation()
        terms = analyze_query(request.query)
        candidates: dict[int, Candidate] = {}
        rankings: list[list[int]] = []
        weights: list[float] = []

        use_keyword = request.mode in ("hybrid", "keyword")
        use_vectors = request.mode in ("hybrid", "vector")
        keyword: Future[list[KeywordHit]] | None = None
        if use_keyword and use_vectors:  # beside the query embedding and the vector searches
            keyword = self._pool.submit(gen.keyword.search, terms, request.filters,
                                        KEYWORD_CANDIDATES)
        translated: Future[list[KeywordHit]] | None = None
        # hybrid only: keyword mode searches the words as typed (an identifier, a name)
        if request.mode == "hybrid" and self.translates:  # a cold process reads the dictionary there
            translated = self._pool.submit(search_translated, gen.keyword, terms,
                                           request.filters, KEYWORD_CANDIDATES, self.data.cache)
        vector: np.ndarray | None = None
        searches: list[VectorSearch] = []
        if use_vectors:
            # A cold process loads the model on a worker (mostly native work, off the GIL)
            # while this thread opens the vector store.
            embedding = self._pool.submit(self._embed_query, request.query)
            gen.vectors  # noqa: B018 - opened here, beside the embedding
            vector = (embedding.result() if uses_vectors(request, self.embedder.multilingual)
                      else None)
        if vector is not None:
            gen.check_embedder(self.embedder.name)
            searches = start_vector_searches(self._pool, gen, request, vector,
                                             self.embedder.multilingual)

        hits = []
        words_known = True
        if use_keyword:
            hits = (keyword.result() if keyword is not None
                    else gen.keyword.search(terms, request.filters, KEYWORD_CANDIDATES))
            for rank, hit in enumerate(hits, start=1):
                c = from_keyword(candidates, hit)
                c.keyword, c.keyword_rank = hit.score, rank
            rankings.append([h.key_no for h in hits])
            weights.append(WEIGHT_KEYWORD)
        if translated is not None:
            ranked, weight = dictionary_ranking(translated.result(), candidates, hits)
            rankings.append(ranked)
            weights.append(weight)

        if vector is not None:
            # Not one query word occurs in the archive: likely about something it does not hold,
            # so only a clearly strong semantic match may answer (honest "no match").
            words_known = bool(hits) or bool(gen.keyword.search(terms, request.filters, 1))
            extra = 0.0 if words_known else UNKNOWN_WORDS_EXTRA_MARGIN
            floor = self._background().floor
            for ranked, weight in vector_rankings(request, vector, searches, candidates, floor,
                                                  extra):
                rankings.append(ranked)
                weights.append(weight)

        if request.mode != "vector":
            for ranked, weight in date_rankings(gen, request, terms, vector, candidates):
                rankings.append(ranked)
                weights.append(weight)

        for number, score in reciprocal_rank_fusion(rankings, weights, k=RRF_K):
            candidates[number].fused = score
        if request.memory_rank == "relevance" and self.memory_relevance is not None:
            weigh_by_relevance(candidates, self.memory_relevance)
        return Found(gen, terms, candidates, words_known)

    def _embed_query(self, query: str) -> np.ndarray:
        vector = self.embedder.embed_query(query)
        self._background().prepare()  # the floor's reference lines, needed next
        return vector

    def _background(self) -> Background:
        if self._background_floor is None or self._background_floor.embedder is not self.embedder:
            self._background_floor = Background(self.embedder, self.data.cache)
        return self._background_floor

    def _ranker_for(self, request: SearchRequest) -> Ranker | None:
        """The learned ranker when it orders this request's sessions: hybrid mode, not by
        memory relevance, made for this embedder; with `strict`, its strict floors."""
        ranker = self._ranker
        if ranker is None or request.mode != "hybrid" or request.memory_rank == "relevance" \
                or not ranker.applies_to(self.embedder.name):
            return None
        return ranker.with_floors("strict") if request.strict else ranker
