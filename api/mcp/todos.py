"""MCP tools for todos: add_todo, complete_todo, list_todos (same service and checks as HTTP)."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server import MCPServer
from pydantic import Field

from api.mcp.results import READS, WRITES, WRITES_IDEMPOTENT, tool_result
from api.service import RecallService
from api.service.todos import TodoList
from models.todo import Todo

__all__ = ["add_todo_tools"]


def add_todo_tools(server: MCPServer, service: RecallService) -> None:
    @server.tool(annotations=WRITES, description=(
        "Add a todo for a day, a week or a month (the date is any day in it; default today). "
        "Give memory_id to link it to a task from extract_memories (its session is linked too), "
        "or session_id to link it to a session. Secrets in the text are redacted. Returns the "
        "todo with its id, for complete_todo."))
    @tool_result
    def add_todo(
        content: Annotated[str, Field(description="what to do")],
        period: Annotated[Literal["day", "week", "month"], Field(
            description="day, week (Monday to Sunday) or month")] = "week",
        date: Annotated[str | None, Field(
            description="YYYY-MM-DD inside the period; default today")] = None,
        session_id: Annotated[str | None, Field(
            description="the session this todo comes from, if any")] = None,
        memory_id: Annotated[str | None, Field(
            description="the extracted task memory this todo comes from, if any")] = None,
    ) -> Todo:
        return service.todos.add(content, period, date, source_session_id=session_id,
                                 source_memory_id=memory_id)

    @server.tool(annotations=WRITES_IDEMPOTENT, description=(
        "Mark a todo done by its id (from add_todo or list_todos). Completing it again changes "
        "nothing."))
    @tool_result
    def complete_todo(
        todo_id: Annotated[str, Field(description="the todo's id")],
    ) -> Todo:
        return service.todos.complete(todo_id)

    @server.tool(annotations=READS, description=(
        "List todos. With a date: the todos whose period holds that day (its day, week and "
        "month), or with a period too, only that period's. status is open (default), done or "
        "all. Use at the start of a conversation to see what is planned."))
    @tool_result
    def list_todos(
        period: Annotated[Literal["day", "week", "month"] | None, Field(
            description="only todos of this period")] = None,
        date: Annotated[str | None, Field(description="YYYY-MM-DD; default any date")] = None,
        status: Annotated[Literal["open", "done", "all"], Field(
            description="open (default), done or all")] = "open",
        limit: Annotated[int, Field(description="how many to return, at most 500")] = 100,
    ) -> TodoList:
        return service.todos.listing(period, date, status, limit=limit)
