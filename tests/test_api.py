"""The HTTP API through the real app factory (Litestar TestClient), and over real HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from litestar.testing import TestClient

from api import RecallService, Settings
from api.http.app import create_app
from indexer import HashEmbedder

from .helpers import EXAMPLES, PROBLEM, ROOT, SESSIONS, assert_problem, make_service, serve


def test_search_same_shape_as_cli(client: TestClient) -> None:
    body = client.get("/v1/search", params={"q": "升级"}).json()
    assert body["query"] == "升级"
    assert body["results"][0]["session_id"] == "t-zh-upgrade"
    assert set(body["results"][0]["messages"][0]) >= {"id", "role", "time", "snippet", "score"}


def test_search_strict_is_a_flag(client: TestClient) -> None:
    # the hash embedder has no learned ranker: strict asks nothing more of it
    strict = client.get("/v1/search", params={"q": "升级", "strict": "true"})
    assert strict.status_code == 200
    assert strict.json() == client.get("/v1/search", params={"q": "升级"}).json()


def test_search_when_asks_about_now_or_the_start(client: TestClient) -> None:
    # the hash embedder has no learned ranker, whose sessions near the top `when` orders
    for when in ("current", "history"):
        answer = client.get("/v1/search", params={"q": "升级", "when": when})
        assert answer.status_code == 200 and answer.json()["results"]
    wrong = client.get("/v1/search", params={"q": "升级", "when": "yesterday"})
    assert wrong.status_code == 400 and wrong.headers["content-type"].startswith(
        "application/problem+json")


def test_search_filters(client: TestClient) -> None:
    params = {"q": "postgres", "date": "2026-03", "channel": "cli", "mode": "keyword"}
    assert [r["session_id"] for r in client.get("/v1/search", params=params).json()["results"]] == ["t-secrets"]
    params = {"q": "v2.3.1", "role": "user", "participant": "alex", "session": "t-en-errors", "limit": 1}
    results = client.get("/v1/search", params=params).json()["results"]
    assert len(results) == 1 and all(m["role"] == "user" for m in results[0]["messages"])


def test_list_sessions_newest_first_with_filters(client: TestClient) -> None:
    body = client.get("/v1/sessions").json()
    dates = [s["date"] for s in body["sessions"]]
    assert dates == sorted(dates, reverse=True) and body["total"] == 7
    first = body["sessions"][0]
    assert set(first) == {"session_id", "date", "channel", "participants", "topics", "title", "summary",
                          "message_count", "category", "status", "trimmed", "opening"}
    assert {s["status"] for s in body["sessions"]} == {"archived"}  # ingested from files
    page = client.get("/v1/sessions", params={"limit": 2, "offset": 1}).json()
    assert [s["session_id"] for s in page["sessions"]] == [s["session_id"] for s in body["sessions"][1:3]]
    only = client.get("/v1/sessions", params={"participant": "Simon", "since": "2026-03-01"}).json()
    assert [s["session_id"] for s in only["sessions"]] == ["t-zh-upgrade"]
    assert client.get("/v1/sessions", params={"channel": "telegram"}).json()["total"] == 1


def test_get_session_whole_and_within_budget(client: TestClient) -> None:
    whole = client.get("/v1/sessions/t-secrets").json()
    assert "hunter2" not in json.dumps(whole) and "REDACTED" in json.dumps(whole)
    budget = client.get("/v1/sessions/t-en-errors", params={"token_budget": 40}).json()
    assert 0 < len(budget["messages"]) < 5 and budget["messages"][-1]["id"] == "t-en-errors-m5"


def test_post_and_delete_session(writable_client: TestClient) -> None:
    record = {"sessionId": "api-new", "date": "2026-05-01", "channel": "webchat",
              "messages": [{"role": "user", "content": "The zeppelin museum opens at nine. token=ghp_"
                            + "Ab3De5Gh7Jk9Lm1Np3Qr5St7Uv9Wx1Yz3Bc5D"}]}
    created = writable_client.post("/v1/sessions", json=record)
    assert created.status_code == 201
    assert created.json() == {"session_id": "api-new", "indexed": True, "changed": True}
    again = writable_client.post("/v1/sessions", json=record)
    assert again.status_code == 200 and again.json()["changed"] is False
    hits = writable_client.get("/v1/search", params={"q": "zeppelin museum"}).json()["results"]
    assert hits[0]["session_id"] == "api-new"
    assert "ghp_" not in json.dumps(writable_client.get("/v1/sessions/api-new").json())
    assert writable_client.delete("/v1/sessions/api-new").status_code == 204
    assert writable_client.get("/v1/search", params={"q": "zeppelin museum"}).json()["results"] == []
    assert writable_client.get("/v1/sessions/api-new").status_code == 404


def test_stats_health_metrics_schema(client: TestClient) -> None:
    assert client.get("/v1/stats").json()["sessions"] == 7
    assert client.get("/healthz").json()["status"] == "ok"
    client.get("/v1/search", params={"q": "升级"})
    metrics = client.get("/metrics")
    assert metrics.status_code == 200 and metrics.headers["content-type"].startswith("text/plain")
    assert "recall_sessions_indexed 7.0" in metrics.text
    assert 'recall_requests_total{app_name="recall",method="GET",path="/v1/search"' in metrics.text
    schema = client.get("/schema/openapi.json").json()
    assert {"/v1/search", "/v1/sessions", "/v1/sessions/{session_id}", "/v1/stats", "/healthz"} <= set(schema["paths"])


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "title", "detail"),
    [
        ("get", "/v1/sessions/nope", {}, 404, "Not found", "no session 'nope'"),
        ("get", "/v1/sessions/..%2F..%2Fetc", {}, 404, "Not found", "Not Found"),
        ("get", "/v1/sessions/con", {}, 404, "Not found", "no session 'con'"),
        ("delete", "/v1/sessions/nope", {}, 404, "Not found", "no session 'nope'"),
        ("get", "/v1/search", {"params": {"q": "x", "date": "2026-13-01"}}, 400, "Invalid query",
         "'2026-13-01' is not a real date"),
        ("get", "/v1/search", {"params": {"q": "x", "since": "soon"}}, 400, "Invalid query",
         "cannot read date 'soon': use YYYY-MM-DD, YYYY-MM or YYYY"),
        ("get", "/v1/search", {"params": {"q": "x", "mode": "magic"}}, 400, "Invalid input",
         "mode: Invalid enum value 'magic'"),
        ("get", "/v1/search", {"params": {"q": "升" * 2001}}, 400, "Invalid query",
         "the query is longer than 2000 characters"),
        ("get", "/v1/search", {"params": {"q": "x", "channel": "c" * 201}}, 400, "Invalid input",
         "channel: Expected `str` of length <= 200"),
        ("get", "/v1/sessions/" + "a" * 201, {}, 400, "Invalid input", "session_id: Expected `str` of length <= 200"),
        ("get", "/v1/sessions/t-en-errors/changes", {"params": {"against": "s" * 238}}, 400, "Invalid input",
         "against: Expected `str` of length <= 237"),
        ("post", "/v1/recovery", {"json": {"session_id": "t-en-errors", "context": "c" * 10_001}}, 400,
         "Invalid input", "context: Expected `str` of length <= 10000"),
        ("get", "/v1/search", {"params": {"q": " "}}, 400, "Invalid query", "the query is empty"),
        ("get", "/v1/search", {"params": {"q": "x", "limit": 0}}, 400, "Invalid input", "limit: Expected `int` >= 1"),
        ("get", "/v1/search", {"params": {"q": "x", "limit": "many"}}, 400, "Invalid input",
         "limit: Expected `int`, got `str`"),
        ("get", "/v1/search", {}, 400, "Invalid input", "Missing required query parameter 'q' for path /v1/search"),
        ("get", "/v1/search", {"params": {"q": "x", "strict": "maybe"}}, 400, "Invalid input", None),
        ("get", "/v1/sessions", {"params": {"offset": -1}}, 400, "Invalid input", "offset: Expected `int` >= 0"),
        ("get", "/v1/sessions/t-en-errors", {"params": {"token_budget": 0}}, 400, "Invalid input",
         "token_budget: Expected `int` >= 1"),
        ("post", "/v1/sessions", {"json": [1, 2]}, 400, "Invalid input", "data: Expected `object`, got `array`"),
        ("post", "/v1/sessions", {"json": {"sessionId": "../x", "messages": []}}, 400, "Unsafe session id",
         "session id contains a path separator"),
        ("post", "/v1/sessions", {"json": {"sessionId": "升" * 200, "date": "2026-01-01", "messages": []}}, 400,
         "Unsafe session id", "session id is 200 characters long, 600 bytes in UTF-8 (limit 200 bytes)"),
        ("post", "/v1/sessions", {"json": {"sessionId": "a", "date": "2026-01-01", "messages": "hi"}}, 400,
         "Invalid session", "'messages' must be a list, got a string"),
        ("post", "/v1/sessions", {"content": b"{not json", "headers": {"content-type": "application/json"}}, 400,
         "Invalid input", None),
        ("get", "/v1/nothing", {}, 404, "Not found", "Not Found"),
    ],
)
def test_every_error_has_one_shape(writable_client: TestClient, method: str, path: str, kwargs: dict,
                                   status: int, title: str, detail: str | None) -> None:
    response = getattr(writable_client, method)(path, **kwargs)
    assert_problem(response, status, title, detail)


def test_body_too_large_is_413(tmp_path: Path) -> None:
    service = RecallService(Settings(home=tmp_path, embedder="hash", max_body_mb=0.001), embedder=HashEmbedder())
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as c:
        response = c.post("/v1/sessions", json={"sessionId": "big", "messages": [{"content": "x" * 5000}]})
    assert response.status_code == 413
    assert response.json()["title"] == "Payload too large"


def test_schema_describes_every_error_body(client: TestClient) -> None:
    schema = client.get("/schema/openapi.json").json()
    assert schema["components"]["schemas"]["Problem"]["required"] == ["detail", "status", "title", "type"]
    operations = [(path, method, op) for path, item in schema["paths"].items() for method, op in item.items()]
    assert len(operations) == 35  # 17, 2 for live sessions, 7 for todos and cleanup, 4 for memory relevance, resume, pack, facts, 2 for replaced versions
    for path, method, op in operations:
        errors = {code: response for code, response in op["responses"].items() if code >= "400"}
        assert "401" in errors, (method, path)  # any route may need the token
        for response in errors.values():
            assert response["content"] == {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}}


def test_allow_lists_every_method_of_a_path(client: TestClient) -> None:
    """RFC 9110: a 405 carries Allow; OPTIONS lists every method (Litestar 2 listed only the
    first handler's methods, litestar#4169)."""
    wrong = client.put("/v1/sessions/t-kyoto/snapshots")
    assert wrong.status_code == 405 and wrong.headers["content-type"].startswith(PROBLEM)
    assert set(wrong.headers["allow"].split(", ")) == {"DELETE", "GET", "OPTIONS", "POST"}
    for path, allow in [("/v1/sessions", "GET, OPTIONS, POST"), ("/v1/sessions/x", "DELETE, GET, OPTIONS, PATCH"),
                        ("/v1/sessions/x/snapshots", "DELETE, GET, OPTIONS, POST"), ("/v1/stats", "GET, OPTIONS")]:
        options = client.options(path)
        assert options.status_code == 204 and options.headers["allow"] == allow, path


def test_query_limit_is_a_setting(built_home: Path) -> None:
    settings = Settings(home=built_home, embedder="hash", max_query_chars=10)
    service = RecallService(settings, embedder=HashEmbedder())
    with TestClient(create_app(settings, service), base_url="http://127.0.0.1") as c:
        assert c.get("/v1/search", params={"q": "升级"}).status_code == 200
        too_long = c.get("/v1/search", params={"q": "x" * 11})
        assert too_long.status_code == 400 and too_long.json()["detail"] == "the query is longer than 10 characters"
        schema = c.get("/schema/openapi.json").json()
        q = next(p for p in schema["paths"]["/v1/search"]["get"]["parameters"] if p["name"] == "q")
        assert q["schema"]["maxLength"] == 10


def test_unindexed_home_is_503(tmp_path: Path) -> None:
    service = RecallService(Settings(home=tmp_path, embedder="hash"), embedder=HashEmbedder())
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as c:
        for path in ("/healthz", "/v1/search?q=x", "/v1/stats"):
            response = c.get(path)
            if path == "/v1/stats":
                assert response.status_code == 200
                continue
            assert response.status_code == 503 and response.json()["title"] == "Index unavailable"


def test_an_unready_index_is_503_to_a_probe_without_its_reason(tmp_path: Path) -> None:
    service = RecallService(Settings(home=tmp_path, embedder="hash", api_token="s3cret-token"),
                            embedder=HashEmbedder())
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as c:
        probe = c.get("/healthz")
        assert probe.status_code == 503 and "needs the token" in probe.json()["detail"]
        detailed = c.get("/healthz", headers={"Authorization": "Bearer s3cret-token"})
        assert detailed.status_code == 503 and "needs the token" not in detailed.json()["detail"]


def test_pending_rows_are_unready_only_when_no_writer_is_writing_them(tmp_path: Path) -> None:
    """A write in progress leaves rows pending until it commits: the probe stays 200 then (a
    load balancer would otherwise take every server out under a stream of ingests), and says
    503 for rows a crashed writer left."""
    from indexer.stores.lock import WriterLock
    from indexer.stores.state import State

    service = RecallService(Settings(home=tmp_path, embedder="hash"), embedder=HashEmbedder())
    service.index([EXAMPLES])
    state = State(service.data.state_db)
    state.set_status([next(state.sessions()).session_id], "pending")
    state.close()
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as c:
        left = c.get("/healthz")
        assert left.status_code == 503 and "half-written" in left.json()["detail"]
        with WriterLock(service.data.lock_file):
            assert c.get("/healthz").status_code == 200


def test_token_required_on_every_route(built_home: Path) -> None:
    service = RecallService(Settings(home=built_home, embedder="hash", api_token="s3cret-token"),
                            embedder=HashEmbedder())
    auth = {"Authorization": "Bearer s3cret-token"}
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as c:
        denied = c.get("/v1/search", params={"q": "升级"})
        assert denied.status_code == 401 and denied.headers["www-authenticate"] == "Bearer"
        assert denied.headers["content-type"].startswith(PROBLEM)
        assert denied.json()["title"] == "Unauthorized"
        assert c.get("/v1/stats", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert c.get("/v1/stats", headers={"Authorization": "s3cret-token"}).status_code == 401
        ok = c.get("/v1/search", params={"q": "升级"}, headers=auth)
        assert ok.status_code == 200
        for path in ("/metrics", "/schema/openapi.json", "/schema", "/v1/check"):
            assert c.get(path).status_code == 401, path
            assert c.get(path, headers=auth).status_code == 200, path
        # a liveness probe needs no token and learns nothing about the data
        assert c.get("/healthz").json() == {"status": "ok"}
        assert c.get("/healthz", headers=auth).json()["sessions"] == 7
        # the token is checked before the body is read
        big = c.post("/v1/sessions", content=b"x" * 30_000_000, headers={"content-type": "application/json"})
        assert big.status_code == 401
        mcp = c.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert mcp.status_code == 401 and mcp.json()["title"] == "Unauthorized"
        schema = c.get("/schema/openapi.json", headers=auth).json()
        assert schema["security"] == [{"bearer": []}]
        assert schema["components"]["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}


def test_mcp_body_limit(tmp_path: Path) -> None:
    service = RecallService(Settings(home=tmp_path, embedder="hash", max_body_mb=0.001), embedder=HashEmbedder())
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "search_archive", "arguments": {"query": "x" * 5000}}}
    headers = {"accept": "application/json, text/event-stream", "host": "127.0.0.1:8765"}
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as c:
        response = c.post("/mcp", json=call, headers=headers)
        assert response.status_code == 413 and response.headers["content-type"].startswith(PROBLEM)
        assert response.json()["title"] == "Payload too large"
        call["params"]["arguments"]["query"] = "x"
        assert c.post("/mcp", json=call, headers=headers).status_code == 200


def test_end_to_end_over_real_http(tmp_path: Path) -> None:
    home = tmp_path / "home"
    make_service(home).index([SESSIONS])
    proc, base = serve(home, env={"RECALL_API_TOKEN": "tok"})
    try:
        auth = {"Authorization": "Bearer tok"}
        assert httpx.get(f"{base}/v1/search", params={"q": "升级"}).status_code == 401
        hits = httpx.get(f"{base}/v1/search", params={"q": "升级"}, headers=auth).json()["results"]
        assert hits[0]["session_id"] == "t-zh-upgrade"
        record = {"sessionId": "http-1", "date": "2026-06-01", "messages": [{"role": "user", "content": "hello lighthouse"}]}
        # a server's first write loads the write path (~2.5 s here, longer on a busy machine)
        assert httpx.post(f"{base}/v1/sessions", json=record, headers=auth,
                          timeout=30).status_code == 201
        assert httpx.get(f"{base}/v1/search", params={"q": "lighthouse"}, headers=auth).json()["results"][0]["session_id"] == "http-1"
        assert httpx.delete(f"{base}/v1/sessions/http-1", headers=auth).status_code == 204
        assert httpx.get(f"{base}/healthz").json() == {"status": "ok"}
        assert httpx.get(f"{base}/healthz", headers=auth).json()["status"] == "ok"
        assert httpx.head(f"{base}/healthz").status_code == 200
        page = httpx.head(f"{base}/")  # HEAD answers every GET route, without a body
        assert page.status_code == 200 and page.content == b""
        assert page.headers["content-type"].startswith("text/html")
        assert "recall_requests_total" in httpx.get(f"{base}/metrics", headers=auth).text
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


def test_refuses_public_address_without_token(tmp_path: Path) -> None:
    env = {**os.environ, "RECALL_HOME": str(tmp_path), "RECALL_EMBEDDER": "hash"}
    proc = subprocess.run([sys.executable, "-m", "api.cli", "serve", "--host", "0.0.0.0"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1 and "RECALL_API_TOKEN" in proc.stderr


def test_memories_snapshots_recovery_digest_routes(writable_client: TestClient) -> None:
    memories = writable_client.post("/v1/sessions/t-zh-upgrade/memories", json={"types": ["project"]})
    assert memories.status_code == 200
    body = memories.json()
    assert body["session_id"] == "t-zh-upgrade" and {m["type"] for m in body["memories"]} == {"project"}
    bad = writable_client.post("/v1/sessions/t-zh-upgrade/memories", json={"types": ["gossip"]})
    assert bad.status_code == 400 and "gossip" in bad.json()["detail"]
    assert writable_client.get("/v1/sessions/t-zh-upgrade/snapshots").json()["snapshots"] == []
    created = writable_client.post("/v1/sessions/t-zh-upgrade/snapshots")
    assert created.status_code == 201 and created.json()["session_id"] == "t-zh-upgrade"
    listed = writable_client.get("/v1/sessions/t-zh-upgrade/snapshots").json()["snapshots"]
    assert [s["id"] for s in listed] == [created.json()["id"]]
    decision = writable_client.post("/v1/recovery", json={"session_id": "t-zh-upgrade", "context": "继续升级"})
    assert decision.status_code == 200
    assert decision.json()["selected_snapshot"]["id"] == created.json()["id"]
    assert set(decision.json()) >= {"confidence", "reasons", "alternatives", "strategy"}
    missing = writable_client.post("/v1/recovery", json={"session_id": "t-en-errors"})
    assert missing.status_code == 404 and missing.headers["content-type"].startswith(PROBLEM)
    digest = writable_client.get("/v1/digest", params={"period": "month", "date": "2026-03-15"}).json()
    assert digest["sessions"] == 2 and digest["start"] == "2026-03-01"
    assert writable_client.get("/v1/digest", params={"period": "year"}).status_code == 400


def test_facets_list_filter_values(client: TestClient) -> None:
    body = client.get("/v1/facets").json()
    assert (body["sessions"], body["first_date"], body["last_date"]) == (7, "2025-12-20", "2026-04-02")
    channels = {c["name"]: c["sessions"] for c in body["channels"]}
    assert channels == {"webchat": 2, "cli": 2, "discord": 1, "jsonl": 1, "telegram": 1}
    assert body["participants"][0] in ({"name": "Alex", "sessions": 5}, {"name": "Atlas", "sessions": 5})
    assert {"name": "Simon", "sessions": 1} in body["participants"]
