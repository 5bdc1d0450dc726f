"""Live sessions for the service: start one, append messages, change its status (indexer/live/)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from api.service.archive import Archive, safe_id
from api.settings import Settings
from models import InvalidInput, Session, SessionStatus, status_of

if TYPE_CHECKING:  # the write path, loaded by the first live operation
    from indexer.ingest.ingestor import Ingestor
    from indexer.live.sessions import LiveSessions

__all__ = ["AppendResult", "Live", "LiveSession", "StatusChangeOut", "is_start_request"]

# an archive record has messages or a date; a body with neither asks to start a live session
_RECORD_KEYS = ("messages", "date", "archivedAt", "archived_at")


def is_start_request(body: dict[str, Any]) -> bool:
    """Whether a POST /v1/sessions body starts a live session rather than ingests a record."""
    return not any(key in body for key in _RECORD_KEYS)


class StatusChangeOut(msgspec.Struct):
    status: SessionStatus
    at: str


class LiveSession(msgspec.Struct):
    """A live session's state, as every interface shows it."""

    session_id: str
    status: SessionStatus
    date: str
    title: str | None
    channel: str | None
    category: str | None
    summary: str | None
    message_count: int
    status_history: list[StatusChangeOut]

    @classmethod
    def of(cls, session: Session) -> LiveSession:
        return cls(session_id=session.session_id, status=status_of(session.status),
                   date=session.date, title=session.title, channel=session.channel,
                   category=session.category, summary=session.summary,
                   message_count=len(session.messages),
                   status_history=[StatusChangeOut(c.status, c.at)
                                   for c in session.status_history])


class AppendResult(msgspec.Struct):
    session_id: str
    status: SessionStatus
    appended: int
    duplicates: int  # already there with the same id and content (a retried append)
    message_ids: list[str]  # one per message given, in order
    message_count: int
    redacted: dict[str, int]  # secrets redacted, by kind


class Live:
    """One per service: its LiveSessions counts appends to compact, and orders the appends of
    all requests with its lock."""

    def __init__(self, settings: Settings, archive: Archive, ingestor: Callable[[], Ingestor],
                 save_snapshot: Callable[[str], object]) -> None:
        self.settings = settings
        self.archive = archive
        self._ingestor = ingestor
        self._save_snapshot = save_snapshot  # pausing saves one to resume from
        self._lock = threading.Lock()
        self._sessions: LiveSessions | None = None

    @property
    def sessions(self) -> LiveSessions:
        with self._lock:
            if self._sessions is None:
                from indexer.live.sessions import LiveSessions
                from indexer.live.summary import Summarizer
                from indexer.memories.refine import LLMEndpoint

                s = self.settings
                endpoint = LLMEndpoint(s.llm_url, s.llm_model, s.llm_api_key, s.llm_timeout) \
                    if s.live_summary == "llm" and s.llm_url else None
                self._sessions = LiveSessions(self._ingestor, summarize=Summarizer(endpoint))
            return self._sessions

    def start(self, body: dict[str, Any]) -> LiveSession:
        return LiveSession.of(self.sessions.start(body))

    def append(self, session_id: str, body: Any) -> AppendResult:
        """One message (an object with content) or a batch ({"messages": [...]} or a list)."""
        if isinstance(body, dict) and "messages" in body:
            if set(body) != {"messages"}:
                raise InvalidInput("a batch is {\"messages\": [...]} and nothing else")
            messages = body["messages"]
        elif isinstance(body, dict):
            messages = [body]
        else:
            messages = body
        if not isinstance(messages, list):
            raise InvalidInput("'messages' must be a list of {role, content} objects")
        result = self.sessions.append(safe_id(session_id), messages)
        return AppendResult(session_id=result.session_id, status=status_of(result.status),
                            appended=result.appended, duplicates=result.duplicates,
                            message_ids=result.message_ids, message_count=result.message_count,
                            redacted=dict(result.redacted))

    def set_status(self, session_id: str, status: str,
                   summary: str | None = None) -> LiveSession:
        """Pausing saves a snapshot (the session's memories now) to resume from later."""
        session = self.sessions.set_status(safe_id(session_id), status, summary=summary)
        if status == "paused":
            self._save_snapshot(session.session_id)
        return LiveSession.of(session)

    def mark_recovered(self, session_id: str) -> None:
        """An open live session that was just recovered is `recovered`."""
        if self.archive.open_live(session_id):
            self.sessions.mark_recovered(session_id)
