"""Live sessions through every interface: HTTP (the app factory, and real HTTP with concurrent
clients and a reindex in another process), the `recall session` CLI and the MCP tools."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import httpx
import pytest
from litestar.testing import TestClient
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from api import RecallService
from api.cli import main
from api.http.app import create_app
from indexer.stores.lock import WriterLock

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import generate_archive

from .helpers import (
    ROOT,
    SESSIONS,
    assert_problem,
    call_tool,
    make_service,
    serve,
    tool_data,
    tool_error,
)

FIRST_WRITE_TIMEOUT = 30  # seconds


@pytest.fixture
def client(writable: RecallService):
    with TestClient(create_app(writable.settings, writable), base_url="http://127.0.0.1") as c:
        yield c


def test_start_append_patch_list_over_http(client: TestClient) -> None:
    started = client.post("/v1/sessions", json={"title": "Trip", "channel": "cli", "category": "planning"})
    assert started.status_code == 201
    body = started.json()
    sid = body["session_id"]
    assert set(body) == {"session_id", "status", "date", "title", "channel", "category", "summary",
                         "message_count", "status_history"}
    assert (body["status"], body["message_count"], body["category"]) == ("active", 0, "planning")

    one = client.post(f"/v1/sessions/{sid}/messages", json={"role": "user", "content": "visit the lighthouse"})
    assert one.status_code == 201 and one.json()["message_ids"] == [f"{sid}-m1"]
    batch = client.post(f"/v1/sessions/{sid}/messages", json={"messages": [
        {"role": "assistant", "content": "the lighthouse opens at ten"}, {"role": "user", "content": "ok"}]})
    assert batch.json()["message_count"] == 3 and batch.json()["status"] == "active"
    hits = client.get("/v1/search", params={"q": "lighthouse", "mode": "keyword"}).json()["results"]
    assert hits[0]["session_id"] == sid

    listed = client.get("/v1/sessions", params={"status": "active", "category": "planning"}).json()
    assert [s["session_id"] for s in listed["sessions"]] == [sid]
    assert listed["sessions"][0]["message_count"] == 3
    assert client.get("/v1/sessions", params={"status": "paused"}).json()["total"] == 0

    paused = client.patch(f"/v1/sessions/{sid}", json={"status": "paused"})
    assert paused.status_code == 200 and paused.json()["status"] == "paused"
    assert len(client.get(f"/v1/sessions/{sid}/snapshots").json()["snapshots"]) == 1
    recovered = client.post("/v1/recovery", json={"session_id": sid, "context": "lighthouse"})
    assert recovered.status_code == 200
    assert client.get(f"/v1/sessions/{sid}").json()["status"] == "recovered"
    archived = client.patch(f"/v1/sessions/{sid}", json={"status": "archived", "summary": "A lighthouse visit."})
    assert archived.json()["summary"] == "A lighthouse visit."
    assert [c["status"] for c in archived.json()["status_history"]] == ["active", "paused", "recovered", "archived"]
    record = client.get(f"/v1/sessions/{sid}").json()
    assert record["status"] == "archived" and record["archived_at"]
    # the archive-format ingest through the same route still works
    assert client.post("/v1/sessions", json={"sessionId": "plain", "date": "2026-05-01",
                                             "messages": []}).json()["changed"] is True


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "title", "detail"),
    [
        ("post", "/v1/sessions/nope/messages", {"json": {"role": "user", "content": "x"}}, 404,
         "Not found", "no session 'nope'"),
        ("patch", "/v1/sessions/nope", {"json": {"status": "paused"}}, 404, "Not found", "no session 'nope'"),
        ("post", "/v1/sessions/t-kyoto/messages", {"json": {"role": "user", "content": "x"}}, 409,
         "Session archived", ("session 't-kyoto' is archived: it takes no more messages. Start a new "
                              "live session to go on")),
        ("patch", "/v1/sessions/t-kyoto", {"json": {"status": "active"}}, 409, "Session archived",
         "session 't-kyoto' is archived; its status cannot change. Start a new live session to go on"),
        ("patch", "/v1/sessions/t-kyoto", {"json": {"status": "done"}}, 400, "Invalid input",
         "status: Invalid enum value 'done'"),
        ("patch", "/v1/sessions/t-kyoto", {"json": {"status": "paused", "colour": 1}}, 400, "Invalid input",
         None),
        ("post", "/v1/sessions/LIVE/messages", {"json": {"messages": []}}, 400, "Invalid input",
         "give at least one message"),
        ("post", "/v1/sessions/LIVE/messages", {"json": {"messages": [{"role": "user", "content": "ok"}, {"role": "user", "content": 5}]}},
         400, "Invalid session", "message 2: message content must be text or a list of blocks, got int"),
        ("patch", "/v1/sessions/LIVE", {"json": {"status": "paused", "summary": "x"}}, 400, "Invalid input",
         "a summary can only be given when archiving"),
        ("post", "/v1/sessions", {"json": {"title": "x", "colour": "red"}}, 400, "Invalid input",
         ("unknown field(s) to start a session: colour (known: session_id, title, channel, category, "
          "participants, topics)")),
        ("post", "/v1/sessions", {"json": {"sessionId": "t-kyoto"}}, 409, "Conflict",
         "session 't-kyoto' already exists"),
        ("post", "/v1/sessions", {"json": {"sessionId": "../x"}}, 400, "Unsafe session id",
         "session id contains a path separator"),
        ("get", "/v1/sessions", {"params": {"status": "open"}}, 400, "Invalid input",
         "status: Invalid enum value 'open'"),
    ],
)
def test_every_live_error_has_the_one_shape(client: TestClient, method: str, path: str, kwargs: dict,
                                            status: int, title: str, detail: str | None) -> None:
    live = client.post("/v1/sessions", json={"sessionId": "live-e"}).json()["session_id"]
    response = getattr(client, method)(path.replace("LIVE", live), **kwargs)
    assert_problem(response, status, title, detail)


def test_a_write_that_finds_another_writer_says_when_to_retry(client: TestClient,
                                                             writable: RecallService) -> None:
    live = client.post("/v1/sessions", json={"sessionId": "live-busy"}).json()["session_id"]
    with WriterLock(writable.data.lock_file):  # another process at work (lock_wait is 2 s)
        busy = client.post(f"/v1/sessions/{live}/messages", json={"role": "user", "content": "x"})
    assert_problem(busy, 409, "Writer busy", None)
    assert busy.headers["retry-after"] == "5"
    archived = client.post("/v1/sessions/t-kyoto/messages", json={"role": "user", "content": "x"})
    assert archived.status_code == 409 and "retry-after" not in archived.headers  # retrying won't help
    assert client.post(f"/v1/sessions/{live}/messages",
                       json={"role": "user", "content": "x"}).status_code == 201


def test_concurrent_appends_over_real_http_keep_order_and_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_service(home).index([SESSIONS])
    with (tmp_path / "server.log").open("w") as log:
        proc, base = serve(home, log=log)
        try:
            # a server's first write loads the write path (~2.5 s here, longer on a busy machine)
            sid = httpx.post(f"{base}/v1/sessions", json={"title": "two writers"},
                             timeout=FIRST_WRITE_TIMEOUT).json()["session_id"]
            sent: dict[str, list[str]] = {"a": [], "b": []}
            errors: list[str] = []

            def client(name: str) -> None:
                with httpx.Client(base_url=base, timeout=30) as http:
                    for n in range(25):
                        batch = [{"role": "user", "content": f"{name} says wombat{name}{n}x{k}"}
                                 for k in range(1 + n % 2)]  # ones and pairs
                        response = http.post(f"/v1/sessions/{sid}/messages",
                                             json=batch[0] if len(batch) == 1 else {"messages": batch})
                        if response.status_code != 201:
                            errors.append(response.text)
                            return
                        sent[name] += [m["content"] for m in batch]

            threads = [threading.Thread(target=client, args=(name,)) for name in sent]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
            assert not errors
            record = httpx.get(f"{base}/v1/sessions/{sid}").json()
            contents = [m["content"] for m in record["messages"]]
            assert len(contents) == len(set(contents)) == len(sent["a"]) + len(sent["b"])
            for name, own in sent.items():  # each client's messages in the order it sent them
                assert [c for c in contents if c.startswith(f"{name} says")] == own
            assert [m["id"] for m in record["messages"]] == [f"{sid}-m{n}" for n in range(1, len(contents) + 1)]
            for content in (sent["a"][-1], sent["b"][0], sent["b"][-1]):
                word = content.split()[-1]
                hits = httpx.get(f"{base}/v1/search", params={"q": word, "mode": "keyword"}).json()["results"]
                assert hits and hits[0]["session_id"] == sid, word
            assert httpx.get(f"{base}/v1/check", timeout=60).json()["ok"]
        finally:
            proc.terminate()
            proc.communicate(timeout=10)


def test_appends_over_http_while_another_process_reindexes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    # enough sessions that the reindex holds the writer lock for a few seconds of appends
    list(generate_archive.generate(tmp_path / "archive", 150))
    make_service(home).index([SESSIONS, tmp_path / "archive"])
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_EMBEDDER": "hash", "RUST_LOG": "error"}
    with (tmp_path / "server.log").open("w") as log:
        proc, base = serve(home, log=log)
        try:
            sid = httpx.post(f"{base}/v1/sessions", json={"title": "reindexed"},
                             timeout=FIRST_WRITE_TIMEOUT).json()["session_id"]
            before = (home / "index" / "CURRENT").read_text()
            reindex = subprocess.Popen([sys.executable, "-m", "api.cli", "reindex"], cwd=ROOT, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            lock = home / "writer.lock"
            sent = 0
            in_flight: list[int] = []  # the append on its way, if any
            waited: set[int] = set()  # appends in flight while the reindex held the lock

            def watch() -> None:
                while reindex.poll() is None:
                    if in_flight and lock.read_text().strip() == str(reindex.pid):
                        waited.update(in_flight)
                    time.sleep(0.005)

            watcher = threading.Thread(target=watch)
            watcher.start()
            with httpx.Client(base_url=base, timeout=60) as http:
                # keep appending until the reindex is over, some of it while it holds the lock
                while reindex.poll() is None or sent < 15:
                    in_flight[:] = [sent]
                    response = http.post(f"/v1/sessions/{sid}/messages",
                                         json={"role": "user", "content": f"numbat{sent} arrives"})
                    in_flight.clear()
                    assert response.status_code == 201, response.text
                    sent += 1
            watcher.join(60)
            _, err = reindex.communicate(timeout=120)
            assert waited, "no append was sent while the reindex held the writer lock"
            assert reindex.returncode == 0, err
            assert (home / "index" / "CURRENT").read_text() != before
            assert len(httpx.get(f"{base}/v1/sessions/{sid}").json()["messages"]) == sent
            for n in range(sent):
                hits = httpx.get(f"{base}/v1/search", params={"q": f"numbat{n}", "mode": "keyword"}).json()
                assert [m["id"] for r in hits["results"] for m in r["messages"]] == [f"{sid}-m{n + 1}"], n
            assert httpx.get(f"{base}/v1/check", timeout=60).json()["ok"]
        finally:
            proc.terminate()
            proc.communicate(timeout=10)


def test_session_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_EMBEDDER", "hash")
    home = ["--home", str(tmp_path)]
    assert main([*home, "session", "start", "--title", "Trip", "--category", "planning",
                 "--channel", "cli", "--participant", "Lin"]) == 0
    sid = capsys.readouterr().out.strip()
    assert main([*home, "session", "append", sid, "book the ferry to Naoshima"]) == 0
    assert "appended 1 messages" in capsys.readouterr().out
    batch = tmp_path / "batch.jsonl"
    batch.write_text('{"role": "assistant", "content": "Ferry booked"}\n\n'
                     '{"role": "user", "content": "password: opensesame99"}\n')
    assert main([*home, "session", "append", sid, "--file", str(batch), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["appended"], result["message_count"], result["redacted"]) == (2, 3, {"password": 1})
    assert main([*home, "session", "list", "--status", "active", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["sessions"]
    assert [(s["session_id"], s["category"], s["status"]) for s in listed] == [(sid, "planning", "active")]
    assert main([*home, "session", "pause", sid]) == 0
    assert capsys.readouterr().out.strip() == f"{sid}: paused (3 messages)"
    assert main([*home, "session", "resume", sid]) == 0
    assert main([*home, "session", "archive", sid, "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["status"] == "archived"
    assert main([*home, "session", "append", sid, "too late"]) == 1
    assert "is archived" in capsys.readouterr().err
    assert main([*home, "session", "show", sid, "--token-budget", "20", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["messages"][-1]["content"] == "password: [REDACTED:password]"
    assert main([*home, "session", "append", sid]) == 1
    assert "give the message TEXT" in capsys.readouterr().err


def test_mcp_live_tools(writable: RecallService, tmp_path: Path) -> None:
    import socket
    import time

    import uvicorn

    app = create_app(writable.settings, writable)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=web.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not web.started:
        assert thread.is_alive() and time.monotonic() < deadline
        time.sleep(0.02)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"

    async def scenario() -> None:
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            started = tool_data(await call_tool(session, "start_session", title="Agent notes", category="agent"))
            sid = started["session_id"]
            assert started["status"] == "active"
            appended = tool_data(await call_tool(session, "append_messages", session_id=sid, messages=[
                {"role": "user", "content": "the capybara enclosure is north"},
                {"role": "assistant", "content": "noted"}]))
            assert appended["message_ids"] == [f"{sid}-m1", f"{sid}-m2"]
            found = tool_data(await call_tool(session, "search_archive", query="capybara enclosure"))
            assert found["results"][0]["session_id"] == sid
            archived = tool_data(await call_tool(session, "set_session_status", session_id=sid, status="archived"))
            assert archived["status"] == "archived"
            late = tool_error(await call_tool(session, "append_messages", session_id=sid,
                                      messages=[{"role": "user", "content": "x"}]))
            assert late.startswith(f"session '{sid}' is archived")
            assert tool_error(await call_tool(session, "append_messages", session_id="nope",
                                      messages=[{"role": "user", "content": "x"}])) == "no session 'nope'"

    try:
        anyio.run(scenario)
    finally:
        web.should_exit = True
        thread.join(10)
        sock.close()
