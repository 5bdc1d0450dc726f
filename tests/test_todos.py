"""Todos: periods, the store, promotion from task memories, forgetting, the digest, and the
HTTP routes, CLI and MCP tools over the same service."""

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
from indexer.stores.state import State
from models import InvalidInput, NotFound
from models.todo import period_bounds

from .helpers import (
    PROBLEM,
    SESSIONS,
    assert_problem,
    call_tool,
    make_service,
    serve,
    tool_data,
    tool_error,
)

TASKS = {
    "sessionId": "t-tasks", "date": "2026-03-10", "channel": "webchat", "category": "planning",
    "messages": [
        {"role": "user", "content": "Remember to renew the TLS certificate by Friday 2026-03-13.",
         "time": "2026-03-10T09:00:00+08:00"},
        {"role": "user", "content": "We decided to keep Postgres for the quotes service.",
         "time": "2026-03-10T09:01:00+08:00"},
        {"role": "user", "content": "记得把数据库备份脚本交给运维。", "time": "2026-03-10T09:02:00+08:00"},
    ],
}


def _memory(service: RecallService, needle: str) -> str:
    return next(m.id for m in service.memories.of("t-tasks") if needle in m.text)


@pytest.fixture
def tasks(writable: RecallService) -> RecallService:
    writable.ingest_record(TASKS)
    return writable


# -- periods ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("period", "day", "bounds"), [
    ("day", "2026-03-11", ("2026-03-11", "2026-03-11")),
    ("week", "2026-03-11", ("2026-03-09", "2026-03-15")),  # Wednesday -> Monday..Sunday
    ("week", "2026-03-09", ("2026-03-09", "2026-03-15")),  # a Monday is its own start
    ("week", "2026-03-15", ("2026-03-09", "2026-03-15")),  # a Sunday ends the week
    ("week", "2026-01-01", ("2025-12-29", "2026-01-04")),  # across a year
    ("month", "2024-02-10", ("2024-02-01", "2024-02-29")),
])
def test_period_bounds(period: str, day: str, bounds: tuple[str, str]) -> None:
    assert period_bounds(period, day) == bounds


@pytest.mark.parametrize(("period", "day", "message"), [
    ("year", "2026-03-11", "period must be one of day, week, month, not 'year'"),
    ("week", "2026-02-30", "cannot read date '2026-02-30': use YYYY-MM-DD"),
    ("week", "2026-3-1", "cannot read date '2026-3-1': use YYYY-MM-DD"),
    ("week", "9999-12-31", "date '9999-12-31' is out of range"),
])
def test_bad_periods_are_refused(period: str, day: str, message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        period_bounds(period, day)
    assert caught.value.detail == message


# -- the service --------------------------------------------------------------------------------
def test_add_complete_reopen_and_list(writable: RecallService) -> None:
    todos = writable.todos
    weekly = todos.add("Write the release notes", "week", "2026-03-11")
    assert (weekly.period, weekly.period_date, weekly.period_end) == ("week", "2026-03-09", "2026-03-15")
    assert weekly.status == "open" and weekly.completed_at is None and weekly.origin == "added"
    daily = todos.add("Call the plumber", "day", "2026-03-12")
    monthly = todos.add("Pay the rent", "month", "2026-03-31")
    todos.add("Next month's thing", "month", "2026-04-02")

    def ids(**kw: object) -> list[str]:
        return [t.id for t in todos.listing(**kw).todos]  # type: ignore[arg-type]

    # a day: its own todos, its week's and its month's, in period order
    assert ids(day="2026-03-12") == [monthly.id, weekly.id, daily.id]
    assert ids(day="2026-03-16") == [monthly.id]
    assert ids(period="week", day="2026-03-15") == [weekly.id]
    assert ids(period="month") == [monthly.id, ids(period="month")[1]]

    done = todos.complete(weekly.id)
    assert done.status == "done" and done.completed_at
    assert todos.complete(weekly.id).completed_at == done.completed_at  # done again: unchanged
    assert weekly.id not in ids(day="2026-03-12")
    assert ids(day="2026-03-12", status="done") == [weekly.id]
    assert len(ids(day="2026-03-12", status="all")) == 3
    reopened = todos.reopen(weekly.id)
    assert reopened.status == "open" and reopened.completed_at is None
    assert todos.get(weekly.id) == reopened

    page = todos.listing(status="all", limit=2, offset=1)
    assert page.total == 4 and len(page.todos) == 2


def test_todo_text_is_redacted_before_it_is_stored(writable: RecallService) -> None:
    key = "sk-proj-" + "Zq8Xw2Vt6Rs4Pn0Ml7Kj5Hg3"
    todo = writable.todos.add(f"rotate the key {key} and password: Hunter2-blue-77", "day", "2026-03-12")
    assert key not in todo.content and "Hunter2" not in todo.content
    assert "[REDACTED:" in todo.content
    for path in writable.data.root.glob("state.sqlite3*"):
        assert key.encode() not in path.read_bytes() and b"Hunter2" not in path.read_bytes()


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda t: t.add("   "), InvalidInput, "a todo needs some text"),
    (lambda t: t.add("x" * 2001), InvalidInput, "a todo is at most 2000 characters, not 2001"),
    (lambda t: t.add("x", "fortnight"), InvalidInput,
     "period must be one of day, week, month, not 'fortnight'"),
    (lambda t: t.add("x", "day", "tomorrow"), InvalidInput, "cannot read date 'tomorrow': use YYYY-MM-DD"),
    (lambda t: t.add("x", source_session_id="nope"), InvalidInput,
     "source session 'nope' is not in the archive"),
    (lambda t: t.add("x", source_session_id="../x"), InvalidInput,
     "source session: session id contains a path separator"),
    (lambda t: t.add("x", source_memory_id="t-kyoto:mem:000000000000"), InvalidInput,
     "no memory 't-kyoto:mem:000000000000'"),
    (lambda t: t.get("td-nope"), NotFound, "no todo 'td-nope'"),
    (lambda t: t.complete("td-nope"), NotFound, "no todo 'td-nope'"),
    (lambda t: t.reopen("td-nope"), NotFound, "no todo 'td-nope'"),
    (lambda t: t.promote("t-kyoto:mem:000000000000"), NotFound, "no memory 't-kyoto:mem:000000000000'"),
    (lambda t: t.promote("nothing-like-a-memory"), NotFound, "no memory 'nothing-like-a-memory'"),
    (lambda t: t.listing(status="closed"), InvalidInput, "status must be open, done or all, not 'closed'"),
    (lambda t: t.listing(limit=0), InvalidInput, "limit must be between 1 and 500"),
])
def test_service_errors(writable: RecallService, call, error: type, message: str) -> None:
    with pytest.raises(error) as caught:
        call(writable.todos)
    assert caught.value.detail == message


def test_link_to_session_and_memory(tasks: RecallService) -> None:
    memory_id = _memory(tasks, "TLS")
    linked = tasks.todos.add("Ask Lin about the certificate", source_memory_id=memory_id)
    assert (linked.source_session_id, linked.source_memory_id) == ("t-tasks", memory_id)
    by_session = tasks.todos.add("Reread the kyoto plan", source_session_id="t-kyoto")
    assert by_session.source_session_id == "t-kyoto" and by_session.source_memory_id is None
    with pytest.raises(InvalidInput, match="is not from session 't-kyoto'"):
        tasks.todos.add("x", source_session_id="t-kyoto", source_memory_id=memory_id)


def test_promote_a_task_once(tasks: RecallService) -> None:
    memory_id = _memory(tasks, "TLS")
    result = tasks.todos.promote(memory_id)
    todo, created = result.todo, result.created
    assert created and todo.origin == "promoted"
    assert todo.content == "Remember to renew the TLS certificate by Friday 2026-03-13."
    # a task with a due date becomes a todo for that day
    assert (todo.period, todo.period_date) == ("day", "2026-03-13")
    assert (todo.source_session_id, todo.source_memory_id) == ("t-tasks", memory_id)
    again = tasks.todos.promote(memory_id, "month")
    assert again.todo == todo and not again.created
    assert tasks.todos.listing(status="all").total == 1
    # one without a due date: this week, unless told otherwise
    other = tasks.todos.promote(_memory(tasks, "备份脚本"), "month", "2026-04-20").todo
    assert (other.period, other.period_date) == ("month", "2026-04-01")
    with pytest.raises(InvalidInput, match="is not a task"):
        tasks.todos.promote(_memory(tasks, "Postgres"))


def test_digest_shows_the_periods_todos(tasks: RecallService) -> None:
    memory_id = _memory(tasks, "TLS")
    promoted = tasks.todos.promote(memory_id).todo
    weekly = tasks.todos.add("Plan the offsite", "week", "2026-03-10")
    done = tasks.todos.add("Book the room", "day", "2026-03-11")
    tasks.todos.complete(done.id)
    tasks.todos.add("Another week", "week", "2026-03-16")
    monthly = tasks.todos.add("Quarterly review", "month", "2026-03-01")
    digest = tasks.digest("week", "2026-03-12")
    # open ones first, then by period start: month (03-01), week (03-09), day 03-13; done last
    assert [t.id for t in digest.todos] == [monthly.id, weekly.id, promoted.id, done.id]
    assert [t.status for t in digest.todos] == ["open", "open", "open", "done"]
    tls = next(t for t in digest.open_tasks if "TLS" in t.text)
    assert tls.memory_id == memory_id
    day = tasks.digest("day", "2026-03-13")
    assert [t.id for t in day.todos] == [monthly.id, weekly.id, promoted.id]


def test_deleting_a_session_forgets_what_was_copied_from_it(tasks: RecallService) -> None:
    promoted = tasks.todos.promote(_memory(tasks, "TLS")).todo
    linked = tasks.todos.add("Ask Lin about it", source_memory_id=_memory(tasks, "备份脚本"))
    plain = tasks.todos.add("Unrelated", "day", "2026-03-10")
    tasks.delete("t-tasks")
    with pytest.raises(NotFound):
        tasks.todos.get(promoted.id)  # its text was the session's
    kept = tasks.todos.get(linked.id)  # the user's own text stays, without the link
    assert kept.content == "Ask Lin about it"
    assert (kept.source_session_id, kept.source_memory_id) == (None, None)
    assert tasks.todos.get(plain.id) == plain
    tasks.maintenance.purge()
    # no file under the data dir holds the promoted text or the session's id any more
    for path in tasks.data.root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"TLS certificate" not in data, path
            assert b"t-tasks" not in data, path


# -- HTTP -------------------------------------------------------------------------------------------
@pytest.fixture
def client(tasks: RecallService) -> Iterator[TestClient]:
    with TestClient(create_app(tasks.settings, tasks)) as c:
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

    memory_id = _memory(tasks, "TLS")
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
    memory_id = _memory(tasks, "TLS")

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


def test_no_todo_is_linked_to_a_session_being_deleted(tasks: RecallService) -> None:
    """A delete marks the session `deleting` before it forgets its todos; a link made in
    between is refused inside the todo's own transaction, so none outlives the session."""
    memory_id = _memory(tasks, "TLS")
    state = State(tasks.data.state_db)
    try:
        state.set_status(["t-tasks"], "deleting")
    finally:
        state.close()
    with pytest.raises(NotFound, match="no session 't-tasks'"):
        tasks.todos.store.promote("text", "day", ("2026-03-13", "2026-03-13"),
                                  session_id="t-tasks", memory_id=memory_id)
    with pytest.raises(NotFound, match="no session 't-tasks'"):
        tasks.todos.store.add("text", "day", ("2026-03-13", "2026-03-13"), source_session_id="t-tasks")
    assert tasks.todos.listing(status="all").total == 0
