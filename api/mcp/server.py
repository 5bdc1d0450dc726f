"""MCP server for agents: search, read, archive and delete sessions over one RecallService.

Transports: stdio (`run_stdio`, what `recall mcp` and `python -m api.mcp.server` run) and
streamable HTTP (`streamable_http_app`, mounted at /mcp by the HTTP app; see its docstring).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

import msgspec
from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import Field
from starlette.applications import Starlette

from api.mcp.live import add_live_tools
from api.mcp.results import DELETES, READS, TOOL_SCOPES, WRITES_IDEMPOTENT, scope_of, tool_result
from api.mcp.todos import add_todo_tools
from api.service import RecallService
from api.service.facts import FactsPayload
from api.service.indexing import IngestResult
from api.service.memories import MemoriesPayload
from api.service.pack import ContextPack
from api.service.requests import search_request
from api.service.sessions import ArchivedSession
from api.settings import Settings
from models import ChangeReport, RecoveryDecision, ResumeHint, SearchResponse
from search.digest import Digest

__all__ = ["build_mcp", "mcp_lifespan", "run_stdio", "streamable_http_app"]

# How long start-up waits for the model before answering `initialize`. Loading takes ~0.5 s,
# so the first tool call finds it ready; a first run that must build the model (about a
# minute) answers anyway, and the first call waits only for the load already under way.
WARM_WAIT_S = 1.5


class Deleted(msgspec.Struct):
    session_id: str
    deleted: bool = True


INSTRUCTIONS = (
    "recall searches the user's archived conversations with AI assistants (Chinese and English). "
    "Call search_archive when the user refers to something discussed before; then get_session "
    "to read a hit in full."
)


def build_mcp(service: RecallService) -> MCPServer:
    """An MCP server whose tools all call the one `service` given."""
    # WARNING: the SDK otherwise sets the root logger to INFO for the whole process
    server = MCPServer("recall", instructions=INSTRUCTIONS, log_level="WARNING")

    # Tools are plain sync functions: the SDK runs them on a worker thread, so search and
    # ingest (embedding, index writes) never block the event loop.

    @server.tool(annotations=READS, description=(
        "Search the archive of past conversations for sessions matching a query, best first. "
        "Use it whenever the user mentions something said or decided before. Chinese and English "
        "both work, by words or by meaning; put an exact phrase in double quotes. Each result has "
        "session_id, date, channel, title, score and up to three best messages with a snippet "
        "(highlights are [start, end) offsets into it). Pass a session_id to get_session to read "
        "the whole conversation. An empty results list means nothing relevant was found."))
    @tool_result
    def search_archive(
        query: Annotated[str, Field(description="words, a question or an identifier; 中文或英文")],
        date: Annotated[str | None, Field(
            description="only this day, month or year: YYYY-MM-DD, YYYY-MM or YYYY")] = None,
        since: Annotated[str | None, Field(
            description="only on or after this date: YYYY-MM-DD, YYYY-MM or YYYY")] = None,
        until: Annotated[str | None, Field(
            description="only on or before this date: YYYY-MM-DD, YYYY-MM or YYYY")] = None,
        channel: Annotated[str | None, Field(
            description="only sessions from this channel, e.g. telegram, discord, cli")] = None,
        scope: Annotated[Literal["messages", "memories", "all"], Field(
            description="messages (the conversations, default), memories (facts, preferences, "
                        "feedback, decisions and references extracted from them), or all")
        ] = "messages",
        limit: Annotated[int, Field(description="how many sessions to return")] = 5,
        memory_rank: Annotated[Literal["match", "relevance"], Field(
            description="match (default), or relevance: memories used more, and more lately, "
                        "rank higher (scope memories or all)")] = "match",
        strict: Annotated[bool, Field(
            description="true: only sessions with real evidence, and an empty list when the "
                        "archive likely holds no answer (fewer wrong results, some right ones "
                        "missed)")] = False,
        when: Annotated[Literal["current", "history"] | None, Field(
            description="current: how things stand now (of the sessions near the top, the "
                        "newest first); history: how they stood at first (the oldest first); "
                        "default: as the query's own words ask")] = None,
    ) -> SearchResponse:
        values = {"date": date, "since": since, "until": until, "channel": channel,
                  "scope": scope, "limit": limit, "memory_rank": memory_rank, "strict": strict,
                  "when": when}
        return service.search(search_request(values, query))

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
        "The best evidence from past sessions for a question, within a token budget: decisions "
        "first (newest first), then the matching messages, each cited by session_id, "
        "message_id, date and agent, deduplicated. Paste `markdown` into your context."))
    @tool_result
    def context_pack(
        query: Annotated[str, Field(description="the question or topic; 中文或英文")],
        budget: Annotated[int, Field(description="about how many tokens the pack may use")] = 1500,
    ) -> ContextPack:
        return service.pack(query, budget)

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
        "Decide which saved snapshot of a session to resume interrupted work from. Give the "
        "current context (what the user wants to continue) to rank by relevance; returns the "
        "chosen snapshot, a confidence, reasons, alternatives and a strategy (full_restore, "
        "partial_restore, merge_current, summarize_only, confirm_first)."))
    @tool_result
    def recover_session(
        session_id: Annotated[str, Field(description="the session whose snapshots to rank")],
        context: Annotated[str | None, Field(description="what the user wants to resume now")] = None,
        token_budget: Annotated[int | None, Field(
            description="compress the chosen snapshot to about this many tokens")] = None,
    ) -> RecoveryDecision:
        return service.snapshots.recover(session_id, context, token_budget=token_budget)

    @server.tool(annotations=READS, description=(
        "What changed in a session since a saved snapshot (default: the newest): intents added, "
        "removed or fulfilled, facts no longer true, tasks completed or changed, with a severity "
        "(none, minor, moderate, major) and advice. Use before resuming from an old snapshot."))
    @tool_result
    def snapshot_changes(
        session_id: Annotated[str, Field(description="the session whose snapshots to compare")],
        snapshot_id: Annotated[str | None, Field(
            description="compare from this snapshot; default the newest")] = None,
    ) -> ChangeReport:
        return service.snapshots.changes(session_id, snapshot_id)

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

    add_live_tools(server, service)
    add_todo_tools(server, service)
    for tool in server._tool_manager.list_tools():
        TOOL_SCOPES[tool.name] = scope_of(tool.annotations)
        if service.replica_of and TOOL_SCOPES[tool.name] != "read":
            server.remove_tool(tool.name)  # a read-only replica offers the reading tools only
    return server


def run_stdio(service: RecallService) -> None:
    """Serve over stdin/stdout until the client closes them (logs go to stderr)."""
    warming = threading.Thread(target=service.warm, name="recall-warm-up", daemon=True)
    warming.start()
    server = build_mcp(service)
    warming.join(WARM_WAIT_S)
    server.run("stdio")


def streamable_http_app(server: MCPServer) -> Starlette:
    """An ASGI app serving MCP streamable HTTP at its own root path "/".

    Mount it at /mcp (Litestar: an `asgi(path="/mcp", is_mount=True, copy_scope=True)`
    handler that awaits it); Litestar hands mounted apps the path below the mount, "/", so
    clients use http://HOST:PORT/mcp. A mounted app's own lifespan is not run by the host,
    so the host must run `mcp_lifespan(server)` in its lifespan (Litestar:
    `lifespan=[mcp_lifespan(server)]`); without it every request fails. Call this once per
    server, and build a new server for each new host app: a session manager runs only once.

    The SDK's own Host and Origin checks are off: the host app checks both for every route,
    /mcp included, with the names the user allowed (api/http/gate.py); the SDK would refuse
    those names and allow any port of localhost as an Origin. Stateless: recall's tools keep no
    per-client state, so any worker answers any request and a restart strands no client session.
    """
    return server.streamable_http_app(
        streamable_http_path="/", stateless_http=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))


@asynccontextmanager
async def mcp_lifespan(server: MCPServer) -> AsyncIterator[None]:
    """Run the session manager of `streamable_http_app(server)` for the host app's lifetime."""
    async with server.session_manager.run():
        yield


if __name__ == "__main__":
    run_stdio(RecallService(Settings.from_env()))
