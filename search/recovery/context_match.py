"""How well each snapshot matches the current context: embeddings when available, else words.

Raw embedding similarities mean little on their own (multilingual-e5 puts unrelated text at
0.78-0.86 cosine), so every similarity is read against a *background*: the context's best
similarity to a few generic chat lines that answer nothing (search/background.py). A snapshot
matches only if it beats that background; relevance is its margin over the background divided by
the best candidate's margin (or by the embedder's own similarity_margin when the best barely
clears it, so that noise between near-equal candidates is not blown up to 0-vs-1):

    relevance = clamp((cos - background) / max(best_cos - background, embedder.similarity_margin))

A snapshot's cosine is the better of the whole snapshot and the mean of its two best items
(description, intents, facts, tasks, context): a few exact items ("USJ门票价格问答", "USJ三人门票
约3万日元") count as much as a long summary, while one item matching by accident counts for half.
Empty snapshots have relevance 0: there is nothing to match.

Without an embedder, the share of the context's words found in the snapshot plays the cosine,
with WORD_MATCH as the background: a snapshot must hold more than 15% of the context's words
(CJK bigrams and common words give unrelated text in the same language 5-15%).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from models.snapshot import Snapshot, snapshot_text
from search.background import GENERIC_LINES_EN, GENERIC_LINES_ZH
from search.recovery.text_overlap import content_terms, coverage, query_terms

if TYPE_CHECKING:  # numpy is loaded by the embedding path, which has an embedder (and numpy)
    import numpy as np

    from indexer.embedding.embedders import Embedder

__all__ = ["WORD_MATCH", "ContextMatch", "match_context", "split_clauses", "uncovered_clauses"]

WORD_MATCH = 0.15  # share of the context's words a snapshot must beat to match it (chance level)
_DEFAULT_MARGIN = 0.03
_CLAUSE_END = re.compile(r"(?<=[。！？!?；;\n])|(?<=[.])\s+")


@dataclass
class ContextMatch:
    """Relevance of each snapshot (by id) to the current context."""

    method: str  # "embedding" or "words"
    relevance: dict[str, float] = field(default_factory=dict)  # 0..1, normalized
    similarity: dict[str, float] = field(default_factory=dict)  # raw cosine or word share
    background: float = 0.0  # what text unrelated to the context scores
    # Embeddings of each snapshot's whole text and items, kept for uncovered_clauses.
    vectors: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def matched(self) -> bool:
        """True when some snapshot beats the background: the context is about something here."""
        return any(r > 0 for r in self.relevance.values())


def snapshot_items(snapshot: Snapshot) -> list[str]:
    """The snapshot's texts one by one: description, intents, facts, tasks, context."""
    items = [snapshot.description]
    items += [i.description for i in snapshot.intents]
    items += [f.statement for f in snapshot.facts]
    items += [t.description for t in snapshot.tasks]
    items.append(snapshot.context)
    return [text for text in items if text and text.strip()]


def match_context(snapshots: Sequence[Snapshot], context: str,
                  embedder: Embedder | None) -> ContextMatch:
    """Relevance of each snapshot to the context; see the module docstring for the rule."""
    live = [s for s in snapshots if not s.is_empty]
    if embedder is not None:
        result = _by_embedding(live, context, embedder)
    else:
        result = _by_words(live, context)
    for snapshot in snapshots:
        result.relevance.setdefault(snapshot.id, 0.0)
    return result


def _by_embedding(snapshots: list[Snapshot], context: str, embedder: Embedder) -> ContextMatch:
    import numpy as np

    query = embedder.embed_query(context)
    background = _background(embedder, query)
    if not snapshots:
        return ContextMatch("embedding", background=background)
    # Whole texts and single items in separate batches: one batch would pad every short item
    # to the longest snapshot's length, several times the work.
    whole = embedder.embed_passages([snapshot_text(s) for s in snapshots])
    per_snapshot = [snapshot_items(s) for s in snapshots]
    items = embedder.embed_passages([text for texts in per_snapshot for text in texts])
    vectors: dict[str, np.ndarray] = {}
    start = 0
    for n, (snapshot, texts) in enumerate(zip(snapshots, per_snapshot, strict=True)):
        vectors[snapshot.id] = np.vstack([whole[n : n + 1], items[start : start + len(texts)]])
        start += len(texts)
    similarity = {sid: _snapshot_similarity(v @ query) for sid, v in vectors.items()}
    margin = float(getattr(embedder, "similarity_margin", _DEFAULT_MARGIN)) or _DEFAULT_MARGIN
    return ContextMatch("embedding", _normalize(similarity, background, margin), similarity,
                        background, vectors)


def _snapshot_similarity(cosines: np.ndarray) -> float:
    """cosines[0] is the whole snapshot's, the rest its items'."""
    import numpy as np

    items = np.sort(cosines[1:])[::-1][:2]
    return max(float(cosines[0]), float(items.mean()) if len(items) else float(cosines[0]))


def _by_words(snapshots: list[Snapshot], context: str) -> ContextMatch:
    wanted = query_terms(context)
    similarity = {s.id: coverage(wanted, content_terms(snapshot_text(s))) for s in snapshots}
    # A snapshot must hold WORD_MATCH of the context's words before it counts as matching.
    return ContextMatch("words", _normalize(similarity, WORD_MATCH, WORD_MATCH), similarity,
                        WORD_MATCH)


def _normalize(similarity: dict[str, float], background: float,
               min_spread: float) -> dict[str, float]:
    if not similarity:
        return {}
    spread = max(max(similarity.values()) - background, min_spread)
    return {sid: min(1.0, max(0.0, (value - background) / spread))
            for sid, value in similarity.items()}


_background_cache: dict[tuple[str, int], np.ndarray] = {}


def _background(embedder: Embedder, query: np.ndarray) -> float:
    # The generic lines are embedded once per vector space (an embedder's name and dimension
    # identify it, as in the index metadata) and reused for every context.
    key = (str(getattr(embedder, "name", type(embedder).__name__)), int(query.shape[0]))
    lines = _background_cache.get(key)
    if lines is None:
        lines = embedder.embed_passages(list(GENERIC_LINES_EN) + list(GENERIC_LINES_ZH))
        _background_cache.clear()  # usually one embedder per process; do not pile them up
        _background_cache[key] = lines
    return float((lines @ query).max())


def split_clauses(context: str) -> list[str]:
    """The context cut at sentence ends (。！？!?;; and '. '), empty pieces dropped."""
    return [c.strip() for c in _CLAUSE_END.split(context) if c and c.strip()]


def uncovered_clauses(snapshot: Snapshot, context: str, embedder: Embedder | None,
                      item_vectors: np.ndarray | None = None) -> tuple[list[str], list[str]]:
    """(covered, uncovered) sentences of the context. A sentence is covered when some item of
    the snapshot matches it as a search hit would match a query: by the embedder's
    similarity_margin above the sentence's background and above its similarity_floor (without
    an embedder: when the snapshot holds WORD_MATCH of the sentence's words). item_vectors:
    the snapshot's vectors from match_context (its whole text, then its items), if at hand."""
    clauses = [c for c in split_clauses(context) if query_terms(c)]
    if not clauses or snapshot.is_empty:
        return [], clauses
    items = [snapshot_text(snapshot), *snapshot_items(snapshot)]
    covered: list[str] = []
    uncovered: list[str] = []
    if embedder is not None:
        if item_vectors is None or len(item_vectors) != len(items):
            item_vectors = embedder.embed_passages(items)
        for clause in clauses:
            query = embedder.embed_query(clause)
            best = float((item_vectors @ query).max())
            floor = max(float(getattr(embedder, "similarity_floor", 0.0)),
                        _background(embedder, query)
                        + float(getattr(embedder, "similarity_margin", _DEFAULT_MARGIN)))
            (covered if best >= floor else uncovered).append(clause)
    else:
        available = content_terms("\n".join(items))
        for clause in clauses:
            share = coverage(query_terms(clause), available)
            (covered if share >= WORD_MATCH else uncovered).append(clause)
    return covered, uncovered
