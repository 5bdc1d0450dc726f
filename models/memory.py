"""Typed memories extracted from a session: what is worth remembering, and where it came from."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Literal, get_args

import msgspec

__all__ = [
    "ENTITY_KINDS",
    "MEMORY_TYPES",
    "PRIORITIES",
    "Memory",
    "MemoryType",
    "Priority",
    "memory_id",
    "normalize_memory_text",
]

MemoryType = Literal["user", "feedback", "project", "reference"]
Priority = Literal["low", "medium", "high", "critical"]

# user: facts and preferences about the person; feedback: corrections and instructions to the
# assistant; project: decisions, constraints, tasks, deadlines; reference: names, links, numbers.
MEMORY_TYPES: tuple[str, ...] = get_args(MemoryType)
PRIORITIES: tuple[str, ...] = get_args(Priority)
ENTITY_KINDS: tuple[str, ...] = ("dates", "urls", "emails", "versions", "names", "numbers")


class Memory(msgspec.Struct, frozen=True, omit_defaults=True):
    """One memory. `entities` maps a kind in ENTITY_KINDS to its values (dates as YYYY-MM-DD
    when they could be resolved); `priority` and `due_date` are set for tasks only."""

    id: str
    session_id: str
    type: MemoryType
    text: str
    confidence: float  # 0..1
    source_message_ids: tuple[str, ...] = ()
    session_date: str = ""
    entities: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)
    kind: str | None = (
        None  # preference, decision, constraint, task, deadline, correction, fact, link...
    )
    priority: Priority | None = None
    due_date: str | None = None  # YYYY-MM-DD


_SPACE_OR_PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)


def normalize_memory_text(text: str) -> str:
    """Case-, width- and punctuation-insensitive form of a memory text, for ids and dedupe."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE_OR_PUNCT.sub(" ", folded).strip()


def memory_id(session_id: str, memory_type: str, text: str) -> str:
    """Stable id: the same statement of the same type in the same session always gets it, so
    re-extracting a session upserts rather than duplicates."""
    key = f"{memory_type}\n{normalize_memory_text(text)}".encode()
    return f"{session_id}:mem:{hashlib.sha256(key).hexdigest()[:12]}"
