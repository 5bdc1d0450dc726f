"""Todos: things to do in a day, a week or a month, added by hand or promoted from a task memory.

A todo's period date is the first day of its period: the day itself, the Monday of its week
(weeks run Monday to Sunday, as in the digest), or the first of its month.
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from typing import Literal, get_args

import msgspec

from models.errors import InvalidInput

__all__ = ["MAX_TODO_CHARS", "TODO_PERIODS", "TODO_STATUSES", "Todo", "TodoPeriod", "TodoStatus",
           "check_period", "check_status", "period_bounds"]

TodoPeriod = Literal["day", "week", "month"]
TodoStatus = Literal["open", "done"]
TODO_PERIODS: tuple[str, ...] = get_args(TodoPeriod)
TODO_STATUSES: tuple[str, ...] = get_args(TodoStatus)
MAX_TODO_CHARS = 2000  # a todo is a line or a paragraph, not a document


class Todo(msgspec.Struct, frozen=True):
    """One todo. `origin` says whether its text was written by hand ("added") or copied from an
    extracted task ("promoted"); deleting the source session deletes promoted todos (their text
    came from it) and only unlinks added ones."""

    id: str
    content: str
    period: TodoPeriod
    period_date: str  # YYYY-MM-DD, the first day of the period
    period_end: str  # YYYY-MM-DD, its last day
    status: TodoStatus
    created_at: str  # ISO-8601, UTC
    completed_at: str | None
    origin: Literal["added", "promoted"]
    source_session_id: str | None = None
    source_memory_id: str | None = None


def check_period(period: object) -> str:
    if period not in TODO_PERIODS:
        raise InvalidInput(f"period must be one of {', '.join(TODO_PERIODS)}, not {period!r}")
    return str(period)


def check_status(status: object) -> str | None:
    """open, done, or all (None: either)."""
    if status == "all":
        return None
    if status not in TODO_STATUSES:
        raise InvalidInput(f"status must be open, done or all, not {status!r}")
    return str(status)


def period_bounds(period: str, day: str) -> tuple[str, str]:
    """First and last day (inclusive) of the period containing `day` (YYYY-MM-DD)."""
    check_period(period)
    if not isinstance(day, str) or len(day) != 10:
        raise InvalidInput(f"cannot read date {day!r}: use YYYY-MM-DD")
    try:
        d = date.fromisoformat(day)
    except ValueError:
        raise InvalidInput(f"cannot read date {day!r}: use YYYY-MM-DD") from None
    if period == "day":
        return d.isoformat(), d.isoformat()
    if period == "week":
        start = d - timedelta(days=d.weekday())
        try:
            return start.isoformat(), (start + timedelta(days=6)).isoformat()
        except OverflowError:  # the last week of 9999 ends in a year date() cannot hold
            raise InvalidInput(f"date {day!r} is out of range") from None
    last = calendar.monthrange(d.year, d.month)[1]
    return d.replace(day=1).isoformat(), d.replace(day=last).isoformat()
