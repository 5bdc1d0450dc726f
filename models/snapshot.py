"""Conversation-recovery snapshots (intents, facts, tasks, context) and their liberal parsing.

The wire shape is the seed's `conversation-recovery` Snapshot, camelCase keys:

    {"id", "sessionId", "createdAt", "description",
     "intents": [{"id", "description", "confidence", "fulfilled", "createdAt"}],
     "facts":   [{"id", "statement", "category", "confidence", "active", "createdAt"}],
     "tasks":   [{"id", "description", "status", "priority", "relatedIntentIds", "dependencies",
                  "dueDate"?, "createdAt", "updatedAt"}],
     "context", "tokenCount"}

`parse_snapshot` accepts what real producers write (missing optional fields, snake_case keys,
"in-progress" or "Done" spellings, epoch timestamps) and rejects what cannot be a snapshot with
an `InvalidInput` that says exactly which field is wrong.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal, get_args

import msgspec

from models.errors import InvalidInput, UnsafeSessionId
from models.ids import check_session_id, check_snapshot_id
from models.times import parse_time
from models.tokens import estimate_tokens

__all__ = [
    "FACT_CATEGORIES",
    "OPEN_TASK_STATUSES",
    "TASK_PRIORITIES",
    "TASK_STATUSES",
    "Fact",
    "FactCategory",
    "Intent",
    "Snapshot",
    "Task",
    "TaskPriority",
    "TaskStatus",
    "parse_snapshot",
    "snapshot_text",
    "snapshot_tokens",
    "to_datetime",
]

FactCategory = Literal["preference", "constraint", "context", "decision", "requirement"]
TaskStatus = Literal["pending", "in_progress", "blocked", "completed", "cancelled"]
TaskPriority = Literal["low", "medium", "high", "critical"]

FACT_CATEGORIES: tuple[str, ...] = get_args(FactCategory)
TASK_STATUSES: tuple[str, ...] = get_args(TaskStatus)
TASK_PRIORITIES: tuple[str, ...] = get_args(TaskPriority)
OPEN_TASK_STATUSES: frozenset[str] = frozenset({"pending", "in_progress", "blocked"})


class Intent(msgspec.Struct, frozen=True, omit_defaults=True):
    """What the user wants to accomplish."""

    id: str
    description: str
    confidence: float
    fulfilled: bool
    created_at: str
    source_message_id: str | None = None


class Fact(msgspec.Struct, frozen=True, omit_defaults=True):
    """Something established in the conversation; `active` is False once it no longer holds."""

    id: str
    statement: str
    category: FactCategory
    confidence: float
    active: bool
    created_at: str
    source_message_id: str | None = None


class Task(msgspec.Struct, frozen=True, omit_defaults=True, kw_only=True):
    """An action item. relatedIntentIds and dependencies have no default so that they are always
    on the wire (omit_defaults would otherwise drop empty lists the seed's shape always has)."""

    id: str
    description: str
    status: TaskStatus
    priority: TaskPriority
    related_intent_ids: tuple[str, ...]
    dependencies: tuple[str, ...]
    created_at: str
    updated_at: str
    due_date: str | None = None  # YYYY-MM-DD or ISO-8601

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_TASK_STATUSES


# No omit_defaults: a snapshot always carries every key, as the seed's files do.
class Snapshot(msgspec.Struct, frozen=True):
    """A point-in-time capture of a conversation's state."""

    id: str
    session_id: str
    created_at: str
    description: str = ""
    intents: tuple[Intent, ...] = ()
    facts: tuple[Fact, ...] = ()
    tasks: tuple[Task, ...] = ()
    context: str = ""
    token_count: int = 0

    @property
    def is_empty(self) -> bool:
        """Nothing to restore: no intents, facts or tasks and no context."""
        return not (self.intents or self.facts or self.tasks or self.context.strip())


def snapshot_text(snapshot: Snapshot) -> str:
    """The snapshot's state as plain text, one item per line (for token counts and matching)."""
    lines = [snapshot.description]
    lines += [i.description for i in snapshot.intents]
    lines += [f.statement for f in snapshot.facts]
    lines += [t.description + (f" (due {t.due_date})" if t.due_date else "")
              for t in snapshot.tasks]
    lines.append(snapshot.context)
    return "\n".join(line for line in lines if line and line.strip())


def snapshot_tokens(snapshot: Snapshot) -> int:
    """Estimated tokens of the snapshot's content (CJK-aware), what tokenCount should say."""
    return estimate_tokens(snapshot_text(snapshot))


def to_datetime(value: str) -> datetime:
    """An ISO-8601 date or time as an aware datetime; times without an offset are taken as UTC."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


# ---------------------------------------------------------------------------------------------
# parsing

_STATUS_ALIASES = {
    "todo": "pending", "open": "pending", "new": "pending", "waiting": "pending",
    "inprogress": "in_progress", "doing": "in_progress", "active": "in_progress",
    "started": "in_progress", "done": "completed", "complete": "completed",
    "finished": "completed", "closed": "completed", "canceled": "cancelled",
    "dropped": "cancelled",
}
_PRIORITY_ALIASES = {"urgent": "critical", "normal": "medium", "med": "medium"}


def parse_snapshot(raw: Any) -> Snapshot:
    """Build a Snapshot from a decoded JSON object, or raise InvalidInput saying what is wrong.

    Missing optional fields get the seed's defaults: items without an id get
    `<snapshotId>-i<N>` / `-f<N>` / `-t<N>`, items without a time inherit the snapshot's
    createdAt, a missing confidence is 1.0, fulfilled False, active True, status pending,
    priority medium, category context, and a missing tokenCount is estimated from the content.
    """
    if not isinstance(raw, dict):
        raise InvalidInput(f"expected a JSON object for a snapshot, got {_kind(raw)}")
    snapshot_id = _safe_id(_first(raw, "id", "snapshotId", "snapshot_id"), "id")
    session_id = _safe_id(_first(raw, "sessionId", "session_id"), "sessionId")
    created_at = _time(_first(raw, "createdAt", "created_at", "timestamp"), "createdAt")
    if created_at is None:
        created_at = _newest_item_time(raw)
    if created_at is None:
        raise InvalidInput(f"snapshot {snapshot_id!r} has no 'createdAt'")

    intents = tuple(
        _intent(item, f"{snapshot_id}-i{n}", created_at, n)
        for n, item in enumerate(_list(raw, "intents"), start=1)
        if _has_text(item, "description", "text", "intent")
    )
    facts = tuple(
        _fact(item, f"{snapshot_id}-f{n}", created_at, n)
        for n, item in enumerate(_list(raw, "facts"), start=1)
        if _has_text(item, "statement", "text", "fact")
    )
    tasks = tuple(
        _task(item, f"{snapshot_id}-t{n}", created_at, n)
        for n, item in enumerate(_list(raw, "tasks"), start=1)
        if _has_text(item, "description", "text", "title")
    )
    snapshot = Snapshot(
        id=snapshot_id,
        session_id=session_id,
        created_at=created_at,
        description=_str(raw, "description", "snapshot") or "",
        intents=intents,
        facts=facts,
        tasks=tasks,
        context=_str(raw, "context", "snapshot") or "",
    )
    token_count = _first(raw, "tokenCount", "token_count")
    if token_count is None:
        return msgspec.structs.replace(snapshot, token_count=snapshot_tokens(snapshot))
    if isinstance(token_count, bool) or not isinstance(token_count, int | float) or token_count < 0:
        raise InvalidInput(
            f"snapshot 'tokenCount' must be a non-negative number, got {token_count!r}")
    return msgspec.structs.replace(snapshot, token_count=int(token_count))


def _intent(raw: Any, fallback_id: str, default_time: str, n: int) -> Intent:
    where = f"intent {n}"
    return Intent(
        id=_item_id(raw, fallback_id),
        description=_str(raw, "description", where, "text", "intent") or "",
        confidence=_confidence(raw, where),
        fulfilled=_bool(raw, "fulfilled", False, where),
        created_at=_item_time(raw, where, default_time),
        source_message_id=_str(raw, "sourceMessageId", where, "source_message_id"),
    )


def _fact(raw: Any, fallback_id: str, default_time: str, n: int) -> Fact:
    where = f"fact {n}"
    return Fact(
        id=_item_id(raw, fallback_id),
        statement=_str(raw, "statement", where, "text", "fact") or "",
        category=_choice(raw.get("category"), FACT_CATEGORIES, {}, "context", f"{where} category"),
        confidence=_confidence(raw, where),
        active=_bool(raw, "active", True, where),
        created_at=_item_time(raw, where, default_time),
        source_message_id=_str(raw, "sourceMessageId", where, "source_message_id"),
    )


def _task(raw: Any, fallback_id: str, default_time: str, n: int) -> Task:
    where = f"task {n}"
    created = _item_time(raw, where, default_time)
    return Task(
        id=_item_id(raw, fallback_id),
        description=_str(raw, "description", where, "text", "title") or "",
        status=_choice(raw.get("status"), TASK_STATUSES, _STATUS_ALIASES, "pending",
                       f"{where} status"),
        priority=_choice(raw.get("priority"), TASK_PRIORITIES, _PRIORITY_ALIASES, "medium",
                         f"{where} priority"),
        related_intent_ids=_ids(raw, "relatedIntentIds", "related_intent_ids", where=where),
        dependencies=_ids(raw, "dependencies", "dependsOn", where=where),
        due_date=_time(_first(raw, "dueDate", "due_date", "due"), f"{where} dueDate"),
        created_at=created,
        updated_at=_time(_first(raw, "updatedAt", "updated_at"), f"{where} updatedAt") or created,
    )


def _safe_id(value: Any, field: str) -> str:
    if value is None:
        raise InvalidInput(f"snapshot has no '{field}'")
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    try:
        return check_snapshot_id(value) if field == "id" else check_session_id(value)
    except UnsafeSessionId as exc:
        # Both ids become file names (snapshots/<sessionId>/<id>.json): same rules, named field.
        raise UnsafeSessionId(f"snapshot '{field}' is unsafe: {exc.detail}") from None


def _item_id(raw: dict[str, Any], fallback: str) -> str:
    value = raw.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and value.strip() else fallback


def _choice(value: Any, allowed: tuple[str, ...], aliases: dict[str, str], default: str,
            where: str) -> Any:
    if value is None or value == "":
        return default
    if isinstance(value, str):
        key = value.strip().lower().replace("-", "_").replace(" ", "_")
        key = aliases.get(key.replace("_", ""), aliases.get(key, key))
        if key in allowed:
            return key
    raise InvalidInput(f"{where} must be one of {', '.join(allowed)}; got {value!r}")


def _confidence(raw: dict[str, Any], where: str) -> float:
    value = raw.get("confidence")
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInput(f"{where} confidence must be a number from 0 to 1, got {value!r}")
    return float(value)


def _bool(raw: dict[str, Any], key: str, default: bool, where: str) -> bool:
    value = raw.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InvalidInput(f"{where} '{key}' must be true or false, got {value!r}")


def _time(value: Any, where: str) -> str | None:
    if value is None or value == "":
        return None
    iso = parse_time(value)
    if iso is not None:
        try:
            to_datetime(iso)
            return iso
        except ValueError:
            pass
    raise InvalidInput(f"{where} must be an ISO-8601 time or epoch seconds, got {value!r}")


def _item_time(raw: dict[str, Any], where: str, default: str) -> str:
    return _time(_first(raw, "createdAt", "created_at"), f"{where} createdAt") or default


def _newest_item_time(raw: dict[str, Any]) -> str | None:
    # A snapshot without createdAt is as new as the newest thing it records.
    times = []
    for key in ("intents", "facts", "tasks"):
        for item in raw.get(key) or []:
            if isinstance(item, dict):
                for field in ("updatedAt", "createdAt"):
                    iso = parse_time(item.get(field))
                    if iso:
                        try:
                            times.append((to_datetime(iso), iso))
                        except ValueError:
                            continue
    return max(times)[1] if times else None


def _ids(raw: dict[str, Any], *keys: str, where: str) -> tuple[str, ...]:
    value = _first(raw, *keys)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):  # tuples: what msgspec.to_builtins gives back
        raise InvalidInput(f"{where} '{keys[0]}' must be a list of ids, got {_kind(value)}")
    return tuple(str(v) for v in value if isinstance(v, str | int) and str(v).strip())


def _list(raw: dict[str, Any], key: str) -> list[Any] | tuple[Any, ...]:
    value = raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise InvalidInput(f"snapshot '{key}' must be a list, got {_kind(value)}")
    for n, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            raise InvalidInput(f"{key[:-1]} {n} must be an object, got {_kind(item)}")
    return value


def _has_text(raw: dict[str, Any], *keys: str) -> bool:
    # Items without any text carry nothing to restore; skipped like empty decisions in parse.py.
    value = _first(raw, *keys)
    return not (isinstance(value, str) and not value.strip()) and value is not None


def _str(raw: dict[str, Any], key: str, where: str, *aliases: str) -> str | None:
    value = _first(raw, key, *aliases)
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise InvalidInput(f"{where} '{key}' must be a string, got {_kind(value)}")


def _first(raw: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if raw.get(key) not in (None, ""):
            return raw[key]
    return None


_KINDS: dict[type, str] = {dict: "an object", list: "a list", tuple: "a list", str: "a string"}


def _kind(value: Any) -> str:
    return _KINDS.get(type(value), type(value).__name__)
