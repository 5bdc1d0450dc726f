"""MCP server for agents: search, read, archive and delete sessions over one RecallService.

Transports: stdio (`run_stdio`, what `recall mcp` and `python -m api.mcp.server` run) and
streamable HTTP (`streamable_http_app`, mounted at /mcp by the HTTP app; see its docstring).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from api.mcp.live import add_live_tools
from api.mcp.memories import add_memory_tools
from api.mcp.recovery import add_recovery_tools
from api.mcp.results import TOOL_SCOPES, scope_of
from api.mcp.search import add_search_tools
from api.mcp.sessions import add_session_tools
from api.mcp.todos import add_todo_tools
from api.service import RecallService
from api.settings import Settings

__all__ = ["build_mcp", "mcp_lifespan", "run_stdio", "streamable_http_app"]

# How long start-up waits for the model before answering `initialize`. Loading takes ~0.5 s,
# so the first tool call finds it ready; a first run that must build the model (about a
# minute) answers anyway, and the first call waits only for the load already under way.
WARM_WAIT_S = 1.5


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

    add_search_tools(server, service)
    add_session_tools(server, service)
    add_memory_tools(server, service)
    add_recovery_tools(server, service)
    add_live_tools(server, service)
    add_todo_tools(server, service)
    for tool in server._tool_manager.list_tools():
        # tool_result looks the scope up by its function's name: a tool registered under another
        # name, or one whose annotations declare no scope, is refused here, at build time
        if getattr(tool.fn, "__name__", None) != tool.name:
            raise RuntimeError(f"MCP tool {tool.name!r} is registered under a name other than "
                               "its function's; its scope could not be checked")
        try:
            TOOL_SCOPES[tool.name] = scope_of(tool.annotations)
        except ValueError as exc:
            raise RuntimeError(f"MCP tool {tool.name!r}: {exc}") from None
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
