"""Search requests and results: sessions, best first, each with its best messages."""

from __future__ import annotations

from typing import Literal, get_args

import msgspec

from models.facts import FactRef, FactStatus, TrackedFact

__all__ = ["MEMORY_RANKS", "SEARCH_SCOPES", "MessageHit", "SearchFilters", "SearchRequest", "SearchResponse", "SessionHit"]

SearchMode = Literal["hybrid", "keyword", "vector"]
# what a search looks through: the conversations, the memories extracted from them, or both
SearchScope = Literal["messages", "memories", "all"]
SEARCH_SCOPES: tuple[str, ...] = get_args(SearchScope)
# how memory hits are ordered: by match alone (default), or by match x memory relevance
MemoryRank = Literal["match", "relevance"]
MEMORY_RANKS: tuple[str, ...] = get_args(MemoryRank)
# the state asked about: how things stand now, or how they stood at first
SearchWhen = Literal["current", "history"]
SEARCH_WHENS: tuple[str, ...] = get_args(SearchWhen)


class SearchFilters(msgspec.Struct, frozen=True, omit_defaults=True):
    """Applied inside both indexes, before the top-k cut. Dates are inclusive YYYY-MM-DD."""

    since: str | None = None
    until: str | None = None
    channel: str | None = None
    participant: str | None = None
    role: str | None = None
    session: str | None = None
    # any of these inclusive (YYYY-MM-DD, YYYY-MM-DD) ranges; search fills it from dates named
    # in the query ("March 29", "上周")
    date_ranges: tuple[tuple[str, str], ...] = ()
    scope: SearchScope = "messages"
    memory_type: str | None = None  # with scope "memories": only this type (user, feedback...)

    def is_empty(self) -> bool:
        return self == SearchFilters()


class SearchRequest(msgspec.Struct, frozen=True, omit_defaults=True):
    query: str
    mode: SearchMode = "hybrid"
    filters: SearchFilters = SearchFilters()
    limit: int = 10
    messages_per_session: int = 3
    memory_rank: MemoryRank = "match"
    # only sessions with real evidence, and nothing when the archive likely holds no answer
    # (the learned ranker's strict floors, search/ranker.py)
    strict: bool = False
    # current: sessions near the top newest first; history: oldest first; None: as the query's
    # own words ask ("now", "现在", "originally", "原来"), search/query_intent.py
    when: SearchWhen | None = None


class MessageHit(msgspec.Struct, frozen=True):
    id: str | None  # None for a hit on the session's summary, topics or decisions
    role: str
    time: str | None
    snippet: str
    score: float
    # [start, end) character offsets of matched words inside snippet
    highlights: tuple[tuple[int, int], ...] = ()
    memory_type: str | None = None  # set when the hit is an extracted memory (role "memory")
    # for a statement whose value can change (a memory, or the message it was drawn from):
    # current or superseded, what replaced it, and what it replaced (search/current.py)
    status: FactStatus | None = None
    superseded_by: FactRef | None = None
    supersedes: tuple[FactRef, ...] = ()


class SessionHit(msgspec.Struct, frozen=True):
    session_id: str
    date: str
    channel: str | None
    score: float
    messages: tuple[MessageHit, ...]
    title: str | None = None
    # the session's first request, for a session without a title (api/service/sessions.py)
    opening: str | None = None
    # the fused score split by source: rank contributions and raw scores
    score_parts: dict[str, float] = {}
    # statements of this session about the query that were superseded or supersede others,
    # superseded first: what a reader must know before trusting the session (search/current.py)
    facts: tuple[TrackedFact, ...] = ()


class SearchResponse(msgspec.Struct, frozen=True):
    query: str
    results: tuple[SessionHit, ...]
