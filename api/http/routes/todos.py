"""HTTP routes for todos (`/v1/todos`) and cleanup (`/v1/cleanup`), with their wire shapes.

Handlers are a few lines each: the checks live in the service (api/todo_service.py,
api/cleanup_service.py), so the CLI and MCP tools apply the same ones, and every error is a
RecallError that api/problems.py turns into the one problem body.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from litestar import Response, get, post
from litestar.di import NamedDependency
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import ResponseSpec
from litestar.params import FromQuery, JSONBody, PathParameter, QueryParameter

from api.http.problems import problem_responses
from api.service.cleanup import MAX_FILTER_VALUES
from api.service.core import RecallService
from api.service.limits import MAX_ID_LENGTH, MAX_PARAM_CHARS
from api.service.todos import MAX_TODO_ID, MAX_TODO_PAGE
from models.todo import MAX_TODO_CHARS, Todo, TodoPeriod

__all__ = ["CleanupReport", "PromoteResult", "TodoList", "todo_routes"]

Service = NamedDependency[RecallService]
TodoId = Annotated[str, PathParameter(min_length=1, max_length=MAX_TODO_ID)]
Day = Annotated[str, msgspec.Meta(max_length=10, pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                                  description="YYYY-MM-DD; default today")]
_MEMORY_ID_LENGTH = MAX_ID_LENGTH + 20  # "<session id>:mem:<12 hex>"


class TodoCreate(msgspec.Struct, forbid_unknown_fields=True):
    content: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TODO_CHARS)]
    period: TodoPeriod = "week"
    date: Day | None = None  # any day in the period; stored as the period's first day
    source_session_id: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LENGTH)] | None = None
    source_memory_id: Annotated[str, msgspec.Meta(min_length=1, max_length=_MEMORY_ID_LENGTH)] | None = None


class TodoPromote(msgspec.Struct, forbid_unknown_fields=True):
    memory_id: Annotated[str, msgspec.Meta(min_length=1, max_length=_MEMORY_ID_LENGTH)]
    period: TodoPeriod | None = None  # default: day when the task has a due date, else week
    date: Day | None = None  # default: the task's due date, else today


class CleanupRequest(msgspec.Struct, forbid_unknown_fields=True):
    older_than: Annotated[str, msgspec.Meta(
        max_length=20, pattern=r"^\s*[0-9]{1,6}\s*[dwDW]?\s*$",
        description="90d, 12w or 90 (days), counted from each session's last activity")] | None = None
    categories: Annotated[list[Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_PARAM_CHARS)]],
                          msgspec.Meta(max_length=MAX_FILTER_VALUES)] = msgspec.field(default_factory=list)
    channels: Annotated[list[Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_PARAM_CHARS)]],
                        msgspec.Meta(max_length=MAX_FILTER_VALUES)] = msgspec.field(default_factory=list)
    keep_snapshots: Annotated[int, msgspec.Meta(ge=1)] | None = None
    dry_run: bool = True  # say what would go; false deletes it
    as_of: Day | None = None  # count ages up to this day


class TodoList(msgspec.Struct):
    todos: list[Todo]
    total: int
    limit: int
    offset: int


class PromoteResult(msgspec.Struct):
    todo: Todo
    created: bool  # false: the memory had been promoted before, this is that todo


class DoomedSessionOut(msgspec.Struct):
    session_id: str
    date: str
    last_activity: str
    category: str | None
    channel: str | None
    messages: int
    snapshots: int
    promoted_todos: int
    linked_todos: int


class PrunedSnapshotsOut(msgspec.Struct):
    session_id: str
    deleted: int
    kept: int


class CleanupTotals(msgspec.Struct):
    sessions: int
    messages: int
    snapshots: int
    promoted_todos: int


class CleanupApplied(msgspec.Struct):
    sessions: list[str]
    skipped: list[str]  # changed since they were chosen: left alone
    snapshots_pruned: int


class CleanupReport(msgspec.Struct, omit_defaults=True):
    dry_run: bool
    as_of: str
    older_than_days: int | None
    categories: list[str]
    channels: list[str]
    keep_snapshots: int | None
    sessions: list[DoomedSessionOut]
    snapshots: list[PrunedSnapshotsOut]
    totals: CleanupTotals
    applied: CleanupApplied | None = None  # only when dry_run is false


@post("/todos", sync_to_thread=True, status_code=201, responses=problem_responses(400, 413),
      summary="Add a todo for a day, week or month, optionally linked to a session or memory")
def add_todo_route(service: Service, data: JSONBody[TodoCreate]) -> Todo:
    return service.todos.add(data.content, data.period, data.date,
                             source_session_id=data.source_session_id,
                             source_memory_id=data.source_memory_id)


@get("/todos", sync_to_thread=True, responses=problem_responses(400),
     summary="Todos by period, date and status")
def list_todos_route(
    service: Service,
    period: Annotated[TodoPeriod | None, QueryParameter(
        description="only todos of this period; with date, only that period's")] = None,
    date: Annotated[str | None, QueryParameter(
        max_length=10, description="YYYY-MM-DD: todos whose period holds this day",
        schema_extra={"format": "date"})] = None,
    status: FromQuery[Literal["open", "done", "all"]] = "open",
    limit: Annotated[int, QueryParameter(ge=1, le=MAX_TODO_PAGE)] = 100,
    offset: Annotated[int, QueryParameter(ge=0)] = 0,
) -> TodoList:
    page = service.todos.list(period, date, status, limit=limit, offset=offset)
    return msgspec.convert(page, TodoList)


@get("/todos/{todo_id:str}", sync_to_thread=True, responses=problem_responses(400, 404),
     summary="One todo")
def get_todo_route(service: Service, todo_id: TodoId) -> Todo:
    return service.todos.get(todo_id)


@post("/todos/{todo_id:str}/done", sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 404), summary="Mark a todo done (again: no change)")
def complete_todo_route(service: Service, todo_id: TodoId) -> Todo:
    return service.todos.complete(todo_id)


@post("/todos/{todo_id:str}/reopen", sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 404), summary="Mark a done todo open again")
def reopen_todo_route(service: Service, todo_id: TodoId) -> Todo:
    return service.todos.reopen(todo_id)


@post("/todos/promote", sync_to_thread=True, status_code=201,
      responses={200: ResponseSpec(PromoteResult, description="promoted before: that todo"),
                 **problem_responses(400, 404, 413)},
      summary="Make a todo of a task extracted from a session (once per task)")
def promote_todo_route(service: Service, data: JSONBody[TodoPromote]) -> Response[PromoteResult]:
    todo, created = service.todos.promote(data.memory_id, data.period, data.date)
    return Response(PromoteResult(todo, created), status_code=201 if created else 200)


@post("/cleanup", sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 409, 413, 503),
      summary="Delete sessions older than an age (by category or channel) and old snapshots; "
              "a dry run unless dry_run is false")
def cleanup_route(service: Service, data: JSONBody[CleanupRequest]) -> CleanupReport:
    report = service.cleanup(older_than=data.older_than, categories=data.categories,
                             channels=data.channels, keep_snapshots=data.keep_snapshots,
                             apply=not data.dry_run, today=data.as_of)
    return msgspec.convert(report, CleanupReport)


def todo_routes() -> list[HTTPRouteHandler]:
    """The handlers to mount under /v1."""
    return [add_todo_route, list_todos_route, promote_todo_route, get_todo_route,
            complete_todo_route, reopen_todo_route, cleanup_route]

