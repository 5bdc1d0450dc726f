"""Reading the archive by session id: where a session's file is, and the session it holds."""

from __future__ import annotations

from pathlib import Path

from indexer.stores.layout import DataDir
from indexer.stores.state import State
from models import OPEN_STATUSES, NotFound, Session, UnsafeSessionId, check_session_id, status_of
from models.files import decode_session

__all__ = ["Archive", "safe_id"]


def safe_id(session_id: str) -> str:
    """The id, if it can name a file; an unsafe one names no session (never a path elsewhere)."""
    try:
        return check_session_id(session_id)
    except UnsafeSessionId:
        raise NotFound(f"no session {session_id!r}") from None


class Archive:
    def __init__(self, data: DataDir) -> None:
        self.data = data

    def path(self, session_id: str) -> Path:
        """The archive file of an indexed session; NotFound otherwise (also while deleting)."""
        session_id = safe_id(session_id)
        state = State(self.data.state_db)
        try:
            row = state.session(session_id)
        finally:
            state.close()
        path = self.data.archive / row.archive_path if row else None
        if row is None or row.status == "deleting" or path is None or not path.exists():
            raise NotFound(f"no session {session_id!r}")
        return path

    def session(self, session_id: str) -> Session:
        return decode_session(self.path(session_id).read_bytes())

    def open_live(self, session_id: str) -> Session | None:
        """The session when it is a live session still open, else None (also when it is not
        archived: snapshots can be indexed for a session the archive does not hold)."""
        try:
            session = self.session(session_id)
        except NotFound:
            return None
        return session if status_of(session.status) in OPEN_STATUSES else None
