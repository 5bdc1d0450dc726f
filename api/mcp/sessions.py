"""MCP tools for sessions: read one, archive one, delete one, and how to reopen it in its agent
(the same service and checks as HTTP's /v1/sessions)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from mcp.server import MCPServer
from pydantic import Field

from api.mcp.results import DELETES, READS, WRITES_IDEMPOTENT, tool_result
from api.service import RecallService
from api.service.indexing import IngestResult
from api.service.sessions import ArchivedSession
from models import ResumeHint

__all__ = ["Deleted", "add_session_tools"]


class Deleted(msgspec.Struct):
    session_id: str
    deleted: bool = True


def add_session_tools(server: MCPServer, service: RecallService) -> None:
    @server.tool(annotations=READS, description=(
        "Read one archived session by its session_id (from search_archive): summary, topics, "
        "decisions and messages. With token_budget, returns the summary plus only the newest "
        "messages that fit in about that many tokens, and says how many were omitted."))
    @tool_result
    def get_session(
        session_id: Annotated[str, Field(description="the session_id of a search result")],
        token_budget: Annotated[int | None, Field(
            description="keep the answer under about this many tokens")] = None,
    ) -> ArchivedSession:
        return service.session(session_id, token_budget)

    @server.tool(annotations=READS, description=(
        "How to pick a session up again in the coding agent that wrote it: the command to run "
        "(e.g. `claude --resume <id>`, `codex resume <id>`) and the folder to run it in; when "
        "the agent cannot reopen it, a note saying so with the transcript's path. For context "
        "to paste instead, use get_session with a token_budget."))
    @tool_result
    def resume_session(
        session_id: Annotated[str, Field(description="the session_id of a search result")],
    ) -> ResumeHint:
        return service.resume(session_id)

    @server.tool(annotations=WRITES_IDEMPOTENT, description=(
        "Save a conversation into the archive and index it so search_archive can find it. "
        "`session` is one archive record: session_id (letters, digits, '-', '_'; archive files "
        "say sessionId, also taken), date (YYYY-MM-DD), messages (a list of {role, content, "
        "time?}), and optionally channel, participants, topics, decisions, summary. Secrets are "
        "redacted before anything is stored. Saving the same session_id again with more "
        "messages after the stored ones, or new details, updates it; a record that drops or "
        "changes stored messages is refused. changed is false if nothing differed."))
    @tool_result
    def archive_session(
        session: Annotated[dict[str, Any], Field(description="the session record to archive")],
    ) -> IngestResult:
        return service.ingest_record(session)

    @server.tool(annotations=DELETES, description=(
        "Delete one session permanently from the archive and both search indexes. Only when "
        "the user asks for it."))
    @tool_result
    def delete_session(
        session_id: Annotated[str, Field(description="the session_id to delete")],
    ) -> Deleted:
        service.delete(session_id)
        return Deleted(session_id)
