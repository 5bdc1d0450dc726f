"""HTTP routes of live sessions: append messages, change the status (start is POST /v1/sessions,
listing by status and category is GET /v1/sessions: api/app.py)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import patch, post
from litestar.di import NamedDependency
from litestar.openapi.spec import OpenAPIType, Schema
from litestar.params import Body, JSONBody, PathParameter

from api.http.problems import problem_responses
from api.service.core import RecallService
from api.service.limits import MAX_ID_LENGTH
from models import SessionStatus

__all__ = ["START_SESSION", "AppendResult", "LiveSession", "StatusChangeOut", "live_routes"]

Service = NamedDependency[RecallService]
SessionId = Annotated[str, PathParameter(min_length=1, max_length=MAX_ID_LENGTH)]

_TEXT = Schema(type=OpenAPIType.STRING)
_MESSAGE = Schema(type=OpenAPIType.OBJECT, required=["role", "content"], properties={
    "role": _TEXT, "content": _TEXT, "id": _TEXT, "speaker": _TEXT,
    "time": Schema(type=OpenAPIType.STRING, description="ISO-8601; default: when it is appended")})
# POST /v1/sessions with no messages and no date starts a live session (api/live_service.py)
START_SESSION = Schema(type=OpenAPIType.OBJECT, description="start a live session", properties={
    "sessionId": Schema(type=OpenAPIType.STRING, description="default: a new UUID"),
    "title": _TEXT, "channel": _TEXT, "category": _TEXT,
    "participants": Schema(type=OpenAPIType.ARRAY, items=_TEXT),
    "topics": Schema(type=OpenAPIType.ARRAY, items=_TEXT)})
APPEND_BODY = {"description": "one message, or a batch {\"messages\": [...]} (at most 1000)",
               "one_of": [_MESSAGE, Schema(type=OpenAPIType.OBJECT, required=["messages"],
                                           properties={"messages": Schema(
                                               type=OpenAPIType.ARRAY, items=_MESSAGE)})]}


class StatusChangeOut(msgspec.Struct):
    status: SessionStatus
    at: str


class LiveSession(msgspec.Struct):
    session_id: str
    status: SessionStatus
    date: str
    title: str | None
    channel: str | None
    category: str | None
    summary: str | None
    message_count: int
    status_history: list[StatusChangeOut]


class AppendResult(msgspec.Struct):
    session_id: str
    status: SessionStatus
    appended: int
    duplicates: int  # already there with the same id and content (a retried append)
    message_ids: list[str]  # one per message given, in order
    message_count: int
    redacted: dict[str, int]  # secrets redacted, by kind


class StatusRequest(msgspec.Struct, forbid_unknown_fields=True):
    status: SessionStatus
    # only when archiving: the summary to keep (default: the session's own, else one is made)
    summary: Annotated[str, msgspec.Meta(max_length=20_000)] | None = None


@post("/sessions/{session_id:str}/messages", sync_to_thread=True, status_code=201,
      responses=problem_responses(400, 404, 409, 413, 503),
      summary="Append one message or a batch to a live session; searchable when this returns")
def append_route(service: Service, session_id: SessionId,
                 data: Annotated[dict[str, Any], Body(schema_extra=APPEND_BODY)]) -> AppendResult:
    return msgspec.convert(service.append_messages(session_id, data), AppendResult)


@patch("/sessions/{session_id:str}", sync_to_thread=True, status_code=200,
       responses=problem_responses(400, 404, 409, 503),
       summary="Change a live session's status: active, paused or archived (final)")
def status_route(service: Service, session_id: SessionId, data: JSONBody[StatusRequest]) -> LiveSession:
    view = service.set_session_status(session_id, data.status, data.summary)
    return msgspec.convert(view, LiveSession)


def live_routes() -> list[Any]:
    return [append_route, status_route]
