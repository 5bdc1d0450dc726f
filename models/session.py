"""Typed records of the archive format: sessions, their messages, decisions and feedback."""

from __future__ import annotations

from typing import Literal

import msgspec

from models.lifecycle import SessionStatus, StatusChange
from models.memory import Memory

__all__ = ["Decision", "Feedback", "Message", "Retention", "Session"]


class Message(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    role: str
    content: str
    # ISO-8601; a message without a time of its own carries the session date.
    time: str
    speaker: str | None = None


class Decision(msgspec.Struct, frozen=True, omit_defaults=True):
    text: str
    context: str | None = None


class Feedback(msgspec.Struct, frozen=True, omit_defaults=True, rename={"from_": "from"}):
    user: str
    from_: str | None = None


class Retention(msgspec.Struct, frozen=True, omit_defaults=True):
    """Set on a session the retention policy trimmed: which tier it is in and what it lost."""

    tier: Literal["summary", "compressed"]
    trimmed_at: str  # ISO-8601, the latest trim
    message_count: int  # messages the session had before they were dropped
    last_activity: str  # YYYY-MM-DD of its newest message, what the tiers are measured from
    dropped: tuple[str, ...] = ()  # one note per trim: what was dropped and when


class Origin(msgspec.Struct, frozen=True, omit_defaults=True):
    """Where an imported session came from: the agent that wrote it, its id there, the folder
    it ran in and the transcript file; what `recall resume` needs to reopen it."""

    agent: str  # a transcript format name (indexer/formats), e.g. "claude-code"
    id: str | None = None  # the agent's own session id, when it has one
    cwd: str | None = None
    path: str | None = None  # the transcript file it was imported from


class Session(msgspec.Struct, frozen=True, omit_defaults=True):
    """One archived conversation, normalized: every message has an id and a time."""

    session_id: str
    date: str  # local date the session started, YYYY-MM-DD
    messages: tuple[Message, ...]
    channel: str | None = None
    participants: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    decisions: tuple[Decision, ...] = ()
    feedback: tuple[Feedback, ...] = ()
    summary: str | None = None
    title: str | None = None
    # what kind of conversation it is (e.g. "debugging", "planning"); cleanup can select by it
    category: str | None = None
    archived_at: str | None = None
    retention: Retention | None = None
    # a trimmed session keeps the memories extracted before its messages were dropped: they are
    # what ingest and reindex index for it instead of extracting again (see extract_memories)
    memories: tuple[Memory, ...] = ()
    # a live session's lifecycle (models/lifecycle.py): None for a record ingested from a file,
    # which counts as archived; the history holds every change with its time, oldest first
    status: SessionStatus | None = None
    status_history: tuple[StatusChange, ...] = ()
    origin: Origin | None = None  # set for sessions imported from an agent's transcript

    @property
    def month(self) -> str:
        return self.date[:7]
