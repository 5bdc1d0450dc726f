"""Where each agent keeps its user-wide MCP servers and how recall's entry looks there, read from
the agents' own source and docs (docs/mcp-setup.md cites them):

    agent        file (user scope)                                   servers under   format
    claude-code  ${CLAUDE_CONFIG_DIR:-~}/.claude.json                mcpServers      JSON
    codex        ${CODEX_HOME:-~/.codex}/config.toml                 mcp_servers     TOML
    gemini       ${GEMINI_CLI_HOME:-~}/.gemini/settings.json         mcpServers      JSONC
    cursor       ~/.cursor/mcp.json                                  mcpServers      JSON
    vscode       <user data>/Code/User/mcp.json                      servers         JSONC
    opencode     ${XDG_CONFIG_HOME:-~/.config}/opencode/opencode.json(c)  mcp        JSONC

Every path is worked out from an injected home, environment and platform, so tests never
touch the real ones. An agent is detected when its config folder exists or its program is on
PATH."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from api.setup.server import ServerSpec

__all__ = ["AGENTS", "NAME", "Agent", "Place"]

NAME = "recall"  # the server's name in every agent's config


@dataclass(frozen=True)
class Place:
    """Where one user's config of an agent is: `home`, the environment and the platform."""

    home: Path
    env: Mapping[str, str]
    platform: str  # sys.platform

    def var(self, name: str) -> str | None:
        return self.env.get(name) or None  # an empty variable counts as unset, as the agents do

    def on_path(self, program: str) -> str | None:
        return shutil.which(program, path=self.env.get("PATH", ""))


@dataclass(frozen=True)
class Agent:
    name: str
    label: str
    format: str  # "json" or "toml"
    container: tuple[str, ...]  # the keys the servers sit under
    comments: bool  # whether the agent reads comments and trailing commas in its JSON
    file: Callable[[Place], Path]
    folder: Callable[[Place], Path]  # detected when it exists ...
    programs: tuple[str, ...]  # ... or one of these is on PATH
    entry: Callable[[ServerSpec], dict[str, Any]]
    owned: tuple[str, ...]  # the entry's keys recall sets; any other key a user added is kept
    env_key: str  # the entry's key for environment variables
    # what a new file holds around the servers
    new_file: Callable[[dict[str, Any]], dict[str, Any]] = lambda root: root

    def detect(self, place: Place) -> str | None:
        """Why the agent counts as installed ("~/.codex exists", "codex on PATH"), or None."""
        for found in (self.folder(place), self.file(place)):
            if found.exists():
                return f"{found} exists"
        for program in self.programs:
            if place.on_path(program):
                return f"{program} on PATH"
        return None


def _stdio(spec: ServerSpec, *, typed: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "stdio"} if typed else {}
    entry |= {"command": spec.command, "args": list(spec.args)}
    if spec.env:
        entry["env"] = dict(spec.env)
    return entry


def _opencode_entry(spec: ServerSpec) -> dict[str, Any]:
    # opencode runs one argv list; "enabled" is its documented switch
    entry: dict[str, Any] = {"type": "local", "command": [spec.command, *spec.args],
                             "enabled": True}
    if spec.env:
        entry["environment"] = dict(spec.env)
    return entry


def _claude_dir(place: Place) -> Path:
    # CLAUDE_CONFIG_DIR moves both ~/.claude and ~/.claude.json into it
    return Path(place.var("CLAUDE_CONFIG_DIR") or place.home / ".claude")


def _claude_file(place: Place) -> Path:
    root = place.var("CLAUDE_CONFIG_DIR")
    return Path(root) / ".claude.json" if root else place.home / ".claude.json"


def _codex_dir(place: Place) -> Path:
    return Path(place.var("CODEX_HOME") or place.home / ".codex")


def _gemini_dir(place: Place) -> Path:
    return Path(place.var("GEMINI_CLI_HOME") or place.home) / ".gemini"


def _vscode_user(place: Place) -> Path:
    """VS Code's default profile folder (microsoft/vscode, userDataPath.ts)."""
    if place.var("VSCODE_PORTABLE"):
        return Path(place.env["VSCODE_PORTABLE"]) / "user-data" / "User"
    if place.var("VSCODE_APPDATA"):
        return Path(place.env["VSCODE_APPDATA"]) / "Code" / "User"
    if place.platform == "win32":
        appdata = place.var("APPDATA")
        base = Path(appdata) if appdata else place.home / "AppData" / "Roaming"
    elif place.platform == "darwin":
        base = place.home / "Library" / "Application Support"
    else:
        base = Path(place.var("XDG_CONFIG_HOME") or place.home / ".config")
    return base / "Code" / "User"


def _opencode_dir(place: Place) -> Path:
    # xdg-basedir: $XDG_CONFIG_HOME or ~/.config on every platform
    return Path(place.var("XDG_CONFIG_HOME") or place.home / ".config") / "opencode"


def _opencode_file(place: Place) -> Path:
    """opencode merges opencode.json then opencode.jsonc (the later wins): edit the .jsonc when
    there is one, else opencode.json."""
    folder = _opencode_dir(place)
    jsonc = folder / "opencode.jsonc"
    return jsonc if jsonc.exists() else folder / "opencode.json"


AGENTS: dict[str, Agent] = {agent.name: agent for agent in (
    Agent(name="claude-code", label="Claude Code", format="json", container=("mcpServers",),
          comments=False, file=_claude_file, folder=_claude_dir, programs=("claude",),
          entry=lambda spec: _stdio(spec, typed=True), owned=("type", "command", "args", "env"),
          env_key="env"),
    Agent(name="codex", label="Codex CLI", format="toml", container=("mcp_servers",),
          comments=True, file=lambda place: _codex_dir(place) / "config.toml", folder=_codex_dir,
          programs=("codex",), entry=lambda spec: _stdio(spec, typed=False),
          owned=("command", "args", "env"), env_key="env"),
    Agent(name="gemini", label="Gemini CLI", format="json", container=("mcpServers",),
          comments=True, file=lambda place: _gemini_dir(place) / "settings.json",
          folder=_gemini_dir, programs=("gemini",),
          entry=lambda spec: _stdio(spec, typed=False),  # its stdio entries have no "type"
          owned=("command", "args", "env"), env_key="env"),
    Agent(name="cursor", label="Cursor", format="json", container=("mcpServers",),
          comments=False, file=lambda place: place.home / ".cursor" / "mcp.json",
          folder=lambda place: place.home / ".cursor", programs=("cursor", "cursor-agent"),
          entry=lambda spec: _stdio(spec, typed=False), owned=("command", "args", "env"),
          env_key="env"),
    Agent(name="vscode", label="VS Code", format="json", container=("servers",),
          comments=True, file=lambda place: _vscode_user(place) / "mcp.json",
          folder=_vscode_user, programs=("code",),
          entry=lambda spec: _stdio(spec, typed=True), owned=("type", "command", "args", "env"),
          env_key="env"),
    Agent(name="opencode", label="opencode", format="json", container=("mcp",),
          comments=True, file=_opencode_file, folder=_opencode_dir, programs=("opencode",),
          entry=_opencode_entry, owned=("type", "command", "enabled", "environment"),
          env_key="environment",
          # opencode rewrites a config without "$schema" (dropping its comments): give it one
          new_file=lambda root: {"$schema": "https://opencode.ai/config.json", **root}),
)}
