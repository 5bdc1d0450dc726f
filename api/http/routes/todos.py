"""Todos over HTTP (`/v1/todos`): add, list, read, complete, reopen, promote from a task.

Handlers are a few lines each: the checks live in the service (api/service/todos.py), so the
CLI and MCP tools apply the same ones, and every error is a RecallError that
api/http/problems.py turns into the one problem body.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from litestar import Response, Router, get, post
from litestar.openapi import ResponseSpec
from litestar.params import FromQuery, JSONBody, PathParameter, QueryParameter

from api.http.params import Day, Service
from api.http.problems import problem_responses
from api.http.scopes import READ, WRITE
from api.service.limits import MAX_ID_LENGTH
from api.service.todos import MAX_TODO_ID, MAX_TODO_PAGE, PromoteResult, TodoList
from models.todo import MAX_TODO_CHARS, Todo, TodoPeriod

__all__ = ["router"]

TodoId = Annotated[str, PathParameter(min_length=1, max_length=MAX_TODO_ID)]
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


@post("/todos", opt=WRITE, sync_to_thread=True, status_code=201, responses=problem_responses(400, 413),
      summary="Add a todo for a day, week or month, optionally linked to a session or memory")
def add_todo_route(service: Service, data: JSONBody[TodoCreate]) -> Todo:
    return service.todos.add(data.content, data.period, data.date,
                             source_session_id=data.source_session_id,
                             source_memory_id=data.source_memory_id)


@get("/todos", opt=READ, sync_to_thread=True, responses=problem_responses(400),
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
    return service.todos.listing(period, date, status, limit=limit, offset=offset)


@get("/todos/{todo_id:str}", opt=READ, sync_to_thread=True, responses=problem_responses(400, 404),
     summary="One todo")
def get_todo_route(service: Service, todo_id: TodoId) -> Todo:
    return service.todos.get(todo_id)


@post("/todos/{todo_id:str}/done", opt=WRITE, sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 404), summary="Mark a todo done (again: no change)")
def complete_todo_route(service: Service, todo_id: TodoId) -> Todo:
    return service.todos.complete(todo_id)


@post("/todos/{todo_id:str}/reopen", opt=WRITE, sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 404), summary="Mark a done todo open again")
def reopen_todo_route(service: Service, todo_id: TodoId) -> Todo:
    return service.todos.reopen(todo_id)


@post("/todos/promote", opt=WRITE, sync_to_thread=True, status_code=201,
      responses={200: ResponseSpec(PromoteResult, description="promoted before: that todo"),
                 **problem_responses(400, 404, 413)},
      summary="Make a todo of a task extracted from a session (once per task)")
def promote_todo_route(service: Service, data: JSONBody[TodoPromote]) -> Response[PromoteResult]:
    result = service.todos.promote(data.memory_id, data.period, data.date)
    return Response(result, status_code=201 if result.created else 200)


router = Router(path="/", route_handlers=[add_todo_route, list_todos_route, promote_todo_route,
                                          get_todo_route, complete_todo_route, reopen_todo_route])

