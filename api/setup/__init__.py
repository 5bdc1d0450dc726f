"""Setting recall up for other programs: `recall setup mcp` adds recall's stdio MCP server to
each coding agent's own config file (agents.py says where and in what shape), editing JSON,
JSONC and TOML in place (jsonc.py, tomlconf.py) and writing with a backup (files.py).

The names below are loaded on first use (PEP 562): the CLI lists the agents without loading
the editors and the TOML library."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.lazy import lazy_names

if TYPE_CHECKING:
    from api.setup.agents import AGENTS, Agent, Place
    from api.setup.edit import AgentResult, SetupReport, setup_mcp
    from api.setup.server import ServerSpec, find_recall, server_spec
    from api.setup.values import ConfigError

__all__ = ["AGENTS", "Agent", "AgentResult", "ConfigError", "Place", "ServerSpec", "SetupReport",
           "find_recall", "server_spec", "setup_mcp"]

# where each name is defined
_MODULES = {"AGENTS": "api.setup.agents", "Agent": "api.setup.agents",
            "Place": "api.setup.agents", "AgentResult": "api.setup.edit",
            "SetupReport": "api.setup.edit", "setup_mcp": "api.setup.edit",
            "ServerSpec": "api.setup.server", "find_recall": "api.setup.server",
            "server_spec": "api.setup.server", "ConfigError": "api.setup.values"}

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    __getattr__, __dir__ = lazy_names(__name__, _MODULES, globals())
