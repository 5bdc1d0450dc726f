"""HTTP routes of live sessions: append messages, change the status (start is POST /v1/sessions,
listing by status and category is GET /v1/sessions: routes/sessions.py)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Router, patch, post
from litestar.params import Body, JSONBody

from api.http.params import Service, SessionId
from api.http.problems import problem_responses
from api.http.scopes import WRITE
from api.http.wire import APPEND_BODY
from api.service.live import AppendResult, LiveSession
from models import SessionStatus

__all__ = ["router"]


class StatusRequest(msgspec.Struct, forbid_unknown_fields=True):
    status: SessionStatus
    # only when archiving: the summary to keep (default: the session's own, else one is made)
    summary: Annotated[str, msgspec.Meta(max_length=20_000)] | None = None


@post("/sessions/{session_id:str}/messages", opt=WRITE, sync_to_thread=True, status_code=201,
      responses=problem_responses(400, 404, 409, 413, 503),
      summary="Append one message or a batch to a live session; searchable when this returns")
def append_route(service: Service, session_id: SessionId,
                 data: Annotated[dict[str, Any], Body(schema_extra=APPEND_BODY)]) -> AppendResult:
    return service.live.append(session_id, data)


@patch("/sessions/{session_id:str}", opt=WRITE, sync_to_thread=True, status_code=200,
       responses=problem_responses(400, 404, 409, 413, 503),
       summary="Change a live session's status: active, paused or archived (final)")
def status_route(service: Service, session_id: SessionId, data: JSONBody[StatusRequest]) -> LiveSession:
    return service.live.set_status(session_id, data.status, data.summary)


router = Router(path="/", route_handlers=[append_route, status_route])
