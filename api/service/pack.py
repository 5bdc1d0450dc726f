"""Context packs: the best evidence for a question within a token budget, cited, for an agent to
paste into its context (`recall pack`, `POST /v1/pack`, MCP `context_pack`).

The pack is built from one hybrid search:

- what stands now comes first: each current statement about the query that replaced an
  earlier one, with the statements it replaced in one line (search/current.py);
- then the decisions of the sessions found, newest session first, so that when sessions
  disagree the latest decision leads;
- then the messages the search matched, best first, each the whole message (cut to
  EXCERPT_CHARS) rather than the snippet;
- the same text is never given twice (whitespace and case aside);
- excerpts are added while the Markdown stays within the budget (models.estimate_tokens, aware
  of CJK), and the ones left out are counted.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import msgspec

from models import InvalidQuery, SearchRequest, Session, estimate_tokens

if TYPE_CHECKING:
    from api.service.archive import Archive
    from models import SearchResponse

__all__ = ["ContextPack", "PackExcerpt", "build_pack", "pack_request"]

EXCERPT_CHARS = 800
SEARCH_SESSIONS = 10
MESSAGES_PER_SESSION = 5
MIN_BUDGET, MAX_BUDGET = 100, 50_000
_SPACE = re.compile(r"\s+")


class PackExcerpt(msgspec.Struct, frozen=True):
    session_id: str
    date: str
    agent: str | None  # the session's channel: claude-code, codex, telegram, ...
    kind: str  # "current" (what stands now), "decision" or the message's role
    text: str
    message_id: str | None = None  # None for a decision of the session


class ContextPack(msgspec.Struct, frozen=True):
    query: str
    budget: int
    estimated_tokens: int
    excerpts: tuple[PackExcerpt, ...]
    omitted: int  # excerpts found that did not fit the budget
    markdown: str


def build_pack(search: SearchResponse, archive: Archive, budget: int) -> ContextPack:
    """The pack of one search's results, within `budget` tokens."""
    sessions = {hit.session_id: archive.session(hit.session_id) for hit in search.results}
    found = _current(search) + _decisions(sessions) + _messages(search, sessions)
    header = f"## Context from past sessions for: {search.query}\n"
    lines, kept, seen, omitted = [header], [], set(), 0
    used = estimate_tokens(header)
    for excerpt in found:
        key = _SPACE.sub(" ", excerpt.text).strip().lower()
        if key in seen:
            continue
        seen.add(key)
        line = _line(excerpt)
        cost = estimate_tokens(line)
        if used + cost > budget:
            omitted += 1
            continue
        lines.append(line)
        kept.append(excerpt)
        used += cost
    return ContextPack(search.query, budget, used, tuple(kept), omitted, "\n".join(lines) + "\n")


def pack_request(query: str, budget: int) -> SearchRequest:
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InvalidQuery(f"the budget must be between {MIN_BUDGET} and {MAX_BUDGET} tokens")
    return SearchRequest(query=query, limit=SEARCH_SESSIONS,
                         messages_per_session=MESSAGES_PER_SESSION)


def _current(search: SearchResponse) -> list[PackExcerpt]:
    out, seen = [], set()
    for hit in search.results:
        for fact in hit.facts:
            if fact.status != "current" or not fact.supersedes or fact.id in seen:
                continue
            seen.add(fact.id)
            history = "; ".join(f"{r.text} ({r.date})" for r in fact.supersedes)
            out.append(PackExcerpt(hit.session_id, fact.valid_from, hit.channel, "current",
                                   _clip(f"{fact.text} (replaces: {history})")))
    return out


def _decisions(sessions: dict[str, Session]) -> list[PackExcerpt]:
    newest_first = sorted(sessions.values(), key=lambda s: s.date, reverse=True)
    return [PackExcerpt(s.session_id, s.date, s.channel, "decision",
                        _clip(d.text + (f" ({d.context})" if d.context else "")))
            for s in newest_first for d in s.decisions]


def _messages(search: SearchResponse, sessions: dict[str, Session]) -> list[PackExcerpt]:
    out = []
    for hit in search.results:
        session = sessions[hit.session_id]
        by_id = {m.id: m for m in session.messages}
        for found in hit.messages:
            message = by_id.get(found.id) if found.id else None
            text = message.content if message else found.snippet  # a summary or memory hit
            kind = (found.memory_type and f"memory: {found.memory_type}") or found.role
            out.append(PackExcerpt(session.session_id, session.date, session.channel, kind,
                                   _clip(text), found.id))
    return out


def _line(e: PackExcerpt) -> str:
    cite = " · ".join(p for p in (e.date, e.agent, f"session `{e.session_id}`",
                                  f"message `{e.message_id}`" if e.message_id else None) if p)
    return f"- **{e.kind}** ({cite}): {e.text}"


def _clip(text: str) -> str:
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS].rstrip() + "…"
