"""HTTP wire shapes (kept apart from storage records so the two can change separately).

Routes whose service method returns a dict convert it into one of these (`msgspec.convert`),
so the OpenAPI document describes exactly what is sent, and a drift fails loudly in tests.
"""

from __future__ import annotations

import msgspec
from litestar.openapi.spec import OpenAPIFormat, OpenAPIType, Schema

from models import Session, SessionStatus, Snapshot
from models.ids import MAX_ID_LENGTH
from models.memory import MemoryType, Priority
from models.todo import Todo

__all__ = [
    "SESSION_RECORD",
    "ArchivedSession",
    "ConsistencyReport",
    "Digest",
    "Health",
    "IngestResult",
    "MemoriesPayload",
    "PrunedSnapshots",
    "SessionList",
    "SessionSummary",
    "SnapshotList",
    "Stats",
]

_TEXT = Schema(type=OpenAPIType.STRING)
_TEXTS = Schema(type=OpenAPIType.ARRAY, items=_TEXT)

# The body of POST /v1/sessions: one record of the archive format. The route parses it
# liberally (snake_case keys, content blocks, epoch times, ... are accepted too: models/parse.py);
# this is the plain form every producer can write.
SESSION_RECORD = {
    "description": "one session in the archive format",
    "required": ["sessionId", "date", "messages"],
    "properties": {
        "sessionId": Schema(type=OpenAPIType.STRING, min_length=1, max_length=MAX_ID_LENGTH,
                            pattern="^[A-Za-z0-9][A-Za-z0-9_-]*$",
                            description="letters, digits, '-' and '_'; a file name in the archive"),
        "date": Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.DATE),
        "channel": _TEXT, "participants": _TEXTS, "topics": _TEXTS, "title": _TEXT, "summary": _TEXT,
        "messages": Schema(type=OpenAPIType.ARRAY, items=Schema(
            type=OpenAPIType.OBJECT, required=["role", "content"], properties={
                "id": _TEXT, "role": _TEXT, "content": _TEXT,
                "time": Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.DATE_TIME),
            })),
    },
}


class SessionSummary(msgspec.Struct):
    session_id: str
    date: str
    channel: str | None
    participants: list[str]
    topics: list[str]
    title: str | None
    summary: str | None
    message_count: int
    category: str | None
    status: SessionStatus  # a session ingested from a file is archived


class SessionList(msgspec.Struct):
    sessions: list[SessionSummary]
    total: int
    limit: int
    offset: int


class IngestResult(msgspec.Struct):
    session_id: str
    indexed: bool
    changed: bool


class ArchivedSession(Session, frozen=True, omit_defaults=True, rename="camel"):
    """The archive record as stored; with a token budget, only the newest messages that fit,
    and how many were left out."""

    omitted_messages: int | None = None
    estimated_tokens: int | None = None


class MemoryOut(msgspec.Struct):
    id: str
    type: MemoryType
    text: str
    confidence: float
    source_message_ids: list[str]
    entities: dict[str, list[str]]
    session_date: str
    kind: str | None
    priority: Priority | None
    due_date: str | None


class MemoriesPayload(msgspec.Struct, omit_defaults=True):
    session_id: str
    memories: list[MemoryOut]
    refined: bool | None = None  # set when refining was asked for
    refine_error: str | None = None  # why the rule-based memories came back unrefined


class SnapshotList(msgspec.Struct):
    session_id: str
    snapshots: list[Snapshot]


class PrunedSnapshots(msgspec.Struct):
    session_id: str
    deleted: int
    snapshots: list[Snapshot]


class Topic(msgspec.Struct):
    topic: str
    sessions: int


class OpenTask(msgspec.Struct):
    text: str
    session_id: str
    due_date: str | None
    priority: Priority | None
    source_message_ids: list[str]
    memory_id: str  # to promote it: POST /v1/todos/promote


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
    activity: list[DayActivity]


class IndexStats(msgspec.Struct):
    generation: str
    embedder: str
    dim: int
    keyword_documents: int
    vector_passages: int
    disk_bytes: int


class Stats(msgspec.Struct, omit_defaults=True):
    home: str
    sessions: int
    messages: int
    unfinished: int
    first_date: str | None
    last_date: str | None
    channels: dict[str, int]
    quarantined: int
    archive_bytes: int
    index: IndexStats | None = None  # absent until something is indexed


class Difference(msgspec.Struct):
    session_id: str | None
    kind: str
    detail: str


class ConsistencyReport(msgspec.Struct):
    ok: bool
    sessions: int
    generation: str | None
    keyword_documents: int
    vector_passages: int
    differences: list[Difference]


class Health(msgspec.Struct):
    status: str
    sessions: int
    generation: str | None
