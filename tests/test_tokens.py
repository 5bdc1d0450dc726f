"""Scoped tokens (indexer/stores/tokens.py, api/http/auth.py) and the audit log: every HTTP route
and every MCP tool against no token, a revoked or expired one, and tokens of each scope; only the
hash is kept; RECALL_API_TOKEN stays an admin token; writes and refusals are in the audit log."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from litestar.routes import HTTPRoute
from litestar.testing import TestClient
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from api import RecallService, Settings
from api.http import create_app
from indexer import HashEmbedder
from indexer.stores.audit import AuditLog
from indexer.stores.tokens import TokenStore

from .helpers import EXAMPLES, RANK, ROUTE_SCOPES, call_tool, serve


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict, Path]]:
    home = tmp_path_factory.mktemp("tokens")
    # the matrix sends hundreds of refused requests from one client: no 429 for them here
    service = RecallService(Settings(home=home, embedder="hash", refusals_per_minute=100_000),
                            embedder=HashEmbedder())
    service.index([EXAMPLES])
    with TokenStore(service.data) as store:
        made = {scope: store.create(f"t-{scope}", "default", scope)[1]
                for scope in ("read", "write", "admin")}
        revoked = store.create("t-revoked", "default", "admin")[1]
        store.revoke("t-revoked")
        expired = store.create("t-expired", "default", "admin", expires=time.time() - 1)[1]
    made |= {"revoked": revoked, "expired": expired}
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as client:
        yield client, made, home


def _guarded_routes(client: TestClient) -> list[tuple[str, str]]:
    return [(method, route.path) for route in client.app.routes if isinstance(route, HTTPRoute)
            for handler in route.route_handlers if not handler.opt.get("public")
            for method in sorted(handler.http_methods - {"HEAD", "OPTIONS"})
            if not route.path.startswith("/schema")]


def test_every_guarded_route_is_in_the_matrix(setup: tuple[TestClient, dict, Path]) -> None:
    assert sorted(_guarded_routes(setup[0])) == sorted(ROUTE_SCOPES)


@pytest.mark.parametrize(("method", "path"), sorted(ROUTE_SCOPES))
def test_each_route_against_each_token(setup: tuple[TestClient, dict, Path], method: str,
                                       path: str) -> None:
    client, tokens, _ = setup
    url = (path.replace("{session_id:str}", "no-such-session")
           .replace("{snapshot_id:str}", "snap").replace("{todo_id:str}", "todo-x"))
    needed = ROUTE_SCOPES[(method, path)]

    def status(token: str | None) -> int:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        # a body that would not parse: 401 and 403 come before it is read
        headers["Content-Type"] = "application/json"
        return client.request(method, url, headers=headers, content=b"{not json",
                              ).status_code

    assert status(None) == 401
    assert status("rcl_bogus_token") == 401
    assert status(tokens["revoked"]) == 401
    assert status(tokens["expired"]) == 401
    for scope in ("read", "write", "admin"):
        got = status(tokens[scope])
        if RANK[scope] < RANK[needed]:
            assert got == 403, (scope, got)
        else:
            assert got not in (401, 403), (scope, got)


def test_a_refusal_is_problem_json_naming_the_scope(setup: tuple[TestClient, dict, Path]) -> None:
    client, tokens, _ = setup
    answer = client.delete("/v1/sessions/x", headers={"Authorization": f"Bearer {tokens['write']}"})
    assert answer.status_code == 403
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["detail"] == "token 't-write' has scope write; this needs admin"


def test_only_the_hash_is_kept_and_the_audit_log_has_no_token(
        setup: tuple[TestClient, dict, Path]) -> None:
    client, tokens, home = setup
    client.post("/v1/sessions", headers={"Authorization": f"Bearer {tokens['read']}"})
    stored = b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())
    for token in tokens.values():
        assert token.encode() not in stored
        assert token.split("_", 2)[2].encode() not in stored


def test_refused_requests_and_writes_are_in_the_audit_log(
        setup: tuple[TestClient, dict, Path]) -> None:
    _, tokens, home = setup
    audit = home / "audit.jsonl"
    seen = len(audit.read_text().splitlines()) if audit.exists() else 0
    service = RecallService(Settings(home=home, embedder="hash"), embedder=HashEmbedder())
    # an app of its own: the matrix above has this client's refusals of the minute counted
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as client:
        client.get("/v1/search", params={"q": "x"})  # no token
        client.post("/v1/pack", json={"query": "x"})  # a POST that only reads, without a token
        client.post("/v1/pack", json={"query": "deploys"},
                    headers={"Authorization": f"Bearer {tokens['read']}"})
        client.post("/v1/sessions", json={}, headers={"Authorization": f"Bearer {tokens['read']}"})
        client.post("/v1/todos", json={"content": "Write the notes", "period": "week"},
                    headers={"Authorization": f"Bearer {tokens['write']}"})
        client.get("/v1/stats", headers={"Authorization": f"Bearer {tokens['revoked']}"})
        client.get("/v1/stats", headers={"Authorization": f"Bearer {tokens['expired']}"})
    # the app's shutdown wrote the count of the refusals its first line for "-" stood for
    entries = list(AuditLog(service.data).entries())[seen:]
    assert any(e.action == "GET /v1/search" and e.outcome == "401" and e.token == "-"
               and e.client == "testclient" and e.count == 1 for e in entries)
    assert any(e.action == "POST /v1/pack" and e.outcome == "401" and e.token == "-"
               and e.count == 1 and e.note.startswith("more refusals") for e in entries)
    assert not any(e.action == "POST /v1/pack" and e.outcome == "200" for e in entries), \
        "a POST that only reads is not a write"
    assert any(e.action == "POST /v1/sessions" and e.outcome == "403" and e.token == "t-read"
               and e.note == "scope read" for e in entries)
    assert any(e.action == "POST /v1/todos" and e.token == "t-write" and e.outcome == "201"
               for e in entries)
    # a token known but no longer valid is named, with why
    assert any(e.token == "t-revoked" and e.outcome == "401" and e.note == "revoked"
               for e in entries)
    assert any(e.token == "t-expired" and e.outcome == "401" and e.note == "expired"
               for e in entries)
    assert not any(e.action.startswith("GET") and e.outcome not in ("401", "403")
                   for e in entries), "reads are not audited"


def test_recall_api_token_is_an_admin_token_beside_made_ones(tmp_path: Path) -> None:
    service = RecallService(Settings(home=tmp_path, embedder="hash", api_token="s3cret-tok"),
                            embedder=HashEmbedder())
    service.index([EXAMPLES])
    with TokenStore(service.data) as store:
        reader = store.create("reader", "default", "read")[1]
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as client:
        admin = {"Authorization": "Bearer s3cret-tok"}
        assert client.get("/v1/stats", headers=admin).status_code == 200
        assert client.delete("/v1/sessions/nope", headers=admin).status_code == 404
        assert client.get("/v1/stats", headers={"Authorization": f"Bearer {reader}"}
                          ).status_code == 200
        assert client.get("/v1/stats").status_code == 401


def test_without_any_token_a_local_server_stays_open(tmp_path: Path) -> None:
    service = RecallService(Settings(home=tmp_path, embedder="hash"), embedder=HashEmbedder())
    service.index([EXAMPLES])
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as client:
        assert client.get("/v1/stats").status_code == 200
        assert client.delete("/v1/sessions/nope").status_code == 404


def test_mcp_tools_check_the_token_scope_over_real_http(tmp_path: Path) -> None:
    import asyncio

    home = tmp_path / "home"
    service = RecallService(Settings(home=home, embedder="hash"), embedder=HashEmbedder())
    service.index([EXAMPLES])
    with TokenStore(service.data) as store:
        made = {scope: store.create(f"m-{scope}", "default", scope)[1]
                for scope in ("read", "write", "admin")}
    proc, base = serve(home)
    try:
        async def calls(token: str | None) -> dict[str, str]:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            async with httpx.AsyncClient(headers=headers, timeout=30) as http, \
                    streamable_http_client(f"{base}/mcp", http_client=http) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                out = {}
                for tool, args in (("search_archive", {"query": "deploy"}),
                                   ("add_todo", {"content": "check the notes"}),
                                   ("delete_session", {"session_id": "no-such-session"})):
                    result = await call_tool(session, tool, **args)
                    text = result.content[0].text  # type: ignore[union-attr]
                    assert not result.is_error or "has scope" in text or "no session" in text, text
                    out[tool] = "denied" if "has scope" in text else "allowed"
                return out

        assert asyncio.run(calls(made["read"])) == {
            "search_archive": "allowed", "add_todo": "denied", "delete_session": "denied"}
        assert asyncio.run(calls(made["write"])) == {
            "search_archive": "allowed", "add_todo": "allowed", "delete_session": "denied"}
        assert asyncio.run(calls(made["admin"])) == {
            "search_archive": "allowed", "add_todo": "allowed", "delete_session": "allowed"}
        with pytest.raises(Exception):  # noqa: B017  the client fails on the 401 as it connects
            asyncio.run(calls(None))
        lines = [json.loads(line) for line in (home / "audit.jsonl").read_text().splitlines()]
        assert {"mcp add_todo", "mcp delete_session"} <= {line["action"] for line in lines}
        assert any(line["action"] == "mcp delete_session" and line["outcome"] == "denied"
                   and line["token"] == "m-read" for line in lines)
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_recall_tokens_and_audit_commands(recall, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    made = recall("tokens", "create", "--tenant", "team-a", "--scope", "write", "--expires",
                  "30d", "--name", "ci-bot")
    token = made.stdout.strip()
    assert token.startswith("rcl_") and "shown once" in made.stderr
    listed = recall("tokens", "list").stdout
    assert "ci-bot  team-a  write" in listed and token not in listed
    assert recall("tokens", "revoke", "ci-bot").stdout.startswith("revoked ci-bot")
    assert "revoked 20" in recall("tokens", "list").stdout
    assert recall("tokens", "revoke", "nobody", ok=False).returncode == 1
    bad = recall("tokens", "create", "--scope", "read", "--expires", "soon", ok=False)
    assert "--expires takes a duration" in bad.stderr
    log = recall("audit", "--tenant", "team-a").stdout
    assert "tokens create" in log and "tokens revoke" in log and token not in log


def test_the_command_lines_writes_and_purges_are_in_the_audit_log(recall, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                  monkeypatch: pytest.MonkeyPatch
                                                                  ) -> None:
    recall("index", EXAMPLES)
    recall("delete", "5973cc90-8e43-4d93-af48-24614faebc52", "--purge")
    assert recall("delete", "no-such-session", ok=False).returncode == 1
    recall("search", "deploys")  # a read: not audited
    recall("todo", "list")  # nor a writing command's listing
    recall("retention")  # nor a dry run
    monkeypatch.setenv("RECALL_TENANT", "team-a")
    recall("index", EXAMPLES)
    lines = [json.loads(line) for line in
             (tmp_path / "home" / "audit.jsonl").read_text().splitlines()]
    assert [(line["tenant"], line["action"], line["targets"], line["outcome"]) for line in lines] == [
        ("default", "cli index", [], "ok"),
        ("default", "cli delete --purge", ["5973cc90-8e43-4d93-af48-24614faebc52"], "ok"),
        ("default", "cli delete", ["no-such-session"], "error"),
        ("team-a", "cli index", [], "ok")]
    assert all(line["token"].startswith("cli:") for line in lines)
