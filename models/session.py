"""Typed records of the archive format: sessions, their messages, decisions and feedback."""

from __future__ import annotations

import msgspec

__all__ = ["Decision", "Feedback", "Message", "Session"]


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


class Session(msgspec.Struct, frozen=True, omit_defaults=True, rename="camel"):
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
    archived_at: str | None = None

    @property
    def month(self) -> str:
        return self.date[:7]
