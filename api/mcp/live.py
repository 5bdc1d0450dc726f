"""MCP tools for live sessions: start one, append messages, change its status."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from pydantic import Field

from api.mcp.results import WRITES, tool_result
from api.service import RecallService
from api.service.live import AppendResult, LiveSession

__all__ = ["add_live_tools"]


def add_live_tools(server: MCPServer, service: RecallService) -> None:
    """Add the live-session tools to `server`."""
    @server.tool(annotations=WRITES, description=(
        "Start a live session: a conversation archived as it happens. Returns its session_id; "
        "then call append_messages as the conversation goes on, so search_archive finds every "
        "message within a second. category says what kind of conversation it is (planning, "
        "debugging, ...)."))
    @tool_result
    def start_session(
        title: Annotated[str | None, Field(description="a short title")] = None,
        channel: Annotated[str | None, Field(description="where it happens: cli, webchat, ...")] = None,
        category: Annotated[str | None, Field(description="what kind of conversation")] = None,
        session_id: Annotated[str | None, Field(
            description="its id (letters, digits, '-', '_'); default a new UUID")] = None,
    ) -> LiveSession:
        body = {k: v for k, v in (("session_id", session_id), ("title", title),
                                  ("channel", channel), ("category", category)) if v is not None}
        return service.live.start(body)

    @server.tool(annotations=WRITES, description=(
        "Append messages to a live session (from start_session), in order: each {role, "
        "content} with optional time (ISO-8601; default now), id and speaker. Secrets are "
        "redacted before anything is stored. A message repeated with the same id and content is "
        "not added twice. An archived session takes no more messages."))
    @tool_result
    def append_messages(
        session_id: Annotated[str, Field(description="the live session's id")],
        messages: Annotated[list[dict[str, Any]], Field(
            description="the messages, oldest first: [{\"role\": \"user\", \"content\": \"...\"}]")],
    ) -> AppendResult:
        return service.live.append(session_id, messages)

    @server.tool(annotations=WRITES, description=(
        "Change a live session's status: paused (saves a snapshot to resume from), active "
        "(resume it) or archived (final: it is summarized, its memories extracted, and it takes "
        "no more messages)."))
    @tool_result
    def set_session_status(
        session_id: Annotated[str, Field(description="the live session's id")],
        status: Annotated[Literal["active", "paused", "archived"], Field(
            description="the new status")],
        summary: Annotated[str | None, Field(
            description="only when archiving: the summary to keep")] = None,
    ) -> LiveSession:
        return service.live.set_status(session_id, status, summary)
