"""MCP tools for finding: search_archive, whose arguments are the search parameters as
api/service/search_params.py declares them (every one, each with its type, limits and help), and
context_pack."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from mcp.server import MCPServer
from pydantic import Field

from api.mcp.results import READS, tool_result
from api.service import RecallService
from api.service.pack import ContextPack
from api.service.search_params import SEARCH_PARAMS, Param, search_params
from models import SearchResponse

__all__ = ["add_search_tools"]

# an agent pays for every result it reads: fewer by default than the command line's 10
TOOL_DEFAULTS = {"limit": 5}

SEARCH_DESCRIPTION = (
    "Search the archive of past conversations for sessions matching a query, best first. "
    "Use it whenever the user mentions something said or decided before. Chinese and English "
    "both work, by words or by meaning; put an exact phrase in double quotes. Each result has "
    "session_id, date, channel, title (or, when it has none, opening: its first request), score "
    "and up to three best messages with a snippet "
    "(highlights are [start, end) offsets into it). Pass a session_id to get_session to read "
    "the whole conversation. An empty results list means nothing relevant was found.")


def add_search_tools(server: MCPServer, service: RecallService) -> None:
    def search_archive(**values: Any) -> SearchResponse:
        return service.search(search_params(values).request())

    search_archive.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [_argument(p) for p in SEARCH_PARAMS], return_annotation=SearchResponse)
    server.tool(annotations=READS, description=SEARCH_DESCRIPTION)(tool_result(search_archive))

    @server.tool(annotations=READS, description=(
        "The best evidence from past sessions for a question, within a token budget: decisions "
        "first (newest first), then the matching messages, each cited by session_id, "
        "message_id, date and agent, deduplicated. Paste `markdown` into your context."))
    @tool_result
    def context_pack(
        query: Annotated[str, Field(description="the question or topic; 中文或英文")],
        budget: Annotated[int, Field(description="about how many tokens the pack may use")] = 1500,
    ) -> ContextPack:
        return service.pack(query, budget)


def _argument(param: Param) -> inspect.Parameter:
    """A search parameter as a tool argument: its type, limits, default and help."""
    kind = param.kind | None if param.optional else param.kind
    default = TOOL_DEFAULTS.get(param.name, param.default)
    field = Field(description=param.description, ge=param.limits.get("ge"),
                  le=param.limits.get("le"), max_length=param.limits.get("max_length"),
                  # shown, and checked by search_params with a clearer message
                  json_schema_extra={"pattern": param.limits["pattern"]}
                  if "pattern" in param.limits else None)
    return inspect.Parameter(
        param.name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[kind, field],
        default=inspect.Parameter.empty if param.name == "query" else default)
