"""Hybrid search: BM25 and vector candidates under the same filters, fused, grouped by session."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import msgspec

from indexer.stores.documents import MEMORY_ROLE_PREFIX
from indexer.stores.generation import Generation
from indexer.stores.keyword import KeywordHit, StoredDoc
from indexer.text.analysis import QueryTerms, analyze_query, is_cjk_text
from models import (
    IndexUnavailable,
    MessageHit,
    SearchRequest,
    SearchResponse,
    SessionHit,
)
from search.background import Background
from search.candidates import (
    Candidate,
    best_keyword,
    by_session,
    from_keyword,
    from_vector,
    score_parts,
    session_score,
    weigh_by_relevance,
)
from search.fusion import reciprocal_rank_fusion
from search.query_dates import query_dates
from search.query_intent import asks_for_history
from search.ranker import QueryContext, Ranker, evidence_features, learned_ranker, query_term_list
from search.request_checks import check_request
from search.snippets import make_snippet

if TYPE_CHECKING:  # the vector side is loaded by the first search that uses it
    import numpy as np

    from indexer.embedding.embedders import Embedder
    from indexer.stores.layout import DataDir
    from indexer.stores.vector import VectorHit

__all__ = ["Searcher"]

# one running vector search: its language (None: both), its fusion weight, its hits to come
_VectorSearch = tuple[str | None, float, "Future[list[VectorHit]]"]

log = logging.getLogger(__name__)

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
# rankings restricted to the days a query names (search/query_dates.py)
WEIGHT_DATE_KEYWORD = 0.5
WEIGHT_DATE_VECTOR = 1.0
DATE_VECTOR_CANDIDATES = 20
# vector hits must rise this much further above the background when no query word is known
UNKNOWN_WORDS_EXTRA_MARGIN = 0.015
MAX_LIMIT = 100
REFRESH_AT_LEAST_EVERY = 30.0  # seconds
MAX_QUERY_CHARS = 2_000


@dataclass
class _Found:
    """What the rankings of one request found, before grouping."""

    gen: Generation
    terms: QueryTerms
    candidates: dict[int, Candidate]
    words_known: bool  # some query word occurs in the archive

    def context(self, query: str) -> QueryContext:
        """What the learned ranker knows of the query, the rarity of its words included."""
        frequencies, documents = self.gen.keyword.document_frequencies(
            query_term_list(self.terms))
        return QueryContext.of(query, self.terms, frequencies, documents,
                               words_known=self.words_known)


class Searcher:
    """Reads the live generation; notices a reindex switch and reopens."""

    def __init__(self, data: DataDir, embedder: Callable[[], Embedder], *,
                 max_query_chars: int = MAX_QUERY_CHARS,
                 memory_relevance: Callable[[list[str]], dict[str, float]] | None = None,
                 ranker: Ranker | None | Literal["learned"] = "learned") -> None:
        self.data = data
        # ranks sessions in hybrid mode when made for this embedder (search/ranker.py)
        self.ranker = learned_ranker("learned") if ranker == "learned" else ranker
        # memory id -> relevance now, for memory_rank "relevance" (api/service/relevance.py)
        self.memory_relevance = memory_relevance
        self.max_query_chars = max_query_chars
        self._embedder_factory = embedder
        self._embedder: Embedder | None = None
        self._gen: Generation | None = None
        self._gen_name: str | None = None
        self._stamp, self._refreshed = 0, 0.0
        # the keyword search and one vector search per language run side by side
        self._pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="search")
        self._background_floor: Background | None = None

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
        return SearchResponse(request.query, self._group(found, request))

    def ranking_rows(self, request: SearchRequest, count: int) -> list[tuple[str, list[float]]]:
        """The first `count` sessions by fused score for this request, each with the feature row
        the learned ranker weighs (search/ranker.py): what scripts/train_ranker.py learns from."""
        found = self._find(request)
        ranked, docs, rows = self._features(found, request, by_session(found.candidates)[:count])
        return [(docs[g[0].number].session_id, row) for g, row in zip(ranked, rows, strict=True)]

    def _find(self, request: SearchRequest) -> _Found:
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
        vector, searches = None, []
        if use_vectors:
            # A cold process loads the model on a worker (mostly native work, off the GIL)
            # while this thread opens the vector store.
            embedding = self._pool.submit(self._embed_query, request.query)
            gen.vectors  # noqa: B018 - opened here, beside the embedding
            vector = embedding.result() if self._use_vectors(request) else None
        if vector is not None:
            gen.check_embedder(self.embedder.name)
            searches = self._start_vector_searches(gen, request, vector)

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

        if vector is not None:
            # Not one query word occurs in the archive: likely about something it does not hold,
            # so only a clearly strong semantic match may answer (honest "no match").
            words_known = bool(hits) or bool(gen.keyword.search(terms, request.filters, 1))
            extra = 0.0 if words_known else UNKNOWN_WORDS_EXTRA_MARGIN
            for ranked, weight in self._vector_rankings(request, vector, searches, candidates, extra):
                rankings.append(ranked)
                weights.append(weight)

        if request.mode != "vector":
            for ranked, weight in self._date_rankings(gen, request, terms, vector, candidates):
                rankings.append(ranked)
                weights.append(weight)

        for number, score in reciprocal_rank_fusion(rankings, weights, k=RRF_K):
            candidates[number].fused = score
        if request.memory_rank == "relevance" and self.memory_relevance is not None:
            weigh_by_relevance(candidates, self.memory_relevance)
        return _Found(gen, terms, candidates, words_known)

    def _date_rankings(self, gen: Generation, request: SearchRequest, terms: QueryTerms,
                       vector: np.ndarray | None,
                       candidates: dict[int, Candidate]) -> list[tuple[list[int], float]]:
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

    def _start_vector_searches(self, gen: Generation, request: SearchRequest,
                               vector: np.ndarray) -> list[_VectorSearch]:
        """A multilingual model prefers text in the query's language, so in hybrid mode each
        passage language is ranked on its own and fusion gives both a fair place. The searches
        wait on LanceDB's own threads: they run side by side."""
        if self.embedder.multilingual:
            same = "cjk" if is_cjk_text(request.query) else "other"
            other = "other" if same == "cjk" else "cjk"
            lists: list[tuple[str | None, float]] = [(same, WEIGHT_SAME_LANGUAGE),
                                                     (other, WEIGHT_OTHER_LANGUAGE)]
        else:
            lists = [(None, WEIGHT_SAME_LANGUAGE)]
        return [(lang, weight, self._pool.submit(gen.vectors.search, vector, request.filters,
                                                 VECTOR_CANDIDATES, lang))
                for lang, weight in lists]

    def _vector_rankings(self, request: SearchRequest, vector: np.ndarray,
                         searches: list[_VectorSearch],
                         candidates: dict[int, Candidate],
                         extra_margin: float = 0.0) -> list[tuple[list[int], float]]:
        """Vector hits above the query's floor, one ranking per language; vector mode ranks all
        hits by how far they rise above the background of their own language."""
        out: list[tuple[list[int], float]] = []
        margins: dict[int, float] = {}
        same_language = searches[0][0] if searches else None
        for lang, weight, found in searches:
            ranked: list[int] = []
            floor = self._background().floor(vector, lang) + extra_margin
            for hit in found.result():
                if hit.similarity < floor:
                    continue  # below the floor it is noise
                c = from_vector(candidates, hit)
                if c.number in ranked:
                    continue  # a message counts once (its best passage)
                ranked.append(c.number)
                margins.setdefault(c.number, hit.similarity - floor)
                if lang == same_language:
                    c.same_margin = hit.similarity - floor
                else:
                    c.other_margin = hit.similarity - floor
                if c.vector is None or hit.similarity > c.vector:
                    c.vector, c.vector_rank = hit.similarity, len(ranked)
            out.append((ranked, weight))
        if request.mode == "vector":
            return [(sorted(margins, key=lambda key: -margins[key]), 1.0)]
        return out

    def _embed_query(self, query: str) -> np.ndarray:
        vector = self.embedder.embed_query(query)
        self._background().prepare()  # the floor's reference lines, needed next
        return vector

    def _background(self) -> Background:
        if self._background_floor is None or self._background_floor.embedder is not self.embedder:
            self._background_floor = Background(self.embedder, self.data.cache)
        return self._background_floor

    def _use_vectors(self, request: SearchRequest) -> bool:
        # An English-only model turns Chinese into [UNK] noise; in hybrid mode its vectors
        # would only push good keyword hits down, so they are left out for CJK queries.
        if request.mode == "vector":
            return True
        return self.embedder.multilingual or not is_cjk_text(request.query)

    def _uses_ranker(self, request: SearchRequest) -> bool:
        return (self.ranker is not None and request.mode == "hybrid"
                and request.memory_rank != "relevance" and self.ranker.applies_to(self.embedder.name))

    def _evidence_docs(self, gen: Generation,
                       groups: list[list[Candidate]]) -> dict[int, StoredDoc]:
        """The stored documents the ranker reads, by candidate number: each group's best
        candidate and its best keyword hit."""
        wanted = [c for g in groups for c in {id(c): c for c in (g[0], best_keyword(g))}.values()]
        docs = {c.number: c.hit.doc() for c in wanted if c.hit is not None}
        keys = [c.key for c in wanted if c.hit is None and c.key]
        by_key = gen.keyword.fetch(keys) if keys else {}
        docs.update({c.number: by_key[c.key] for c in wanted if c.key in by_key})
        return docs

    def _features(self, found: _Found, request: SearchRequest, groups: list[list[Candidate]],
                  context: QueryContext | None = None
                  ) -> tuple[list[list[Candidate]], dict[int, StoredDoc], list[list[float]]]:
        """The groups whose evidence could be read, those documents, and each group's feature
        row for the learned ranker."""
        docs = self._evidence_docs(found.gen, groups)
        groups = [g for g in groups if g[0].number in docs]
        return groups, docs, evidence_features(groups, docs,
                                               context or found.context(request.query))

    def _rank(self, found: _Found, request: SearchRequest
              ) -> tuple[list[list[Candidate]], list[float], dict[int, StoredDoc]]:
        """Session groups best first, with their scores: the learned ranker's probabilities above
        its floor, or else the fused session scores."""
        ranked = by_session(found.candidates)
        if not self._uses_ranker(request) or not ranked:
            ranked = ranked[: request.limit]
            return ranked, [session_score(g) for g in ranked], {}
        assert self.ranker is not None
        ranker = self.ranker.with_floors("strict") if request.strict else self.ranker
        context = found.context(request.query)
        ranked, docs, rows = self._features(found, request,
                                            ranked[: max(request.limit, ranker.candidates)],
                                            context)
        probabilities = ranker.probabilities(rows).tolist()
        asks = _asks(request, context)
        kept = ranker.kept(probabilities, rows, asks)[: request.limit]
        return [ranked[i] for i in kept], [probabilities[i] for i in kept], docs

    def _group(self, found: _Found, request: SearchRequest) -> tuple[SessionHit, ...]:
        gen, terms = found.gen, found.terms
        ranked, scores, docs = self._rank(found, request)
        groups = [group[: request.messages_per_session] for group in ranked]
        # Only the documents shown are read: keyword hits by address, the rest in one fetch by
        # key, with each session's own document for its title.
        docs.update({c.number: c.hit.doc() for shown in groups for c in shown
                     if c.hit is not None and c.number not in docs})
        session_ids = [_session_id(shown, docs) for shown in groups]
        by_key = {doc.key: doc for doc in docs.values()}
        wanted = [c.key for shown in groups for c in shown if c.hit is None and c.key]
        wanted += [f"{sid}\x1f" for sid in session_ids if sid]
        by_key.update(gen.keyword.fetch([key for key in wanted if key not in by_key]))
        results = []
        for session_id, shown, group, score in zip(session_ids, groups, ranked, scores, strict=True):
            header = by_key.get(f"{session_id}\x1f")
            looked_up = [(c, docs.get(c.number) or by_key.get(c.key or "")) for c in shown]
            shown_docs = [(c, doc) for c, doc in looked_up if doc is not None]
            first = shown_docs[0][1] if shown_docs else header
            if first is None or session_id is None:
                continue
            results.append(SessionHit(
                session_id=session_id,
                date=_iso_day(first.day),
                channel=first.channel or None,
                score=round(score, 6),
                messages=tuple(self._message_hit(doc, c, terms) for c, doc in shown_docs),
                title=header.text.split("\n", 1)[0][:200] if header else None,
                score_parts=score_parts(group),
            ))
        return tuple(results)

    @staticmethod
    def _message_hit(doc: StoredDoc, c: Candidate, terms: QueryTerms) -> MessageHit:
        snippet, highlights = make_snippet(doc.text, terms)
        role, memory_type = doc.role, None
        if role.startswith(MEMORY_ROLE_PREFIX):
            role, memory_type = "memory", role[len(MEMORY_ROLE_PREFIX):]
        return MessageHit(id=doc.message_id, role=role, time=doc.time, snippet=snippet,
                          score=round(c.fused, 6), highlights=highlights, memory_type=memory_type)


def _session_id(shown: list[Candidate], docs: dict[int, StoredDoc]) -> str | None:
    for c in shown:
        if c.number in docs:
            return docs[c.number].session_id
    return next((c.session_id for c in shown if c.session_id), None)


def _iso_day(day: int) -> str:
    text = f"{day:08d}"
    return f"{text[:4]}-{text[4:6]}-{text[6:]}"


def _asks(request: SearchRequest, context: QueryContext) -> str | None:
    """What state the query asks about: as the request says, else as its words do."""
    if request.when is not None:
        return "latest" if request.when == "current" else "history"
    if context.asks_latest:
        return "latest"
    return "history" if asks_for_history(request.query) else None
