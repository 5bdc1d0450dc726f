"""OpenAPI schemas of the bodies that routes read liberally (as dicts): the archive record, the
start of a live session, appended messages. Results are the service's typed records."""

from __future__ import annotations

from typing import Any

from litestar.openapi.spec import OpenAPIFormat, OpenAPIType, Schema

from models.ids import MAX_ID_LENGTH

__all__ = ["APPEND_BODY", "SESSION_RECORD", "START_SESSION"]

_TEXT = Schema(type=OpenAPIType.STRING)
_TEXTS = Schema(type=OpenAPIType.ARRAY, items=_TEXT)

# The body of POST /v1/sessions: one record of the archive format. The route parses it
# liberally (snake_case keys, content blocks, epoch times, ... are accepted too: models/parse.py);
# this is the plain form every producer can write.
SESSION_RECORD: dict[str, Any] = {
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

_MESSAGE = Schema(type=OpenAPIType.OBJECT, required=["role", "content"], properties={
    "role": _TEXT, "content": _TEXT, "id": _TEXT, "speaker": _TEXT,
    "time": Schema(type=OpenAPIType.STRING, description="ISO-8601; default: when it is appended")})

# POST /v1/sessions with no messages and no date starts a live session (api/service/live.py)
START_SESSION = Schema(type=OpenAPIType.OBJECT, description="start a live session", properties={
    "sessionId": Schema(type=OpenAPIType.STRING, description="default: a new UUID"),
    "title": _TEXT, "channel": _TEXT, "category": _TEXT,
    "participants": Schema(type=OpenAPIType.ARRAY, items=_TEXT),
    "topics": Schema(type=OpenAPIType.ARRAY, items=_TEXT)})

# POST /v1/sessions/{id}/messages
APPEND_BODY: dict[str, Any] = {
    "description": "one message, or a batch {\"messages\": [...]} (at most 1000)",
    "one_of": [_MESSAGE, Schema(type=OpenAPIType.OBJECT, required=["messages"],
                                properties={"messages": Schema(
                                    type=OpenAPIType.ARRAY, items=_MESSAGE)})]}
