"""MCP tools for what sessions hold beyond their messages: extracted memories, the digest of a
period, and what stands now (the same service and checks as HTTP)."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from pydantic import Field

from api.mcp.results import READS, tool_result
from api.service import RecallService
from api.service.facts import FactsPayload
from api.service.memories import MemoriesPayload
from search.digest import Digest

__all__ = ["add_memory_tools"]


def add_memory_tools(server: MCPServer, service: RecallService) -> None:
    @server.tool(annotations=READS, description=(
        "Extract what is worth remembering from an archived session: 'user' (facts and "
        "preferences about the person), 'feedback' (corrections and instructions to the "
        "assistant), 'project' (decisions, constraints, tasks with priority and due date), "
        "'reference' (links, versions, numbers, names). Each memory has its source message ids."))
    @tool_result
    def extract_memories(
        session_id: Annotated[str, Field(description="the session_id, from search_archive results")],
        types: Annotated[list[str] | None, Field(description="only these types; default all")] = None,
        refine: Annotated[bool, Field(
            description="let the configured LLM endpoint revise them (only if one is set)")] = False,
    ) -> MemoriesPayload:
        return service.memories.extract(session_id, types, refine=refine)

    @server.tool(annotations=READS, description=(
        "A digest of a day, week or month around a date: active topics with counts, open tasks, "
        "the todos of the period (open and done), and one line of activity per day. Use for "
        "'what did we do last week?'."))
    @tool_result
    def memory_digest(
        period: Annotated[str, Field(description="day, week or month")] = "week",
        date: Annotated[str | None, Field(description="YYYY-MM-DD inside the period; default today")] = None,
    ) -> Digest:
        return service.digest(period, date)

    @server.tool(annotations=READS, description=(
        "What stands now: decisions and values (times, amounts, versions, places, paths, "
        "preferences) with status current or superseded, each superseded one with what replaced "
        "it, when and why. Use for 'what did we finally decide about X', 'where does my config "
        "live now', '最后定了多少'; history=true gives each chain oldest to newest."))
    @tool_result
    def current_facts(
        subject: Annotated[str | None, Field(
            description="words of the subject, e.g. 'Friday deploys'; default every subject")] = None,
        history: Annotated[bool, Field(
            description="each chain oldest to newest instead of only what stands now")] = False,
        limit: Annotated[int, Field(description="at most this many facts or chains")] = 20,
    ) -> FactsPayload:
        return service.facts.list(subject, "history" if history else "current", limit)
