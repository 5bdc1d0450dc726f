"""Search results that know what is current.

Statements found (memories, the messages they were drawn from, and a session's statements about
the query) are marked current or superseded. A session found for a superseded statement is
answered first by the session holding what stands now (moved up, or brought in when the search
did not find it), unless the question asks how things stood at first (`when="history"`,
"originally", "原来") or in a period it names.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

import msgspec

from indexer.stores.documents import session_text
from models import (
    Memory,
    MessageHit,
    NotFound,
    SearchRequest,
    SearchResponse,
    Session,
    SessionHit,
)
from search.fact_links import FactLinks, FactReader, fact_of, is_about, subject_words
from search.query_dates import query_dates
from search.query_intent import asks_for_history

__all__ = ["CurrentState", "OpenFacts", "ReadSession"]

# opens the facts store for one search (indexer/stores/facts.py: FactStore)
OpenFacts = Callable[[], AbstractContextManager[FactReader]]
# an archived session by id; NotFound when the archive does not hold it
ReadSession = Callable[[str], Session]

SNIPPET_CHARS = 240  # a brought-in message is shown this long


@dataclass(frozen=True)
class CurrentState:
    """Where a search reads what is current: the facts store's links, and the archive for a
    session it brings in."""

    facts: OpenFacts
    session: ReadSession

    def mark(self, response: SearchResponse, request: SearchRequest) -> SearchResponse:
        """The response with statuses on its statements and, unless history is asked for,
        each superseded statement's successor session right above the session that said it."""
        return _mark_current(response, request, self.facts, self.session)


def _mark_current(response: SearchResponse, request: SearchRequest, facts: OpenFacts,
                  session: ReadSession) -> SearchResponse:
    memory_hits = {m.id for hit in response.results for m in hit.messages
                   if m.memory_type is not None and m.id}
    with facts() as store:
        links = FactLinks(store.links(), {})
        linked = set(links.successor) | set(links.predecessors)
        if not linked:
            return response
        links.memories = store.memories(linked | memory_hits)
    query_words = subject_words(request.query)
    results = [_marked(hit, links, linked, query_words) for hit in response.results]
    if not _asks_about_a_past_time(request) and request.filters.session is None:
        results = _current_first(results, links, session, request, query_words)
    return SearchResponse(response.query, tuple(results))


def _asks_about_a_past_time(request: SearchRequest) -> bool:
    """How things stood at first ("originally", "原来", when=history), or in a period the query
    names or filters on ("in early March", "3月"): then what was said then answers, not what
    replaced it. `when="current"` overrides both."""
    if request.when is not None:
        return request.when == "history"
    f = request.filters
    return (asks_for_history(request.query) or bool(f.since or f.until or f.date_ranges)
            or bool(query_dates(request.query)))


def _marked(hit: SessionHit, links: FactLinks, linked: set[str],
            query_words: set[str]) -> SessionHit:
    mine = [m for i, m in links.memories.items() if i in linked and m.session_id == hit.session_id]
    shown = {m.id for m in hit.messages if m.id}
    by_source: dict[str, Memory] = {}
    for statement in mine:  # a message stating two things shows the superseded one
        for message_id in statement.source_message_ids:
            if message_id not in by_source or links.is_superseded(statement.id):
                by_source[message_id] = statement
    messages = []
    for message in hit.messages:
        memory: Memory | None = (links.memories.get(message.id or "")
                                 if message.memory_type is not None
                                 else by_source.get(message.id or ""))
        if memory is None:
            messages.append(message)
            continue
        fact = fact_of(memory, links)
        messages.append(msgspec.structs.replace(
            message, status=fact.status, superseded_by=fact.superseded_by,
            supersedes=fact.supersedes))
    found = [m for m in mine
             if m.id in shown or shown & set(m.source_message_ids) or is_about(m.text, query_words)]
    facts = sorted((fact_of(m, links) for m in found),
                   key=lambda f: (f.status != "superseded", f.valid_from, f.id))
    return msgspec.structs.replace(hit, messages=tuple(messages), facts=tuple(facts))


def _current_first(results: list[SessionHit], links: FactLinks, session: ReadSession,
                   request: SearchRequest, query_words: set[str]) -> list[SessionHit]:
    """Each session found for a superseded statement (about the query, or its best hit) gets
    the session holding what stands now right above it; the others keep their place."""
    ordered = list(results)
    placed: set[str] = set()
    i = 0
    while i < len(ordered):
        hit = ordered[i]
        newest = _newest_for(hit, links, query_words)
        target = newest.session_id if newest else None
        at = next((n for n, h in enumerate(ordered) if h.session_id == target), None)
        if newest is None or target in placed or target == hit.session_id or \
                (at is not None and at < i):
            placed.add(hit.session_id)
            i += 1
            continue
        moved = (_with_fact(ordered.pop(at), newest, links) if at is not None
                 else _brought_in(newest, hit, links, session, request))
        if moved is None:
            placed.add(hit.session_id)
            i += 1
            continue
        ordered.insert(i, msgspec.structs.replace(moved, score=max(moved.score, hit.score)))
        placed.update((moved.session_id, hit.session_id))
        i += 2  # past the successor and the hit it answers for
    return ordered[:request.limit]


def _newest_for(hit: SessionHit, links: FactLinks, query_words: set[str]) -> Memory | None:
    """What now stands for the first superseded statement the session was found for: one
    about the query, or the one its best hit states (a session shows many messages, and a
    statement merely among them is not why it was found)."""
    best = hit.messages[0].id if hit.messages else None
    for fact in hit.facts:
        memory = links.memories.get(fact.id)
        if fact.superseded_by is not None and memory is not None and (
                is_about(fact.text, query_words) or best == fact.id
                or best in memory.source_message_ids):
            newest = links.memories.get(links.newest(fact.id))
            if newest is not None:
                return newest
    return None


def _with_fact(hit: SessionHit, newest: Memory, links: FactLinks) -> SessionHit:
    """A moved hit shows the statement it was moved up for."""
    if any(f.id == newest.id for f in hit.facts):
        return hit
    return msgspec.structs.replace(hit, facts=(*hit.facts, fact_of(newest, links)))


def _brought_in(newest: Memory, hit: SessionHit, links: FactLinks, read: ReadSession,
                request: SearchRequest) -> SessionHit | None:
    """A result for the session the search did not find that holds what stands now: the
    message its statement was drawn from, marked current; None when that session is outside
    the request's filters (another channel or participant, a role or memories asked for)."""
    f = request.filters
    if f.role is not None or f.scope == "memories":
        return None
    try:
        session = read(newest.session_id)
    except NotFound:
        return None
    if (f.channel and (session.channel or "").lower() != f.channel.lower()) or \
            (f.participant and f.participant.lower() not in
             {p.lower() for p in session.participants}):
        return None
    source = next((m for m in session.messages if m.id in newest.source_message_ids), None)
    fact = fact_of(newest, links)
    text = source.content if source else newest.text
    snippet = text[:SNIPPET_CHARS] + ("…" if len(text) > SNIPPET_CHARS else "")
    message = MessageHit(id=source.id if source else None,
                         role=source.role if source else "memory",
                         time=source.time if source else None, snippet=snippet, score=0.0,
                         status="current", supersedes=fact.supersedes)
    title = session_text(session).split("\n", 1)[0][:200] or None  # as the searcher's hits
    return SessionHit(session.session_id, session.date, session.channel, hit.score, (message,),
                      title=title, score_parts={"supersedes": 1.0}, facts=(fact,))
