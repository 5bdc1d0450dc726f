"""Period digest (a day, a week or a month around a date): active topics with counts, open tasks,
the todos of the period, and recent activity, one line per day. Pure functions over session
summaries, memories and todos."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from models import InvalidInput, InvalidQuery, Memory
from models.todo import TODO_PERIODS, period_bounds

__all__ = ["PERIODS", "build_digest", "period_range"]

PERIODS = TODO_PERIODS


def period_range(period: str, day: str) -> tuple[str, str]:
    """First and last day (inclusive) of the period containing day; weeks run Monday-Sunday
    (the same periods as todos, models/todo.py)."""
    try:
        return period_bounds(period, day)
    except InvalidInput as exc:  # a digest's period is part of its query
        raise InvalidQuery(exc.detail) from None


def build_digest(period: str, start: str, end: str, sessions: Sequence[dict[str, Any]],
                 memories: Iterable[Memory],
                 todos: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """sessions: summaries as listed by the service (date, topics, title, summary, ...);
    todos: the todos whose period overlaps start..end, as the service lists them."""
    topics = Counter(t for s in sessions for t in s.get("topics") or [])
    tasks = sorted(
        (m for m in memories if m.type == "project" and m.kind in ("task", "deadline")),
        key=lambda m: (m.due_date or "9999", _PRIORITY_ORDER.get(m.priority or "medium", 2)),
    )
    by_day: dict[str, list[dict[str, Any]]] = {}
    for s in sessions:
        by_day.setdefault(s["date"], []).append(s)
    activity = [
        {"date": day, "sessions": len(items),
         "line": "; ".join(_headline(s) for s in items)}
        for day, items in sorted(by_day.items(), reverse=True)
    ]
    return {
        "period": period, "start": start, "end": end,
        "sessions": len(sessions),
        "messages": sum(s.get("message_count", 0) for s in sessions),
        "topics": [{"topic": t, "sessions": n} for t, n in topics.most_common(20)],
        "open_tasks": [{"text": m.text, "session_id": m.session_id, "due_date": m.due_date,
                        "priority": m.priority, "source_message_ids": list(m.source_message_ids),
                        "memory_id": m.id}  # what `recall todo promote` takes
                       for m in tasks],
        "todos": list(todos),
        "activity": activity,
    }


_PRIORITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def _headline(session: dict[str, Any]) -> str:
    text = session.get("title") or session.get("summary") or ", ".join(session.get("topics") or [])
    text = (text or session["session_id"]).replace("\n", " ")
    return text if len(text) <= 80 else text[:79] + "…"
