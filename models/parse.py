"""Liberal parsing of archive-format records into Session: accept what real archives hold,
reject with a precise reason what cannot be a session."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from models.errors import InvalidSession
from models.files import from_either
from models.ids import check_session_id
from models.lifecycle import STATUSES, StatusChange
from models.memory import Memory
from models.session import Decision, Feedback, Message, Origin, Retention, Session
from models.times import DATE, parse_time

__all__ = ["parse_session", "parse_time", "record_session_id", "text_of"]



def record_session_id(raw: Any) -> str | None:
    """The session id a record names, unchecked (for naming it in a log or an error)."""
    value = _first(raw, "sessionId", "session_id", "id") if isinstance(raw, dict) else None
    return str(value) if value is not None else None


def parse_session(raw: Any, *, fallback_id: str | None = None) -> Session:
    """Build a Session from a decoded JSON object.

    fallback_id names the session when the record has no sessionId (e.g. the file stem).
    """
    if not isinstance(raw, dict):
        raise InvalidSession(f"expected a JSON object for a session, got {_kind(raw)}")
    session_id = check_session_id(_first(raw, "sessionId", "session_id", "id") or fallback_id)
    raw_messages = raw.get("messages", [])
    if raw_messages is None:
        raw_messages = []
    if not isinstance(raw_messages, list):
        raise InvalidSession(f"'messages' must be a list, got {_kind(raw_messages)}")

    date = _session_date(raw, raw_messages)
    messages = _messages(session_id, date, raw_messages)
    return Session(
        session_id=session_id,
        date=date,
        messages=messages,
        channel=_opt_str(raw, "channel"),
        participants=_str_list(raw, "participants"),
        topics=_str_list(raw, "topics"),
        decisions=tuple(dec for item in _list(raw, "decisions") if (dec := _decision(item))),
        feedback=tuple(fb for item in _list(raw, "feedback") if (fb := _feedback(item))),
        summary=_opt_str(raw, "summary"),
        title=_opt_str(raw, "title"),
        category=_opt_str(raw, "category"),
        archived_at=parse_time(raw.get("archivedAt") or raw.get("archived_at")),
        **_retention(raw, session_id),
        **_lifecycle(raw),
        origin=_origin(raw.get("origin")),
    )


def _origin(value: Any) -> Origin | None:
    """An imported session's origin; anything malformed is dropped, never fatal."""
    if not isinstance(value, dict) or not isinstance(value.get("agent"), str):
        return None
    fields = {k: value[k] for k in ("id", "cwd", "path") if isinstance(value.get(k), str)}
    return Origin(agent=value["agent"], **fields)


def _lifecycle(raw: dict[str, Any]) -> dict[str, Any]:
    """A live session's status and its history of changes (models/lifecycle.py)."""
    status = raw.get("status")
    if status not in STATUSES:  # none, or another tool's own notion of status: not a lifecycle
        return {}
    history = raw.get("statusHistory", raw.get("status_history")) or []
    try:
        changes = msgspec.convert(history, type=tuple[StatusChange, ...])
    except msgspec.ValidationError as exc:
        raise InvalidSession(f"'statusHistory' is malformed: {exc}") from None
    return {"status": status, "status_history": changes}


def _retention(raw: dict[str, Any], session_id: str) -> dict[str, Any]:
    """A trimmed session's retention note and kept memories (only together: memories are never
    taken from an input that was not trimmed by recall itself)."""
    if raw.get("retention") is None:
        return {}
    try:
        retention = from_either(raw["retention"], Retention)
        memories = msgspec.convert(raw.get("memories") or [], type=tuple[Memory, ...])
    except msgspec.ValidationError as exc:
        raise InvalidSession(f"'retention' or 'memories' is malformed: {exc}") from None
    return {"retention": retention,
            "memories": tuple(m for m in memories if m.session_id == session_id)}


def text_of(content: Any) -> str:
    """Message content as text: a string, or a list of text blocks joined by newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif isinstance(block, dict) and isinstance(block.get("content"), str | list):
                parts.append(text_of(block["content"]))
        return "\n".join(p for p in parts if p)
    raise InvalidSession(f"message content must be text or a list of blocks, got {_kind(content)}")


def _session_date(raw: dict[str, Any], raw_messages: list[Any]) -> str:
    for candidate in (raw.get("date"), *(_time_of(m) for m in raw_messages), raw.get("archivedAt")):
        day = _day(parse_time(candidate))
        if day:
            return day
    raise InvalidSession("session has no 'date' and no message or archive time to take it from")


def _day(iso: str | None) -> str | None:
    match = DATE.match(iso or "")
    if not match:
        return None
    year, month, day = (int(g) for g in match.groups())
    try:
        datetime(year, month, day)
    except ValueError:
        return None
    return match.group(0)


def _time_of(message: Any) -> Any:
    if isinstance(message, dict):
        return _first(message, "time", "timestamp", "ts", "createdAt")
    return None


def _messages(session_id: str, date: str, raw_messages: list[Any]) -> tuple[Message, ...]:
    messages: list[Message] = []
    seen: set[str] = set()
    for position, raw in enumerate(raw_messages, start=1):
        if not isinstance(raw, dict):
            raise InvalidSession(f"message {position} must be an object, got {_kind(raw)}")
        try:
            content = text_of(_first(raw, "content", "text"))
        except InvalidSession as exc:
            raise InvalidSession(f"message {position}: {exc.detail}") from None
        message_id = raw.get("id")
        if not isinstance(message_id, str | int) or isinstance(message_id, bool) or message_id == "":
            message_id = f"{session_id}-m{position}"
        message_id = _unique(str(message_id), seen, f"{session_id}-m{position}")
        role = raw.get("role")
        speaker = _first(raw, "speaker", "name", "from")
        messages.append(
            Message(
                id=message_id,
                role=role.strip().lower() if isinstance(role, str) and role.strip() else "unknown",
                content=content,
                time=parse_time(_time_of(raw)) or date,
                speaker=speaker if isinstance(speaker, str) and speaker else None,
            )
        )
    return tuple(messages)


def _unique(message_id: str, seen: set[str], positional: str) -> str:
    # Duplicate ids would make two messages indistinguishable in results and deletes.
    candidate = message_id if message_id not in seen else positional
    suffix = 2
    while candidate in seen:
        candidate = f"{positional}~{suffix}"
        suffix += 1
    seen.add(candidate)
    return candidate


def _decision(raw: Any) -> Decision | None:
    if isinstance(raw, str) and raw.strip():
        return Decision(text=raw)
    if isinstance(raw, dict) and isinstance(raw.get("text"), str) and raw["text"].strip():
        context = raw.get("context")
        return Decision(text=raw["text"], context=context if isinstance(context, str) else None)
    return None


def _feedback(raw: Any) -> Feedback | None:
    if isinstance(raw, str) and raw.strip():
        return Feedback(user=raw)
    if isinstance(raw, dict):
        text = _first(raw, "user", "text", "feedback")
        if isinstance(text, str) and text.strip():
            source = raw.get("from")
            return Feedback(user=text, from_=source if isinstance(source, str) else None)
    return None


def _first(raw: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if raw.get(key) not in (None, ""):
            return raw[key]
    return None


def _opt_str(raw: dict[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise InvalidSession(f"'{key}' must be a string, got {_kind(value)}")


def _list(raw: dict[str, Any], key: str) -> list[Any]:
    value = raw.get(key)
    if value is None:
        return []
    if isinstance(value, list):
        return value
    raise InvalidSession(f"'{key}' must be a list, got {_kind(value)}")


def _str_list(raw: dict[str, Any], key: str) -> tuple[str, ...]:
    value = raw.get(key)
    if isinstance(value, str):
        value = [value]
    items = _list({key: value}, key)
    return tuple(str(item).strip() for item in items if isinstance(item, str | int) and str(item).strip())


_KINDS: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}


def _kind(value: Any) -> str:
    return _KINDS.get(type(value), type(value).__name__)
