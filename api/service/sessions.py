"""Reading sessions: one session (whole or within a token budget), listings, facets, stats, health."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from api.service.archive import Archive
from indexer.stores.layout import DataDir
from indexer.stores.lock import writer_active
from indexer.stores.state import SessionRow, State
from models import (
    STATUSES,
    IndexUnavailable,
    InvalidInput,
    Message,
    SearchResponse,
    Session,
    SessionStatus,
    estimate_tokens,
    status_of,
)
from models.files import decode_session
from search.dates import check_day

if TYPE_CHECKING:
    from search.searcher import Searcher

__all__ = [
    "MAX_PAGE",
    "ArchivedSession",
    "FacetValue",
    "Facets",
    "Health",
    "IndexStats",
    "SessionList",
    "SessionSummary",
    "Stats",
    "facets",
    "health",
    "label_hits",
    "list_sessions",
    "read_session",
    "stats",
]

MAX_PAGE = 500


class ArchivedSession(Session, frozen=True, omit_defaults=True):
    """The archive record as stored; with a token budget, only the newest messages that fit,
    and how many were left out."""

    omitted_messages: int | None = None
    estimated_tokens: int | None = None


class Trimmed(msgspec.Struct):
    """A session the retention policy trimmed: its tier and the messages it had before."""

    tier: str
    message_count: int


class SessionSummary(msgspec.Struct):
    session_id: str
    date: str
    channel: str | None
    participants: list[str]
    topics: list[str]
    title: str | None
    summary: str | None
    message_count: int
    category: str | None
    status: SessionStatus  # a session ingested from a file is archived
    trimmed: Trimmed | None = None  # message_count is what is left; this, what there was
    opening: str | None = None  # its first request: what a session without a title is about


class SessionList(msgspec.Struct):
    sessions: list[SessionSummary]
    total: int
    limit: int
    offset: int


class FacetValue(msgspec.Struct):
    name: str
    sessions: int


class Facets(msgspec.Struct):
    sessions: int
    first_date: str | None
    last_date: str | None
    channels: list[FacetValue]  # most sessions first
    participants: list[FacetValue]


class IndexStats(msgspec.Struct):
    generation: str
    embedder: str
    dim: int
    keyword_documents: int
    vector_passages: int
    disk_bytes: int


class Stats(msgspec.Struct, omit_defaults=True):
    home: str
    sessions: int
    messages: int
    unfinished: int
    first_date: str | None
    last_date: str | None
    channels: dict[str, int]
    quarantined: int
    archive_bytes: int
    index: IndexStats | None = None  # absent until something is indexed


class Health(msgspec.Struct, omit_defaults=True):
    """`status` alone for a probe without the token; the counts with it (or with none set)."""

    status: str
    sessions: int | None = None
    generation: str | None = None


def read_session(archive: Archive, session_id: str,
                 token_budget: int | None = None) -> ArchivedSession:
    """The archived session, or with a budget: its summary plus the newest messages that fit."""
    session = decode_session(archive.path(session_id).read_bytes())
    if token_budget is None:
        return msgspec.convert(session, ArchivedSession, from_attributes=True)
    if token_budget < 1:
        raise InvalidInput("token budget must be positive")
    budgeted = _within_budget(session, token_budget)
    if budgeted.omitted_messages and not session.summary and session.status:
        # a live session has no summary until it is archived: the left-out messages get an
        # extractive one, within half the budget
        half = token_budget // 2
        left_out = _within_budget(session, token_budget - half).omitted_messages or 0
        summary = _live_summary(session.messages[:left_out], half)
        budgeted = _within_budget(session, token_budget, summary)
    return budgeted


def list_sessions(data: DataDir, *, since: str | None = None, until: str | None = None,
                  channel: str | None = None, participant: str | None = None,
                  status: str | None = None, category: str | None = None,
                  limit: int = 50, offset: int = 0) -> SessionList:
    """Session summaries, newest first; a session ingested from a file counts as archived."""
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"unknown status {status!r}: use one of {', '.join(STATUSES)}")
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidInput(f"limit must be between 1 and {MAX_PAGE}")
    if offset < 0:
        raise InvalidInput("offset must not be negative")
    low = check_day(since) if since else None
    high = check_day(until, end=True) if until else None
    summaries = []
    for row in _rows(data, "indexed"):
        if (low and row.date < low) or (high and row.date > high):
            continue
        if channel and (row.channel or "").lower() != channel.lower():
            continue
        meta: dict[str, Any] = {"participants": [], "topics": [], "title": None,
                                "summary": None, "category": None, "status": None,
                                "trimmed": None, "opening": None}
        meta.update(json.loads(row.meta))
        if participant and participant.lower() not in (p.lower() for p in meta["participants"]):
            continue
        if (status and status_of(meta["status"]) != status) or \
                (category and (meta["category"] or "").lower() != category.lower()):
            continue
        summaries.append(SessionSummary(
            session_id=row.session_id, date=row.date, channel=row.channel,
            participants=meta["participants"], topics=meta["topics"], title=meta["title"],
            summary=meta["summary"], message_count=row.message_count,
            category=meta["category"], status=status_of(meta["status"]),
            trimmed=msgspec.convert(meta["trimmed"], Trimmed) if meta["trimmed"] else None,
            opening=meta["opening"]))
    return SessionList(summaries[offset : offset + limit], len(summaries), limit, offset)


def label_hits(data: DataDir, response: SearchResponse) -> SearchResponse:
    """Each hit of a session without a title or summary with its first request (`opening`), as
    its listing has it: more to go by than "(untitled)"."""
    untitled = {hit.session_id for hit in response.results if not hit.title}
    if not untitled:
        return response
    state = State(data.state_db)
    try:
        openings = {sid: json.loads(row.meta).get("opening") for sid in untitled
                    if (row := state.session(sid)) is not None}
    finally:
        state.close()
    return msgspec.structs.replace(response, results=tuple(
        msgspec.structs.replace(hit, opening=openings[hit.session_id])
        if openings.get(hit.session_id) else hit for hit in response.results))


def facets(data: DataDir) -> Facets:
    """The values a search can be filtered by: channels and participants with their session
    counts (most sessions first), and the first and last session dates."""
    rows = _rows(data, "indexed")
    channels = Counter(r.channel for r in rows if r.channel)
    participants = Counter(p for r in rows for p in json.loads(r.meta).get("participants") or [])
    return Facets(sessions=len(rows),
                  first_date=min((r.date for r in rows), default=None),
                  last_date=max((r.date for r in rows), default=None),
                  channels=[FacetValue(n, c) for n, c in channels.most_common()],
                  participants=[FacetValue(n, c) for n, c in participants.most_common()])


def health(data: DataDir, searcher: Searcher) -> Health:
    """Raises IndexUnavailable unless both indexes open and agree with the state."""
    gen = searcher.generation()
    state = State(data.state_db)
    try:
        rows, unfinished = state.status_counts()
    finally:
        state.close()
    # a write in progress (here or in another process) has rows pending until it commits
    if unfinished and not writer_active(data.lock_file):
        raise IndexUnavailable(f"{unfinished} sessions are half-written; run `recall index` "
                               "to finish them")
    documents, passages = gen.keyword.num_docs(), gen.vectors.count()
    if bool(rows) != bool(documents) or bool(rows) != bool(passages):
        raise IndexUnavailable("the indexes do not match the archive; run `recall reindex`")
    return Health("ok", rows, data.current_generation())


def stats(data: DataDir, searcher: Searcher) -> Stats:
    rows = _rows(data)
    indexed = [r for r in rows if r.status == "indexed"]
    index = None
    name = data.current_generation()
    if name:
        gen = searcher.generation()
        index = IndexStats(generation=name, embedder=gen.embedder_name, dim=gen.dim,
                           keyword_documents=gen.keyword.num_docs(),
                           vector_passages=gen.vectors.count(), disk_bytes=_disk_usage(gen.path))
    return Stats(
        home=str(data.root),
        sessions=len(indexed),
        messages=sum(r.message_count for r in indexed),
        unfinished=len(rows) - len(indexed),
        first_date=min((r.date for r in indexed), default=None),
        last_date=max((r.date for r in indexed), default=None),
        channels=dict(Counter(r.channel or "" for r in indexed).most_common()),
        quarantined=len(list(data.quarantine.glob("*.reason.txt")))
        if data.quarantine.exists() else 0,
        archive_bytes=_disk_usage(data.archive),
        index=index,
    )


def _rows(data: DataDir, status: str | None = None) -> list[SessionRow]:
    state = State(data.state_db)
    try:
        return list(state.sessions(status) if status else state.sessions())
    finally:
        state.close()


def _within_budget(session: Session, budget: int, summary: str | None = None) -> ArchivedSession:
    summary = summary or session.summary
    used = estimate_tokens(summary or "")
    kept: list[Message] = []
    for message in reversed(session.messages):
        cost = estimate_tokens(message.content) + 4  # role and framing
        if used + cost > budget:
            break
        kept.append(message)
        used += cost
    kept.reverse()
    fields = msgspec.structs.asdict(session) | {"messages": tuple(kept), "summary": summary}
    return ArchivedSession(**fields, omitted_messages=len(session.messages) - len(kept),
                           estimated_tokens=used)


def _live_summary(messages: tuple[Message, ...], budget: int) -> str | None:
    """The first line of the first user message, then of the newest ones, within `budget`."""
    lines = [m.content.strip().splitlines()[0] for m in messages
             if m.role == "user" and m.content.strip()]
    kept: list[str] = []
    used = 0
    for line in dict.fromkeys(lines[:1] + lines[:0:-1]):  # the first, then newest first
        cost = estimate_tokens(line)
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return " / ".join(kept) or None


def _disk_usage(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
