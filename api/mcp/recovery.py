"""MCP tools for resuming work: which snapshot to resume from, and what changed since one (the
same service and checks as HTTP's /v1/recovery and snapshots)."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from pydantic import Field

from api.mcp.results import READS, tool_result
from api.service import RecallService
from models import ChangeReport, RecoveryDecision

__all__ = ["add_recovery_tools"]


def add_recovery_tools(server: MCPServer, service: RecallService) -> None:
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
