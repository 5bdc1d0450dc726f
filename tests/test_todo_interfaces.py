"""Todos through the interfaces over the one service: the HTTP routes (in-process and a real
`recall serve`), the CLI and the MCP tools."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
import uvicorn
from litestar.testing import TestClient
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from api import RecallService
from api.http.app import create_app

from .helpers import (
    PROBLEM,
    SESSIONS,
    TASKS,
    assert_problem,
    call_tool,
    make_service,
    serve,
    tasks_memory,
    tool_data,
    tool_error,
)


# -- HTTP -------------------------------------------------------------------------------------------
@pytest.fixture
def client(tasks: RecallService) -> Iterator[TestClient]:
    with TestClient(create_app(tasks.settings, tasks), base_url="http://127.0.0.1") as c:
        yield c


def test_todo_routes(client: TestClient, tasks: RecallService) -> None:
    created = client.post("/v1/todos", json={"content": "Write the notes", "period": "week",
                                             "date": "2026-03-11", "source_session_id": "t-kyoto"})
    assert created.status_code == 201
    todo = created.json()
    assert set(todo) == {"id", "content", "period", "period_date", "period_end", "status",
                         "created_at", "completed_at", "origin", "source_session_id",
                         "source_memory_id"}
    assert (todo["period_date"], todo["status"], todo["source_session_id"]) == ("2026-03-09", "open", "t-kyoto")
    assert client.get(f"/v1/todos/{todo['id']}").json() == todo
    listed = client.get("/v1/todos", params={"date": "2026-03-15"}).json()
    assert [t["id"] for t in listed["todos"]] == [todo["id"]] and listed["total"] == 1
    assert client.get("/v1/todos", params={"period": "day", "date": "2026-03-15"}).json()["total"] == 0
    done = client.post(f"/v1/todos/{todo['id']}/done")
    assert done.status_code == 200 and done.json()["status"] == "done"
    assert client.get("/v1/todos").json()["total"] == 0
    assert client.get("/v1/todos", params={"status": "done"}).json()["total"] == 1
    assert client.post(f"/v1/todos/{todo['id']}/reopen").json()["status"] == "open"

    memory_id = tasks_memory(tasks, "TLS")
    promoted = client.post("/v1/todos/promote", json={"memory_id": memory_id})
    assert promoted.status_code == 201 and promoted.json()["created"] is True
    assert promoted.json()["todo"]["period_date"] == "2026-03-13"
    again = client.post("/v1/todos/promote", json={"memory_id": memory_id})
    assert again.status_code == 200 and again.json() == {**promoted.json(), "created": False}
    digest = client.get("/v1/digest", params={"period": "week", "date": "2026-03-10"}).json()
    assert {t["id"] for t in digest["todos"]} == {todo["id"], promoted.json()["todo"]["id"]}


@pytest.mark.parametrize(("method", "path", "kwargs", "status", "title", "detail"), [
    ("get", "/v1/todos/td-nope", {}, 404, "Not found", "no todo 'td-nope'"),
    ("post", "/v1/todos/td-nope/done", {}, 404, "Not found", "no todo 'td-nope'"),
    ("post", "/v1/todos/td-nope/reopen", {}, 404, "Not found", "no todo 'td-nope'"),
    ("post", "/v1/todos", {"json": {"content": "x", "period": "year"}}, 400, "Invalid input", None),
    ("post", "/v1/todos", {"json": {"content": "x", "date": "2026-02-30"}}, 400, "Invalid input",
     "cannot read date '2026-02-30': use YYYY-MM-DD"),
    ("post", "/v1/todos", {"json": {"content": "  "}}, 400, "Invalid input", "a todo needs some text"),
    ("post", "/v1/todos", {"json": {"content": "x", "colour": "red"}}, 400, "Invalid input", None),
    ("post", "/v1/todos", {"json": {"content": "x", "source_session_id": "nope"}}, 400, "Invalid input",
     "source session 'nope' is not in the archive"),
    ("get", "/v1/todos", {"params": {"period": "year"}}, 400, "Invalid input", None),
    ("get", "/v1/todos", {"params": {"status": "closed"}}, 400, "Invalid input", None),
    ("get", "/v1/todos", {"params": {"date": "soon"}}, 400, "Invalid input",
     "cannot read date 'soon': use YYYY-MM-DD"),
    ("post", "/v1/todos/promote", {"json": {"memory_id": "t-kyoto:mem:000000000000"}}, 404, "Not found",
     "no memory 't-kyoto:mem:000000000000'"),
    ("post", "/v1/cleanup", {"json": {}}, 400, "Invalid input",
     ("nothing to clean up: give an age (older-than, e.g. 90d) or a number of snapshots to keep "
      "(keep-snapshots)")),
    ("post", "/v1/cleanup", {"json": {"older_than": "3 months"}}, 400, "Invalid input", None),
    ("post", "/v1/cleanup", {"json": {"keep_snapshots": 0}}, 400, "Invalid input", None),
    ("post", "/v1/cleanup", {"json": {"channels": ["cli"]}}, 400, "Invalid input",
     "category and channel choose sessions to delete: give an age too (older-than, e.g. 90d)"),
])
def test_todo_and_cleanup_errors_have_one_shape(client: TestClient, method: str, path: str, kwargs: dict,
                                                status: int, title: str, detail: str | None) -> None:
    response = getattr(client, method)(path, **kwargs)
    assert_problem(response, status, title, detail)


def test_todos_over_real_http(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_service(home).index([SESSIONS])
    proc, base = serve(home, env={"RECALL_API_TOKEN": "tok"})
    try:
        auth = {"Authorization": "Bearer tok"}
        body = {"content": "Renew the passport", "period": "month", "date": "2026-05-20"}
        assert httpx.post(f"{base}/v1/todos", json=body).status_code == 401
        created = httpx.post(f"{base}/v1/todos", json=body, headers=auth)
        assert created.status_code == 201 and created.json()["period_date"] == "2026-05-01"
        todo_id = created.json()["id"]
        listed = httpx.get(f"{base}/v1/todos", params={"date": "2026-05-31"}, headers=auth).json()
        assert [t["id"] for t in listed["todos"]] == [todo_id]
        assert httpx.post(f"{base}/v1/todos/{todo_id}/done", headers=auth).json()["status"] == "done"
        missing = httpx.post(f"{base}/v1/todos/td-missing/done", headers=auth)
        assert missing.status_code == 404 and missing.headers["content-type"].startswith(PROBLEM)
        digest = httpx.get(f"{base}/v1/digest", params={"period": "month", "date": "2026-05-02"},
                           headers=auth).json()
        assert [(t["id"], t["status"]) for t in digest["todos"]] == [(todo_id, "done")]
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


# -- CLI ------------------------------------------------------------------------------------------------
def test_cli_todo(recall, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "t-tasks.json").write_text(json.dumps(TASKS, ensure_ascii=False))
    recall("index", str(inbox))
    added = json.loads(recall("todo", "add", "Write the notes", "--period", "day", "--date", "2026-03-12",
                              "--json").stdout)
    assert (added["period"], added["period_date"], added["status"]) == ("day", "2026-03-12", "open")
    line = recall("todo", "add", "Plan the week", "--date", "2026-03-12").stdout
    assert line.startswith("[ ] td-") and "week of 2026-03-09" in line and "Plan the week" in line
    listed = recall("todo", "list", "--date", "2026-03-12").stdout
    assert "Write the notes" in listed and "Plan the week" in listed and "2 open todos" in listed
    assert recall("todo", "done", added["id"]).stdout.startswith(f"[x] {added['id']}")
    done = json.loads(recall("todo", "list", "--status", "done", "--json").stdout)
    assert [t["id"] for t in done["todos"]] == [added["id"]]
    assert recall("todo", "reopen", added["id"]).stdout.startswith("[ ]")

    memories = json.loads(recall("memories", "t-tasks", "--json").stdout)["memories"]
    memory_id = next(m["id"] for m in memories if "TLS" in m["text"])
    promoted = json.loads(recall("todo", "promote", memory_id, "--json").stdout)
    assert promoted[0]["source_memory_id"] == memory_id and promoted[0]["period_date"] == "2026-03-13"
    assert "already a todo" in recall("todo", "promote", memory_id).stdout
    digest = recall("digest", "--period", "week", "--date", "2026-03-12").stdout
    assert "todo [ ]" in digest and "TLS certificate" in digest

    missing = recall("todo", "done", "td-missing", ok=False)
    assert missing.returncode == 1 and missing.stderr.strip() == "recall: no todo 'td-missing'"
    bad = recall("todo", "add", "x", "--date", "12/03/2026", ok=False)
    assert bad.returncode == 1 and "cannot read date" in bad.stderr and "Traceback" not in bad.stderr


# -- MCP --------------------------------------------------------------------------------------------
@pytest.fixture
def mcp_url(tasks: RecallService) -> Iterator[str]:
    app = create_app(tasks.settings, tasks)
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


def test_mcp_todo_tools(mcp_url: str, tasks: RecallService) -> None:
    memory_id = tasks_memory(tasks, "TLS")

    async def scenario() -> None:
        async with streamable_http_client(mcp_url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert {"add_todo", "complete_todo", "list_todos"} <= set(tools)
            assert set(tools["add_todo"].input_schema["properties"]) == {
                "content", "period", "date", "session_id", "memory_id"}
            todo = tool_data(await call_tool(session, "add_todo", content="Check the renewal",
                                     period="day", date="2026-03-13", memory_id=memory_id))
            assert (todo["source_session_id"], todo["period_date"]) == ("t-tasks", "2026-03-13")
            listed = tool_data(await call_tool(session, "list_todos", date="2026-03-13"))
            assert [t["id"] for t in listed["todos"]] == [todo["id"]]
            assert tool_data(await call_tool(session, "complete_todo", todo_id=todo["id"]))["status"] == "done"
            assert tool_data(await call_tool(session, "list_todos", status="done"))["total"] == 1
            assert tool_error(await call_tool(session, "complete_todo", todo_id="td-nope")) == "no todo 'td-nope'"
            assert tool_error(await call_tool(session, "add_todo", content="x", date="next week")) == \
                "cannot read date 'next week': use YYYY-MM-DD"
            assert "at most 2000" in tool_error(await call_tool(session, "add_todo", content="x" * 2001))

    anyio.run(scenario)
