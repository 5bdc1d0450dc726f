"""Period digest (a day, a week or a month around a date): active topics with counts, open tasks,
the todos of the period, and recent activity, one line per day. Pure functions over session
summaries, memories and todos."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Protocol

import msgspec

from models import FactRef, InvalidInput, InvalidQuery, Memory, TrackedFact
from models.memory import Priority
from models.todo import TODO_PERIODS, Todo, period_bounds

__all__ = ["PERIODS", "DayActivity", "Digest", "OpenTask", "Topic", "build_digest", "period_range"]

PERIODS = TODO_PERIODS


class SessionHeader(Protocol):
    """What a digest reads of a session (a listed session summary has it)."""

    @property
    def session_id(self) -> str: ...
    @property
    def date(self) -> str: ...
    @property
    def topics(self) -> list[str]: ...
    @property
    def title(self) -> str | None: ...
    @property
    def summary(self) -> str | None: ...
    @property
    def message_count(self) -> int: ...


class Topic(msgspec.Struct):
    topic: str
    sessions: int


class OpenTask(msgspec.Struct):
    text: str
    session_id: str
    due_date: str | None
    priority: Priority | None
    source_message_ids: list[str]
    memory_id: str  # to promote it: `recall todo promote`, POST /v1/todos/promote
    superseded_by: FactRef | None = None  # a later statement changed it (a moved deadline)


class DayActivity(msgspec.Struct):
    date: str
    sessions: int
    line: str


class Digest(msgspec.Struct):
    period: str
    start: str
    end: str
    sessions: int
    messages: int
    topics: list[Topic]
    open_tasks: list[OpenTask]
    todos: list[Todo]  # every todo whose period overlaps this one, open first
    activity: list[DayActivity]  # newest day first
    # what changed in the period: statements superseded by one said in it, newest change first
    changes: list[TrackedFact] = msgspec.field(default_factory=list)


def period_range(period: str, day: str) -> tuple[str, str]:
    """First and last day (inclusive) of the period containing day; weeks run Monday-Sunday
    (the same periods as todos, models/todo.py)."""
    try:
        return period_bounds(period, day)
    except InvalidInput as exc:  # a digest's period is part of its query
        raise InvalidQuery(exc.detail) from None


def build_digest(period: str, start: str, end: str, sessions: Sequence[SessionHeader],
                 memories: Iterable[Memory], todos: Sequence[Todo] = ()) -> Digest:
    """sessions: the sessions of the period, newest first; todos: those whose period overlaps
    start..end."""
    topics = Counter(t for s in sessions for t in s.topics)
    tasks = sorted(
        (m for m in memories if m.type == "project" and m.kind in ("task", "deadline")),
        key=lambda m: (m.due_date or "9999", _PRIORITY_ORDER.get(m.priority or "medium", 2)),
    )
    by_day: dict[str, list[SessionHeader]] = {}
    for s in sessions:
        by_day.setdefault(s.date, []).append(s)
    return Digest(
        period=period, start=start, end=end,
        sessions=len(sessions),
        messages=sum(s.message_count for s in sessions),
        topics=[Topic(t, n) for t, n in topics.most_common(20)],
        open_tasks=[OpenTask(m.text, m.session_id, m.due_date, m.priority,
                             list(m.source_message_ids), m.id) for m in tasks],
        todos=list(todos),
        activity=[DayActivity(day, len(items), "; ".join(_headline(s) for s in items))
                  for day, items in sorted(by_day.items(), reverse=True)],
    )


_PRIORITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def _headline(session: SessionHeader) -> str:
    text = session.title or session.summary or ", ".join(session.topics)
    text = (text or session.session_id).replace("\n", " ")
    return text if len(text) <= 80 else text[:79] + "…"
