"""Copies of one session read from different files (two exports of one account a month apart,
a backup beside the original): the copy whose newest message is newer is kept, whatever order
the files are read in."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import msgspec

from models import Session
from models.files import decode_session

__all__ = ["archived_last_activity", "last_activity"]


def last_activity(session: Session) -> float:
    """When the session last had a message (epoch seconds); its date when no message says."""
    times = [t for m in session.messages if (t := _epoch(m.time)) is not None]
    return max(times) if times else (_epoch(session.date) or 0.0)


def archived_last_activity(path: Path) -> float | None:
    """last_activity of an archived session, None when its file cannot be read."""
    try:
        return last_activity(decode_session(path.read_bytes()))
    except (OSError, msgspec.DecodeError):
        return None


def _epoch(text: str) -> float | None:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
