"""What one search found: a candidate per message or session document, and its session's score."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from indexer.stores.documents import id_number
from search.relevance import is_memory_id

if TYPE_CHECKING:
    from indexer.stores.keyword import KeywordHit
    from indexer.stores.vector import VectorHit

__all__ = ["SECOND_HIT_SHARE", "Candidate", "best_keyword", "by_session", "from_keyword",
           "from_vector", "score_parts", "session_score", "weigh_by_relevance"]

# a session's score: its best message plus a share of its second best (more evidence, more trust)
SECOND_HIT_SHARE = 0.5


@dataclass
class Candidate:
    """A message or session document some ranking found, known by its key's number
    (indexer.stores.documents.id_number). A keyword hit tells no more until its stored document is read;
    a vector hit brings the key and ids along."""

    number: int
    session_number: int
    hit: KeywordHit | None = None  # reads the stored document
    key: str | None = None
    session_id: str | None = None
    message_id: str | None = None
    fused: float = 0.0
    keyword: float | None = None
    keyword_rank: int | None = None
    vector: float | None = None
    vector_rank: int | None = None
    # how far its best passage rose above the background floor, in the query's own language
    # and in the other one (search/background.py)
    same_margin: float | None = None
    other_margin: float | None = None
    on_named_day: bool = False  # found again inside the days the query names
    translated_rank: int | None = None  # its rank by the query's translation (dictionary)
    relevance: float | None = None  # memory relevance, when ranking memories by it

    def learn_ids(self) -> None:
        if self.key is None and self.hit is not None:
            doc = self.hit.doc()
            self.key, self.session_id, self.message_id = doc.key, doc.session_id, doc.message_id


def from_keyword(candidates: dict[int, Candidate], hit: KeywordHit) -> Candidate:
    c = candidates.get(hit.key_no)
    if c is None:
        c = candidates[hit.key_no] = Candidate(hit.key_no, hit.session_no)
    if c.hit is None:
        c.hit = hit
    return c


def from_vector(candidates: dict[int, Candidate], hit: VectorHit) -> Candidate:
    number = id_number(hit.key)
    c = candidates.get(number)
    if c is None:
        c = candidates[number] = Candidate(number, id_number(hit.session_id))
    if c.key is None:
        c.key, c.session_id, c.message_id = hit.key, hit.session_id, hit.message_id
    return c


def session_score(group: list[Candidate]) -> float:
    """The fused score of a session's candidates, best first."""
    second = group[1].fused if len(group) > 1 else 0.0
    return group[0].fused + SECOND_HIT_SHARE * second


def score_parts(group: list[Candidate]) -> dict[str, float]:
    parts: dict[str, float] = {"fused": round(group[0].fused, 6)}
    keyword = [c.keyword for c in group if c.keyword is not None]
    vector = [c.vector for c in group if c.vector is not None]
    if group[0].relevance is not None:
        parts["relevance"] = round(group[0].relevance, 4)
    if keyword:
        parts["keyword"] = round(max(keyword), 4)
    if vector:
        parts["vector"] = round(max(vector), 4)
    return parts


def best_keyword(group: list[Candidate]) -> Candidate:
    """The candidate of a group that ranked best by keywords (the first one if none did)."""
    ranked = [c for c in group if c.keyword_rank is not None]
    return min(ranked, key=lambda c: c.keyword_rank or 0) if ranked else group[0]


def by_session(candidates: dict[int, Candidate]) -> list[list[Candidate]]:
    """Candidates grouped by session, each group best first, groups by fused session score."""
    by_session: dict[int, list[Candidate]] = {}
    for c in sorted(candidates.values(), key=lambda c: -c.fused):
        by_session.setdefault(c.session_number, []).append(c)
    return sorted(by_session.values(), key=lambda group: -session_score(group))


def weigh_by_relevance(candidates: dict[int, Candidate],
                       lookup: Callable[[list[str]], dict[str, float]]) -> None:
    """Memory hits score match x relevance: of two equal matches, the memory used more and more
    lately comes first. Message hits keep their score."""
    for c in candidates.values():
        c.learn_ids()  # ranking by relevance needs every hit's ids
    memories = {c.message_id: c for c in candidates.values()
                if c.message_id and c.session_id and is_memory_id(c.session_id, c.message_id)}
    found = lookup(list(memories)) if memories else {}
    for memory_id, c in memories.items():
        c.relevance = found.get(memory_id, 1.0)  # no row yet: indexed before relevance was kept
        c.fused *= c.relevance
