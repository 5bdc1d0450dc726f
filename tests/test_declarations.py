"""Permissions are declared where each operation is defined: every HTTP route its scope
(`opt=READ`, api/http/scopes.py), every command whether it writes (`@writes`/`@reads`,
api/cli/writes.py), every MCP tool its annotations; the token guard, the audit log, publishing
and a replica's refusal of writes read those declarations. None may be missing."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from litestar import Litestar, get
from litestar.routes import HTTPRoute
from mcp.types import ToolAnnotations

from api import RecallService, Settings
from api.cli.main import cli
from api.cli.writes import declared
from api.http import create_app
from api.http.scopes import check_declared, declared_scope
from api.mcp import server as server_module
from api.mcp.results import (
    DELETES,
    READS,
    TOOL_SCOPES,
    WRITES,
    WRITES_IDEMPOTENT,
    scope_of,
    tool_result,
)
from api.mcp.server import build_mcp
from api.mcp.sessions import Deleted
from api.mcp.todos import add_todo_tools
from indexer import HashEmbedder
from indexer.stores.audit import AuditLog
from indexer.stores.layout import DataDir

from .helpers import EXAMPLES, ROUTE_SCOPES


def _leaves(command: click.Command, path: tuple[str, ...] = ()) -> list[tuple[str, click.Command]]:
    if isinstance(command, click.Group):
        return [leaf for name, sub in sorted(command.commands.items())
                for leaf in _leaves(sub, (*path, name))]
    return [(" ".join(path), command)]


def test_every_route_declares_its_scope_and_the_guard_uses_it(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, embedder="hash")
    app = create_app(settings, RecallService(settings, embedder=HashEmbedder()))
    found = {(method, route.path): declared_scope(handler)
             for route in app.routes if isinstance(route, HTTPRoute)
             for handler in route.route_handlers
             for method in handler.http_methods - {"HEAD", "OPTIONS"}}
    assert {key: scope for key, scope in found.items() if key in ROUTE_SCOPES} == ROUTE_SCOPES
    assert set(ROUTE_SCOPES) <= set(found)


def test_an_app_with_a_route_that_declares_nothing_is_refused() -> None:
    @get("/undeclared", sync_to_thread=False)
    def undeclared() -> str:
        return "?"

    with pytest.raises(RuntimeError, match="undeclared"):
        check_declared(Litestar(route_handlers=[undeclared]))


def test_every_command_declares_whether_it_writes() -> None:
    leaves = _leaves(cli)
    assert len(leaves) > 40
    assert [name for name, command in leaves if declared(command) is None] == []
    writers = {name for name, command in leaves if declared(command)}
    assert {"index", "import", "delete", "restore", "audit-secrets", "todo add",
            "session start"} <= writers
    assert not {"search", "show", "stats", "todo list", "session list", "audit"} & writers


def test_every_mcp_tool_declares_what_it_does(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, embedder="hash")
    server = build_mcp(RecallService(settings, embedder=HashEmbedder()))
    tools = {tool.name: tool for tool in server._tool_manager.list_tools()}
    assert all(tool.annotations is not None for tool in tools.values()), sorted(
        name for name, tool in tools.items() if tool.annotations is None)
    assert set(tools) <= set(TOOL_SCOPES)
    assert TOOL_SCOPES["delete_session"] == "admin" and TOOL_SCOPES["search_archive"] == "read"


def test_an_mcp_tool_without_a_declared_scope_is_refused_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # annotations that declare nothing are no scope, never "read"
    for nothing in (None, ToolAnnotations(), ToolAnnotations(open_world_hint=False)):
        with pytest.raises(ValueError, match="declare no scope"):
            scope_of(nothing)
    assert [scope_of(a) for a in (READS, WRITES, WRITES_IDEMPOTENT, DELETES)] == [
        "read", "write", "write", "admin"]

    # at build time: a tool without annotations, or registered under another name
    service = RecallService(Settings(home=tmp_path, embedder="hash"), embedder=HashEmbedder())

    def with_tool(name: str | None, annotations: ToolAnnotations | None):  # type: ignore[no-untyped-def]
        def add(server, service):  # type: ignore[no-untyped-def]
            add_todo_tools(server, service)

            @server.tool(name=name, annotations=annotations)
            @tool_result
            def stray_tool() -> Deleted:
                return Deleted(session_id="x", deleted=False)
        return add

    monkeypatch.setattr(server_module, "add_todo_tools", with_tool(None, None))
    with pytest.raises(RuntimeError, match="'stray_tool': annotations declare no scope"):
        build_mcp(service)
    monkeypatch.setattr(server_module, "add_todo_tools", with_tool("renamed", READS))
    with pytest.raises(RuntimeError, match="'renamed' is registered under a name other"):
        build_mcp(service)

    # at call time: a tool whose scope was never recorded is refused, over stdio too
    @tool_result
    def never_built() -> Deleted:
        return Deleted(session_id="x", deleted=True)

    answer = never_built()
    assert answer.is_error and answer.structured_content is None
    assert answer.content[0].text == "never_built declares no scope: refused"  # type: ignore[union-attr]


def test_audit_secrets_apply_is_a_writing_command_with_its_audit_line(
        recall, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    recall("index", EXAMPLES)
    home = tmp_path / "home"
    # a secret older rules let through, as an archive file holds it
    stored = next(home.glob("archive/sessions/*/*.json"))
    record = json.loads(stored.read_text())
    record["messages"][0]["content"] += " token ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    stored.write_text(json.dumps(record))
    assert recall("audit-secrets").returncode == 0  # a dry run: nothing written, no line
    assert not any(e.action.startswith("cli audit-secrets") for e in AuditLog(DataDir(home)).entries())
    recall("audit-secrets", "--apply")
    assert "ghp_" not in stored.read_text()
    assert any(e.action == "cli audit-secrets" and e.outcome == "ok"
               for e in AuditLog(DataDir(home)).entries())
