"""The MCP server end to end: over stdio as a subprocess, and over streamable HTTP in Litestar."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
import uvicorn
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from api import RecallService
from api.http.app import create_app
from api.service.search_params import SEARCH_PARAMS

from .helpers import call_tool, make_service, tool_data, tool_error

ROOT = Path(__file__).resolve().parents[1]
TOOLS = {"search_archive", "get_session", "archive_session", "delete_session", "extract_memories",
         "recover_session", "memory_digest", "snapshot_changes", "add_todo", "complete_todo", "list_todos",
         "start_session", "append_messages", "set_session_status", "resume_session",
         "context_pack", "current_facts"}

NEW_SESSION = {
    "sessionId": "t-mcp-new",
    "date": "2026-05-02",
    "channel": "mcp",
    "messages": [
        {"role": "user", "content": "Which zeppelin museum did we pick in Friedrichshafen?"},
        {"role": "assistant", "content": "The Zeppelin Museum by the harbour, opening at nine."},
    ],
}


def test_stdio_server(writable: RecallService, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "api.cli", "mcp"], cwd=ROOT,
        env={"RECALL_HOME": str(writable.settings.home), "RECALL_EMBEDDER": "hash"},
    )

    async def scenario() -> None:
        with (tmp_path / "server.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                await _scenario(session)

    anyio.run(scenario)


async def _scenario(session: ClientSession) -> None:
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    assert all(tool.input_schema["type"] == "object" and tool.description for tool in tools.values())
    # every search parameter, as SearchParams declares it (an agent gets 5 results by default)
    search_schema = tools["search_archive"].input_schema
    assert list(search_schema["properties"]) == [p.name for p in SEARCH_PARAMS]
    assert search_schema["required"] == ["query"]
    limit = search_schema["properties"]["limit"]
    assert (limit["type"], limit["minimum"], limit["maximum"], limit["default"]) == (
        "integer", 1, 100, 5)

    found = tool_data(await call_tool(session, "search_archive", query="升级"))
    assert found["query"] == "升级"
    assert found["results"][0]["session_id"] == "t-zh-upgrade"
    assert set(found["results"][0]["messages"][0]) >= {"id", "role", "time", "snippet", "score"}
    bad_date = tool_error(await call_tool(session, "search_archive", query="x", date="2026-13"))
    assert bad_date == "'2026-13' is not a real date"

    short = tool_data(await call_tool(session, "get_session", session_id="t-en-errors", token_budget=40))
    assert 0 < len(short["messages"]) < 5 and short["omitted_messages"] == 5 - len(short["messages"])
    assert tool_error(await call_tool(session, "get_session", session_id="nope")) == "no session 'nope'"

    saved = tool_data(await call_tool(session, "archive_session", session=NEW_SESSION))
    assert saved == {"session_id": "t-mcp-new", "indexed": True, "changed": True}
    again = tool_data(await call_tool(session, "archive_session", session=NEW_SESSION))
    assert again["changed"] is False
    hits = tool_data(await call_tool(session, "search_archive", query="zeppelin museum"))["results"]
    assert hits[0]["session_id"] == "t-mcp-new"
    # an agent may add to a session, not drop or rewrite what it holds
    cut = {**NEW_SESSION, "messages": NEW_SESSION["messages"][:1]}
    refused = tool_error(await call_tool(session, "archive_session", session=cut))
    assert "holds 2 messages" in refused and "replace" in refused
    shown = tool_data(await call_tool(session, "get_session", session_id="t-mcp-new"))
    assert len(shown["messages"]) == 2

    bad = {**NEW_SESSION, "sessionId": "t-mcp-bad", "messages": "just a string"}
    reason = tool_error(await call_tool(session, "archive_session", session=bad))
    assert "'messages' must be a list" in reason and "Traceback" not in reason

    deleted = tool_data(await call_tool(session, "delete_session", session_id="t-mcp-new"))
    assert deleted == {"session_id": "t-mcp-new", "deleted": True}
    assert "no session" in tool_error(await call_tool(session, "get_session", session_id="t-mcp-new"))
    hits = tool_data(await call_tool(session, "search_archive", query="zeppelin museum"))["results"]
    assert "t-mcp-new" not in {hit["session_id"] for hit in hits}
    assert "no session" in tool_error(await call_tool(session, "delete_session", session_id="t-mcp-new"))


@pytest.fixture
def http_url(built_home: Path) -> Iterator[str]:
    """The real app (MCP mounted at /mcp beside the HTTP API) on real uvicorn."""
    service = make_service(built_home)
    app = create_app(service.settings, service)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=web.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not web.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        web.should_exit = True
        thread.join(10)
        sock.close()


def test_streamable_http_in_litestar(http_url: str) -> None:
    async def scenario() -> None:
        async with streamable_http_client(http_url) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            assert {tool.name for tool in (await session.list_tools()).tools} == TOOLS
            found = tool_data(await call_tool(session, "search_archive", query="升级", limit=2))
            assert found["results"][0]["session_id"] == "t-zh-upgrade"
            assert len(found["results"]) <= 2
            assert tool_error(await call_tool(session, "get_session", session_id="nope")) == "no session 'nope'"
            memories = tool_data(await call_tool(session, "extract_memories", session_id="t-zh-upgrade",
                                         types=["project"]))["memories"]
            assert memories and {m["type"] for m in memories} == {"project"}
            digest = tool_data(await call_tool(session, "memory_digest", period="month", date="2026-03-10"))
            assert digest["start"] == "2026-03-01" and digest["sessions"] == 2
            facts = tool_data(await call_tool(session, "current_facts", subject="数据库"))
            assert facts["when"] == "current"
            assert all(f["status"] == "current" for f in facts["facts"])
            assert "no words" in tool_error(await call_tool(session, "current_facts", subject="?!"))
            assert "has no snapshots" in tool_error(await call_tool(session, "recover_session", session_id="t-en-errors"))

    anyio.run(scenario)
