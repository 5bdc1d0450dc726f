"""The live-session part of RecallService: start, append, change status (indexer/live.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from indexer.live.sessions import LiveSessions
from indexer.live.summary import Summarizer
from indexer.memories.refine import LLMEndpoint
from indexer.stores.snapshots import SnapshotStore
from models import OPEN_STATUSES, InvalidInput, NotFound, Session, status_of

if TYPE_CHECKING:
    from api.service.core import RecallService

__all__ = ["LiveSessionsMixin", "is_start_request", "live_view"]

# an archive record has messages or a date; a body with neither asks to start a live session
_RECORD_KEYS = ("messages", "date", "archivedAt", "archived_at")


def is_start_request(body: dict[str, Any]) -> bool:
    """Whether a POST /v1/sessions body starts a live session rather than ingests a record."""
    return not any(key in body for key in _RECORD_KEYS)


def live_view(session: Session) -> dict[str, Any]:
    """The one shape of a live session's state, for the CLI, HTTP and MCP."""
    return {"session_id": session.session_id, "status": status_of(session.status),
            "date": session.date, "title": session.title, "channel": session.channel,
            "category": session.category, "summary": session.summary,
            "message_count": len(session.messages),
            "status_history": [{"status": c.status, "at": c.at} for c in session.status_history]}


class LiveSessionsMixin:
    """Mixed into RecallService; one LiveSessions per service (it counts appends to compact)."""

    _live: LiveSessions | None = None

    @property
    def live(self: RecallService) -> LiveSessions:
        with self._lock:  # one per service: its thread lock orders the appends of all requests
            if self._live is None:
                s = self.settings
                endpoint = LLMEndpoint(s.llm_url, s.llm_model, s.llm_api_key, s.llm_timeout) \
                    if s.live_summary == "llm" and s.llm_url else None
                self._live = LiveSessions(self.ingestor, summarize=Summarizer(endpoint))
            return self._live

    def start_session(self: RecallService, body: dict[str, Any]) -> dict[str, Any]:
        return live_view(self.live.start(body))

    def append_messages(self: RecallService, session_id: str, body: Any) -> dict[str, Any]:
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
        result = self.live.append(self._safe_id(session_id), messages)
        return {"session_id": result.session_id, "status": result.status,
                "appended": result.appended, "duplicates": result.duplicates,
                "message_ids": result.message_ids, "message_count": result.message_count,
                "redacted": dict(result.redacted)}

    def set_session_status(self: RecallService, session_id: str, status: str,
                           summary: str | None = None) -> dict[str, Any]:
        """Pausing saves a snapshot (the session's memories now) to resume from later."""
        session = self.live.set_status(self._safe_id(session_id), status, summary=summary)
        if status == "paused":
            self.create_snapshot(session.session_id)
        return live_view(session)

    def _open_live(self: RecallService, session_id: str) -> Session | None:
        """The archived record when it is a live session still open, else None (also when it is
        not archived: snapshots can be indexed for a session the archive does not hold)."""
        try:
            session = self._archived(session_id)
        except NotFound:
            return None
        return session if status_of(session.status) in OPEN_STATUSES else None

    def _recovering(self: RecallService, session_id: str) -> None:
        """Before recovering an open live session: a snapshot of now when it has none."""
        if self._open_live(session_id) and not SnapshotStore(self.data).list(session_id):
            self.create_snapshot(session_id)

    def _recovered(self: RecallService, session_id: str) -> None:
        if self._open_live(session_id):
            self.live.mark_recovered(session_id)
