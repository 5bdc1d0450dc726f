"""The MCP server for agents: tools over the service, stdio and streamable HTTP."""

from api.mcp.server import build_mcp, run_stdio

__all__ = ["build_mcp", "run_stdio"]
