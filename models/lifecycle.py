"""The lifecycle of a live session: its status, the history of status changes, and the rules
for moving between them.

    active ──pause──► paused ──resume──► active
      │  ▲               │
      │  └──resume── recovered ◄──recovery── (active, paused, recovered)
      └──────────────────┴──────archive──► archived   (final: no appends, no changes)

A record without a status (ingested from a file) counts as archived.
"""

from __future__ import annotations

from typing import Literal, cast, get_args

import msgspec

from models.errors import InvalidInput, SessionArchived

__all__ = ["OPEN_STATUSES", "STATUSES", "SessionStatus", "StatusChange", "check_transition",
           "status_of"]

SessionStatus = Literal["active", "paused", "recovered", "archived"]
STATUSES: tuple[str, ...] = get_args(SessionStatus)
# statuses a session can still take messages in
OPEN_STATUSES = ("active", "paused", "recovered")


class StatusChange(msgspec.Struct, frozen=True):
    status: SessionStatus
    at: str  # ISO-8601 with the offset of the machine that made the change


def status_of(status: str | None) -> SessionStatus:
    """The lifecycle status of a record: an ingested record (no status) is archived."""
    return cast(SessionStatus, status or "archived")  # a stored status is one of STATUSES


def check_transition(session_id: str, current: str | None, target: str) -> None:
    """Raise unless a session in `current` may move to `target` (the same status is a no-op)."""
    if target not in STATUSES:
        raise InvalidInput(f"unknown status {target!r}: use one of {', '.join(STATUSES)}")
    if status_of(current) == "archived" and target != "archived":
        raise SessionArchived(f"session {session_id!r} is archived; its status cannot change. "
                              "Start a new live session to go on")
