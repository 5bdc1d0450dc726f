"""Tenants (api/service/tenants.py, DataDir.for_tenant): two tenants, tokens of each scope, every
HTTP route and MCP tool against {no token, wrong tenant, wrong scope, right}; ids of the other
tenant, filters and facets reach nothing of it; each refusal is in the audit log."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from api import RecallService, Settings
from api.http import create_app
from indexer import HashEmbedder
from indexer.stores.layout import DataDir
from indexer.stores.tokens import TokenStore

from .helpers import EXAMPLES, RANK, ROUTE_SCOPES, call_tool, serve, tool_data

SCOPES = ("read", "write", "admin")
ALPHA_SESSION = "519b5376-5e99-4a28-a55d-b799655018ba"  # examples/: invoices, in channel cli
MATRIX_SESSION = "5973cc90-8e43-4d93-af48-24614faebc52"  # alpha's too: the matrix may delete it
BETA_WORD = "zanzibar"  # only in beta's sessions


@dataclass
class Tenants:
    home: Path
    tokens: dict[tuple[str, str], str]  # (tenant, scope) -> token
    todo: str  # alpha's
    snapshot: str  # alpha's, of ALPHA_SESSION
    beta_ids: set[str]

    def auth(self, tenant: str, scope: str, names: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.tokens[(tenant, scope)]}"}
        return headers | ({"X-Recall-Tenant": names} if names else {})


def _beta_sessions(folder: Path) -> set[str]:
    folder.mkdir()
    for i in range(3):
        (folder / f"beta-{i}.json").write_text(json.dumps({
            "sessionId": f"beta-{i}", "date": f"2026-05-0{i + 1}", "channel": "beta-ops",
            "participants": ["Bea"],
            "messages": [{"role": "user", "content": f"The {BETA_WORD} shipment {i}: we decided "
                                                     "to use Kafka for the invoices."},
                         {"role": "assistant", "content": "Noted, Kafka it is."}]}))
    return {f"beta-{i}" for i in range(3)}


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Tenants:
    home = tmp_path_factory.mktemp("tenants")
    settings = Settings(home=home, embedder="hash")
    alpha = RecallService(settings, tenant="alpha", embedder=HashEmbedder())
    alpha.index([EXAMPLES])
    todo = alpha.todos.add("Fix the invoice totals", "week").id
    snapshot = alpha.snapshots.create(ALPHA_SESSION).id
    beta = RecallService(settings, tenant="beta", embedder=HashEmbedder())
    beta_ids = _beta_sessions(home.parent / f"{home.name}-beta")
    beta.index([home.parent / f"{home.name}-beta"])
    with TokenStore(DataDir(home)) as store:
        made = {(tenant, scope): store.create(f"{tenant}-{scope}", tenant, scope)[1]
                for tenant in ("alpha", "beta") for scope in SCOPES}
    return Tenants(home, made, todo, snapshot, beta_ids)


@pytest.fixture(scope="module")
def client(tenants: Tenants) -> Iterator[TestClient]:
    # the matrix sends hundreds of refused requests from one client: no 429 for them here
    settings = Settings(home=tenants.home, embedder="hash", refusals_per_minute=100_000)
    with TestClient(create_app(settings, RecallService(settings, embedder=HashEmbedder())),
                    base_url="http://127.0.0.1") as c:
        yield c


def _audit_lines(home: Path) -> list[dict[str, Any]]:
    path = home / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_each_tenant_has_its_own_data_directory(tenants: Tenants) -> None:
    assert (tenants.home / "tenants" / "alpha" / "archive").is_dir()
    assert (tenants.home / "tenants" / "beta" / "archive").is_dir()
    assert not (tenants.home / "archive").exists()  # the default tenant has nothing


@pytest.mark.parametrize(("method", "path"), sorted(ROUTE_SCOPES))
def test_each_route_against_no_token_wrong_tenant_wrong_scope_and_right(
        tenants: Tenants, client: TestClient, method: str, path: str) -> None:
    url = (path.replace("{session_id:str}", MATRIX_SESSION)
           .replace("{snapshot_id:str}", tenants.snapshot).replace("{todo_id:str}", tenants.todo))
    needed = ROUTE_SCOPES[(method, path)]

    def status(headers: dict[str, str]) -> int:
        # a body that would not parse: 401 and 403 come before it is read
        return client.request(method, url, headers={**headers, "Content-Type": "application/json"},
                              content=b"{not json").status_code

    assert status({}) == 401
    assert status(tenants.auth("beta", "admin", names="alpha")) == 403  # wrong tenant
    for scope in SCOPES:
        if RANK[scope] < RANK[needed]:  # wrong scope
            assert status(tenants.auth("alpha", scope, names="alpha")) == 403
    assert status(tenants.auth("alpha", needed, names="alpha")) not in (401, 403)  # right
    assert status(tenants.auth("alpha", needed)) not in (401, 403)  # right, tenant unnamed


def test_a_wrong_tenant_refusal_names_both_tenants(tenants: Tenants, client: TestClient) -> None:
    answer = client.get("/v1/stats", headers=tenants.auth("beta", "read", names="alpha"))
    assert answer.status_code == 403
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert answer.json()["detail"] == ("token 'beta-read' is for tenant 'beta'; this request "
                                       "names tenant 'alpha'")


def test_a_wrong_tenant_refusal_names_the_tenant_asked_for_in_the_audit_log(
        tenants: Tenants) -> None:
    seen = len(_audit_lines(tenants.home))
    settings = Settings(home=tenants.home, embedder="hash")
    # an app of its own: the matrix above has this client's refusals of the minute counted
    with TestClient(create_app(settings, RecallService(settings, embedder=HashEmbedder())),
                    base_url="http://127.0.0.1") as c:
        url = f"/v1/sessions/{MATRIX_SESSION}"
        assert c.delete(url, headers=tenants.auth("beta", "admin", names="alpha")).status_code == 403
    line = _audit_lines(tenants.home)[seen]
    assert (line["action"], line["outcome"], line["tenant"], line["token"], line["note"]) == (
        f"DELETE {url}", "403", "beta", "beta-admin", "named tenant 'alpha'")


def test_guessing_the_other_tenants_ids_finds_nothing_and_changes_nothing(
        tenants: Tenants, client: TestClient) -> None:
    beta = tenants.auth("beta", "admin")
    alpha = tenants.auth("alpha", "read")
    one = f"/v1/sessions/{ALPHA_SESSION}"
    # what alpha sees before: the route matrix's right-token requests may have moved the todo
    # (done, reopen) on this worker, so the test compares with now, not with "open"
    todo_before = client.get(f"/v1/todos/{tenants.todo}", headers=alpha).json()["status"]
    for method, url, body in (
            ("GET", one, None), ("GET", f"{one}/resume", None), ("GET", f"{one}/changes", None),
            ("GET", f"{one}/snapshots/{tenants.snapshot}", None),
            ("POST", f"{one}/memories", {}), ("POST", f"{one}/snapshots", None),
            ("POST", f"{one}/messages", {"messages": [{"role": "user", "content": "hi"}]}),
            ("PATCH", one, {"status": "paused"}), ("POST", "/v1/recovery",
                                                   {"session_id": ALPHA_SESSION}),
            ("GET", f"/v1/todos/{tenants.todo}", None),
            ("POST", f"/v1/todos/{tenants.todo}/done", None),
            ("DELETE", one, None)):
        answer = client.request(method, url, headers=beta, json=body)
        assert answer.status_code == 404, (method, url, answer.text)
    assert client.get(f"{one}/snapshots", headers=beta).json()["snapshots"] == []
    assert client.delete(f"{one}/snapshots", params={"keep": 1}, headers=beta).json()[
        "deleted"] == 0
    assert client.get(one, headers=alpha).status_code == 200
    assert client.get(f"{one}/snapshots", headers=alpha).json()["snapshots"]
    assert client.get(f"/v1/todos/{tenants.todo}", headers=alpha).json()["status"] == todo_before


INJECTIONS = [
    {"q": "invoices"}, {"q": "invoices", "channel": "cli"}, {"q": "invoices", "participant": "Lin"},
    {"q": f"session_id:{ALPHA_SESSION}"}, {"q": "tenant:alpha invoices"}, {"q": "* OR invoices"},
    {"q": "invoices", "channel": "cli' OR '1'='1"}, {"q": "invoices", "scope": "all"},
    {"q": "周报"}, {"q": "invoices", "since": "2000-01-01", "until": "2100-01-01"},
]


@pytest.mark.parametrize("params", INJECTIONS)
def test_searches_and_filters_stay_in_the_tenant(tenants: Tenants, client: TestClient,
                                                 params: dict[str, str]) -> None:
    answer = client.get("/v1/search", params=params, headers=tenants.auth("beta", "read"))
    assert answer.status_code in (200, 400), answer.text
    if answer.status_code == 200:
        assert {r["session_id"] for r in answer.json()["results"]} <= tenants.beta_ids


def test_listings_counts_facets_and_digests_show_only_the_tenant(
        tenants: Tenants, client: TestClient) -> None:
    beta = tenants.auth("beta", "read")
    facets = client.get("/v1/facets", headers=beta).json()
    assert facets["sessions"] == 3
    assert [c["name"] for c in facets["channels"]] == ["beta-ops"]
    assert [p["name"] for p in facets["participants"]] == ["Bea"]
    assert client.get("/v1/stats", headers=beta).json()["sessions"] == 3
    listed = client.get("/v1/sessions", headers=beta).json()["sessions"]
    assert {s["session_id"] for s in listed} == tenants.beta_ids
    assert client.get("/v1/todos", params={"status": "all"}, headers=beta).json()["todos"] == []
    pack = client.post("/v1/pack", json={"query": "invoice totals"}, headers=beta).json()
    assert ALPHA_SESSION not in json.dumps(pack)
    digest = client.get("/v1/digest", params={"period": "month", "date": "2026-01-15"},
                        headers=beta).json()
    assert ALPHA_SESSION not in json.dumps(digest) and "invoice" not in json.dumps(digest)
    for path in ("/v1/facts", "/v1/memories/relevance", "/v1/memories/pruned"):
        shown = json.dumps(client.get(path, headers=beta).json())
        assert not any(sid in shown for sid in ("519b5376", "9729194d", "bad4375f")), path
    alpha = client.get("/v1/search", params={"q": BETA_WORD}, headers=tenants.auth("alpha", "read"))
    assert not {r["session_id"] for r in alpha.json()["results"]} & tenants.beta_ids


def test_an_ingest_lands_in_its_tenants_directory(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, embedder="hash")
    with TokenStore(DataDir(tmp_path).ensure()) as store:
        writer = store.create("gamma-write", "gamma", "write")[1]
        reader = store.create("delta-read", "delta", "read")[1]
    record = {"sessionId": "g-1", "date": "2026-06-01",
              "messages": [{"role": "user", "content": "the gamma rollout starts Monday"}]}
    with TestClient(create_app(settings, RecallService(settings, embedder=HashEmbedder())), base_url="http://127.0.0.1") as c:
        made = c.post("/v1/sessions", json=record, headers={"Authorization": f"Bearer {writer}"})
        assert made.status_code == 201, made.text
        assert c.get("/v1/search", params={"q": "gamma rollout"},
                     headers={"Authorization": f"Bearer {writer}"}).json()["results"]
        nothing = c.get("/v1/search", params={"q": "gamma rollout"},
                        headers={"Authorization": f"Bearer {reader}"})
        assert nothing.status_code != 200 or not nothing.json()["results"]
    assert list((tmp_path / "tenants" / "gamma" / "archive").rglob("g-1.json"))
    assert not list(tmp_path.glob("archive/**/*.json"))  # the default tenant's
    assert not (tmp_path / "tenants" / "delta").exists()


def test_the_command_line_acts_for_recall_tenant(recall, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                                                 tmp_path: Path) -> None:
    folder = tmp_path / "beta-input"
    beta_ids = _beta_sessions(folder)
    monkeypatch.setenv("RECALL_TENANT", "beta")
    recall("index", str(folder))
    found = json.loads(recall("search", BETA_WORD, "--json").stdout)
    assert {r["session_id"] for r in found["results"]} == beta_ids
    assert "unset RECALL_TENANT" in recall("serve", ok=False).stderr
    monkeypatch.setenv("RECALL_TENANT", "default")
    assert recall("search", BETA_WORD, "--json", ok=False).returncode != 0  # nothing indexed
    monkeypatch.setenv("RECALL_TENANT", "../up")
    assert "RECALL_TENANT must be" in recall("stats", ok=False).stderr
    monkeypatch.delenv("RECALL_TENANT")
    bad = recall("tokens", "create", "--tenant", "../up", "--scope", "read", ok=False)
    assert "not a tenant name" in bad.stderr


# arguments each MCP tool runs with against alpha's data; a new tool fails the test until added
TOOL_ARGUMENTS: dict[str, dict[str, Any]] = {
    "search_archive": {"query": "invoices"}, "get_session": {"session_id": ALPHA_SESSION},
    "context_pack": {"query": "invoices"}, "resume_session": {"session_id": ALPHA_SESSION},
    "archive_session": {"session": {"sessionId": "mcp-1", "date": "2026-06-02",
                                    "messages": [{"role": "user", "content": "hello"}]}},
    "delete_session": {"session_id": "mcp-1"},
    "extract_memories": {"session_id": ALPHA_SESSION},
    "recover_session": {"session_id": ALPHA_SESSION},
    "snapshot_changes": {"session_id": ALPHA_SESSION}, "memory_digest": {"period": "month"},
    "current_facts": {}, "start_session": {"session_id": "live-mcp"},
    "append_messages": {"session_id": "live-mcp",
                        "messages": [{"role": "user", "content": "a live line"}]},
    "set_session_status": {"session_id": "live-mcp", "status": "paused"},
    "add_todo": {"content": "a todo from MCP"}, "complete_todo": {"todo_id": "x"},
    "list_todos": {},
}
# the scope each tool needs, written out: the server's own table (TOOL_SCOPES) must agree
TOOL_NEEDS = {"archive_session": "write", "delete_session": "admin", "start_session": "write",
              "append_messages": "write", "set_session_status": "write", "add_todo": "write",
              "complete_todo": "write"}


def test_each_mcp_tool_against_no_token_wrong_tenant_wrong_scope_and_right(
        tenants: Tenants) -> None:
    proc, base = serve(tenants.home)

    async def tool_calls(headers: dict[str, str], tools: list[str]) -> dict[str, str]:
        async with httpx.AsyncClient(headers=headers, timeout=60) as http, \
                streamable_http_client(f"{base}/mcp", http_client=http) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            listed = {tool.name for tool in (await session.list_tools()).tools}
            assert listed == set(TOOL_ARGUMENTS), listed ^ set(TOOL_ARGUMENTS)
            out = {}
            for tool in tools:
                result = await call_tool(session, tool, **TOOL_ARGUMENTS[tool])
                text = result.content[0].text  # type: ignore[union-attr]
                out[tool] = "denied" if "has scope" in text else "allowed"
            return out

    async def refused(headers: dict[str, str]) -> int:
        async with httpx.AsyncClient(timeout=30) as http:
            answer = await http.post(f"{base}/mcp", headers=headers | {
                "Accept": "application/json, text/event-stream"}, json={
                "jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            return answer.status_code

    try:
        tools = sorted(TOOL_ARGUMENTS)
        for scope in SCOPES:
            got = asyncio.run(tool_calls(tenants.auth("alpha", scope, names="alpha"), tools))
            want = {tool: "allowed" if RANK[scope] >= RANK[TOOL_NEEDS.get(tool, "read")]
                    else "denied" for tool in tools}
            assert got == want, scope
        assert asyncio.run(refused({})) == 401
        assert asyncio.run(refused(tenants.auth("beta", "admin", names="alpha"))) == 403
        lines = _audit_lines(tenants.home)
        assert any(line["action"] == "POST /mcp" and line["outcome"] == "403"
                   and line["tenant"] == "beta" for line in lines), lines[-3:]
        denied = {line["action"] for line in lines if line["outcome"] == "denied"
                  and line["token"] == "alpha-read"}
        assert denied == {f"mcp {tool}" for tool, need in TOOL_NEEDS.items()}

        async def beta_reads() -> None:
            async with httpx.AsyncClient(headers=tenants.auth("beta", "admin"), timeout=60) as http, \
                    streamable_http_client(f"{base}/mcp", http_client=http) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                found = tool_data(await call_tool(session, "search_archive", query="invoices"))
                assert {r["session_id"] for r in found["results"]} <= tenants.beta_ids
                for tool in ("get_session", "extract_memories", "resume_session", "delete_session"):
                    result = await call_tool(session, tool, session_id=ALPHA_SESSION)
                    assert result.is_error and "no session" in result.content[0].text, tool  # type: ignore[union-attr]

        asyncio.run(beta_reads())
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    alpha = RecallService(Settings(home=tenants.home, embedder="hash"), tenant="alpha",
                          embedder=HashEmbedder())
    assert alpha.session(ALPHA_SESSION, None).session_id == ALPHA_SESSION
