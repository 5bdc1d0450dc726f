"""`recall setup mcp`: add recall's stdio MCP server to the coding agents' own config files, or
take it out again (docs/mcp-setup.md)."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from api.cli.output import Run, greedy, json_option, pass_run, print_json
from api.cli.writes import reads
from api.setup.agents import AGENTS, Place
from models import NotFound

if TYPE_CHECKING:
    from api.setup.edit import SetupReport

__all__ = ["COMMANDS"]


@click.group()
def setup() -> None:
    """Set recall up for other programs."""


@reads
@setup.command("mcp", cls=greedy("--agent"))
@click.option("--agent", "agents", multiple=True, type=click.Choice(list(AGENTS)),
              help="only this agent, detected or not (repeatable; default: every agent found)")
@click.option("--dry-run", is_flag=True, help="show what would change; write nothing")
@click.option("--remove", is_flag=True, help="take recall's entry out again")
@json_option
@pass_run
def mcp_command(run: Run, agents: tuple[str, ...], dry_run: bool, remove: bool,
                as_json: bool) -> int:
    """Add recall's MCP server to your coding agents.

    Claude Code, Codex, Gemini CLI, Cursor, VS Code and opencode: each one found (its config
    folder exists or its program is on PATH) gets recall in its user-wide config file, the way
    that agent documents it, with this data directory. Running it again changes nothing; an
    outdated entry is updated, other entries and comments are kept. Every file is backed up
    before it is written, and a file recall cannot parse is left untouched."""
    from api.setup.edit import setup_mcp  # the editors and tomlkit load only when used
    from api.setup.server import find_recall, server_spec

    place = Place(home=Path.home(), env=os.environ, platform=sys.platform)
    given = click.get_current_context().find_root().params  # --home / --embedder
    spec = server_spec(find_recall(sys.argv[0], sys.executable, os.environ.get("PATH")),
                       run.settings, os.environ,
                       {"RECALL_HOME": bool(given.get("home")),
                        "RECALL_EMBEDDER": bool(given.get("embedder"))})
    chosen = [AGENTS[name] for name in dict.fromkeys(agents)] or list(AGENTS.values())
    if not agents and not any(agent.detect(place) for agent in chosen):
        raise NotFound(
            "no coding agent found: none of their config folders exists and none of "
            f"{', '.join(p for a in chosen for p in a.programs)} is on PATH. To set one up "
            f"anyway, name it: --agent {{{','.join(AGENTS)}}}")
    report = setup_mcp(chosen, place, spec, chosen=bool(agents), remove=remove,
                       dry_run=dry_run, now=datetime.now(UTC))
    if as_json:
        print_json(report)
    else:
        show(report)
    return 1 if report.failed else 0


def show(report: SetupReport) -> None:
    server = " ".join([report.server.command, *report.server.args])
    passed = " ".join(f"{k}={v}" for k, v in report.server.env.items())
    print(f"recall's MCP server: {server}" + (f" (with {passed})" if passed else ""))
    missing = []
    for r in report.results:
        if r.action == "skipped" and (r.reason or "").startswith("not detected"):
            missing.append(r.agent)
            continue
        action = f"would be {r.action}" if report.dry_run and r.diff else r.action
        print(f"{r.agent:<12} {action}{': ' + r.reason if r.reason else ''}  {r.file}"
              + (f"\n{'':<12} backup: {r.backup}" if r.backup else ""))
        if r.diff:
            print(r.diff, end="")
    if missing:
        print(f"not found: {', '.join(missing)} (name one with --agent to set it up anyway)")
    if report.dry_run:
        print("dry run: nothing written")
    elif any(r.action in ("added", "updated", "removed") for r in report.results):
        print("restart the agents (or reload their MCP servers) for the change to take effect")


COMMANDS = [setup]
