"""HTTP wire shapes (kept apart from storage records so the two can change separately)."""

from __future__ import annotations

import msgspec

__all__ = ["IngestResult", "SessionList", "SessionSummary"]


class SessionSummary(msgspec.Struct):
    session_id: str
    date: str
    channel: str | None
    participants: list[str]
    topics: list[str]
    title: str | None
    summary: str | None
    message_count: int


class SessionList(msgspec.Struct):
    sessions: list[SessionSummary]
    total: int
    limit: int
    offset: int


class IngestResult(msgspec.Struct):
    session_id: str
    indexed: bool
    changed: bool
