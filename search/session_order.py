"""Sessions best first: in hybrid mode by the learned ranker over their evidence (search/ranker.py),
else by their fused scores."""

from __future__ import annotations

from dataclasses import dataclass

from indexer.stores.generation import Generation
from indexer.stores.keyword import StoredDoc
from indexer.text.analysis import QueryTerms
from models import SearchRequest
from search.candidates import Candidate, best_keyword, by_session, session_score
from search.query_intent import asks_for_history
from search.ranker import QueryContext, Ranker, evidence_features, query_term_list

__all__ = ["Found", "Ranked", "features", "rank_sessions"]

# session groups best first, their scores, and the stored documents read on the way
Ranked = tuple[list[list[Candidate]], list[float], dict[int, StoredDoc]]


@dataclass
class Found:
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


def rank_sessions(found: Found, request: SearchRequest, ranker: Ranker | None) -> Ranked:
    """Session groups best first, with their scores: the learned ranker's probabilities above
    its floor, or else (no ranker for this request) the fused session scores."""
    ranked = by_session(found.candidates)
    if ranker is None or not ranked:
        ranked = ranked[: request.limit]
        return ranked, [session_score(g) for g in ranked], {}
    context = found.context(request.query)
    ranked, docs, rows = features(found, request,
                                  ranked[: max(request.limit, ranker.candidates)], context)
    probabilities: list[float] = ranker.probabilities(rows).tolist()
    asks = _asks(request, context)
    kept = ranker.kept(probabilities, rows, asks)[: request.limit]
    return [ranked[i] for i in kept], [probabilities[i] for i in kept], docs


def features(found: Found, request: SearchRequest, groups: list[list[Candidate]],
             context: QueryContext | None = None
             ) -> tuple[list[list[Candidate]], dict[int, StoredDoc], list[list[float]]]:
    """The groups whose evidence could be read, those documents, and each group's feature
    row for the learned ranker."""
    docs = _evidence_docs(found.gen, groups)
    groups = [g for g in groups if g[0].number in docs]
    return groups, docs, evidence_features(groups, docs,
                                           context or found.context(request.query))


def _evidence_docs(gen: Generation, groups: list[list[Candidate]]) -> dict[int, StoredDoc]:
    """The stored documents the ranker reads, by candidate number: each group's best
    candidate and its best keyword hit."""
    wanted = [c for g in groups for c in {id(c): c for c in (g[0], best_keyword(g))}.values()]
    docs = {c.number: c.hit.doc() for c in wanted if c.hit is not None}
    keys = [c.key for c in wanted if c.hit is None and c.key]
    by_key = gen.keyword.fetch(keys) if keys else {}
    docs.update({c.number: by_key[c.key] for c in wanted if c.key in by_key})
    return docs


def _asks(request: SearchRequest, context: QueryContext) -> str | None:
    """What state the query asks about: as the request says, else as its words do."""
    if request.when is not None:
        return "latest" if request.when == "current" else "history"
    if context.asks_latest:
        return "latest"
    return "history" if asks_for_history(request.query) else None
