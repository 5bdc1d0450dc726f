"""What a web page, a write-scope token or a flood of refused requests can do to a server: the
front door (api/http/gate.py), the rule against silent replacement (indexer/stores/replaced.py),
the bounded audit log (api/http/refusals.py), the health probe and token names, and who may
read the data directory. The browser side of the same attacks is in test_web.py."""

from __future__ import annotations

import json
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from litestar.testing import TestClient

from api import RecallService, Settings
from api.http import create_app
from indexer import HashEmbedder
from indexer.stores.audit import AuditLog
from indexer.stores.layout import DataDir
from indexer.stores.tokens import TokenStore

from .helpers import EXAMPLES, PROBLEM, ROUTE_SCOPES, serve

LOCAL = "http://127.0.0.1"
WIPE = '{"older_than": "1d", "dry_run": false}'
TEN = {"sessionId": "ten", "date": "2026-05-04", "channel": "cli",
       "messages": [{"role": "user" if n % 2 == 0 else "assistant",
                     "content": f"step {n} of the heron rollout"} for n in range(10)]}


def _service(home: Path, **settings: object) -> RecallService:
    return RecallService(Settings(home=home, embedder="hash", **settings),  # type: ignore[arg-type]
                         embedder=HashEmbedder())


@pytest.fixture
def local(tmp_path: Path) -> Iterator[tuple[TestClient, RecallService]]:
    """The default local mode: no token anywhere, the sample archive indexed."""
    service = _service(tmp_path / "home")
    service.index([EXAMPLES])
    with TestClient(create_app(service.settings, service), base_url=LOCAL) as client:
        yield client, service


def _sessions(client: TestClient) -> int:
    return int(client.get("/v1/stats").json()["sessions"])


def _audit(home: Path) -> list[dict[str, object]]:
    path = home / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# --- 1. local mode, from the browser's side of the wire

def test_a_text_plain_body_is_refused_before_anything_is_deleted(
        local: tuple[TestClient, RecallService]) -> None:
    client, _ = local
    assert _sessions(client) == 14
    answer = client.post("/v1/cleanup", content=WIPE, headers={"Content-Type": "text/plain"})
    assert answer.status_code == 415
    assert answer.headers["content-type"].startswith(PROBLEM)
    assert _sessions(client) == 14


@pytest.mark.parametrize(("method", "path"), sorted(
    (m, p) for (m, p), _ in ROUTE_SCOPES.items() if m not in ("GET", "DELETE")))
def test_every_route_that_takes_a_body_refuses_one_that_is_not_json(
        local: tuple[TestClient, RecallService], method: str, path: str) -> None:
    client, _ = local
    url = path.replace("{session_id:str}", "5973cc90-8e43-4d93-af48-24614faebc52").replace(
        "{todo_id:str}", "todo-x")
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        answer = client.request(method, url, content=b'{"sessionId": "planted"}',
                                headers={"Content-Type": content_type})
        assert answer.status_code == 415, (content_type, answer.text)
    assert client.request(method, url, content=b'{"sessionId": "planted"}').status_code == 415


@pytest.mark.parametrize("path", ["/v1/sessions/5973cc90-8e43-4d93-af48-24614faebc52",
                                  "/v1/search?q=deploys", "/healthz", "/mcp", "/",
                                  "/schema/openapi.json", "/metrics", "/no-such-path"])
def test_a_host_that_does_not_name_the_server_gets_421(
        local: tuple[TestClient, RecallService], path: str) -> None:
    client, _ = local
    for host in ("evil.example:8765", "evil.example", "127.0.0.1.evil.example",
                 "localhost.evil.example"):
        answer = client.get(path, headers={"Host": host})
        assert answer.status_code == 421, (host, answer.text)
        assert answer.headers["content-type"].startswith(PROBLEM)
        assert "RECALL_ALLOWED_HOSTS" in answer.json()["detail"]
        assert "Friday" not in answer.text


def test_loopback_names_and_the_allowed_hosts_are_served(tmp_path: Path) -> None:
    service = _service(tmp_path / "home", allowed_hosts="recall.team.example, .corp.example")
    service.index([EXAMPLES])
    with TestClient(create_app(service.settings, service), base_url=LOCAL) as client:
        for host in ("127.0.0.1:8765", "localhost:8765", "LOCALHOST.", "[::1]:8765",
                     "recall.localhost:8765", "127.0.0.2", "recall.team.example",
                     "corp.example", "eu.corp.example:443"):
            assert client.get("/v1/stats", headers={"Host": host}).status_code == 200, host
        for host in ("evil.example", "team.example", "xcorp.example", "10.1.2.3"):
            assert client.get("/v1/stats", headers={"Host": host}).status_code == 421, host
    anything = _service(tmp_path / "home", allowed_hosts="*")
    with TestClient(create_app(anything.settings, anything), base_url=LOCAL) as client:
        assert client.get("/v1/stats", headers={"Host": "evil.example"}).status_code == 200


def test_a_request_without_host_is_served(local: tuple[TestClient, RecallService]) -> None:
    # HTTP/1.0 health checkers send none; a browser always sends one, so rebinding cannot
    client, _ = local
    assert client.get("/v1/stats", headers={"Host": ""}).status_code == 200


def test_bound_to_every_interface_addresses_are_served_and_names_are_not(tmp_path: Path) -> None:
    service = _service(tmp_path / "home")
    with TestClient(create_app(service.settings, service, host="0.0.0.0"),
                    base_url=LOCAL) as client:
        for host, status in (("10.1.2.3:8765", 200), ("[fd00::1]:8765", 200),
                             ("evil.example:8765", 421)):
            assert client.get("/v1/stats", headers={"Host": host}).status_code == status, host


def test_a_change_sent_from_another_origins_page_is_refused(
        local: tuple[TestClient, RecallService]) -> None:
    client, service = local
    record = {**TEN, "sessionId": "planted"}
    for headers in ({"Origin": "http://localhost:3000"}, {"Origin": "http://127.0.0.1:8080"},
                    {"Origin": "http://evil.example"}, {"Origin": "null"},
                    {"Origin": "https://127.0.0.1:8443"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1"}):
        answer = client.post("/v1/sessions", json=record, headers=headers)
        assert answer.status_code == 403, (headers, answer.text)
        assert client.delete("/v1/sessions/5973cc90-8e43-4d93-af48-24614faebc52",
                             headers=headers).status_code == 403
    assert _sessions(client) == 14
    # the server's own page (same origin) and clients that are not browsers (no Origin) write
    assert client.post("/v1/sessions", json=record, headers={
        "Origin": "http://127.0.0.1", "Sec-Fetch-Site": "same-origin"}).status_code == 201
    assert client.post("/v1/sessions", json={**record, "sessionId": "cli"}).status_code == 201
    # a read from another origin's page is not refused: the browser keeps the answer from it
    assert client.get("/v1/stats", headers={"Origin": "http://evil.example"}).status_code == 200
    lines = _audit(service.data.root)
    assert any(line["outcome"] == "403" and line["client"] == "testclient"
               and "http://localhost:3000" in str(line["note"]) for line in lines)


# --- 2. no destructive write without the right to destroy

def test_a_write_token_cannot_replace_a_session_and_an_admin_can_restore_it(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    service = _service(home)
    service.ingest_record(TEN)
    with TokenStore(service.data) as store:
        write = {"Authorization": f"Bearer {store.create('w', 'default', 'write')[1]}"}
        admin = {"Authorization": f"Bearer {store.create('a', 'default', 'admin')[1]}"}
    one = {**TEN, "messages": [{"role": "user", "content": "planted text"}]}
    grown = {**TEN, "messages": [*TEN["messages"], {"role": "user", "content": "step 10"}]}
    with TestClient(create_app(service.settings, service), base_url=LOCAL) as client:
        refused = client.post("/v1/sessions", json=one, headers=write)
        assert refused.status_code == 409, refused.text
        assert "holds 10 messages" in refused.json()["detail"]
        assert len(client.get("/v1/sessions/ten", headers=write).json()["messages"]) == 10
        assert client.post("/v1/sessions", json=one, headers=write,
                           params={"replace": "true"}).status_code == 403
        # changed text in one stored message is a replacement too
        edited = {**TEN, "messages": [{**m, "content": "x"} if n == 3 else m
                                      for n, m in enumerate(TEN["messages"])]}
        assert client.post("/v1/sessions", json=edited, headers=write).status_code == 409
        # adding messages after the stored ones, or new metadata, replaces nothing
        added = client.post("/v1/sessions", json=grown, headers=write)
        assert (added.status_code, added.json()) == (
            201, {"session_id": "ten", "indexed": True, "changed": True})
        assert client.post("/v1/sessions", json={**grown, "summary": "the heron plan"},
                           headers=write).status_code == 201
        assert client.get("/v1/sessions/ten/versions", headers=write).json()["versions"] == []
        # an admin may replace, saying so; the version replaced is kept and can come back
        replaced = client.post("/v1/sessions", json=one, headers=admin, params={"replace": "true"})
        assert (replaced.status_code, replaced.json()["replaced"]) == (201, True)
        assert len(client.get("/v1/sessions/ten", headers=admin).json()["messages"]) == 1
        versions = client.get("/v1/sessions/ten/versions", headers=write).json()["versions"]
        assert [v["messages"] for v in versions] == [11]
        assert client.post("/v1/sessions/ten/restore", headers=write).status_code == 403
        restored = client.post("/v1/sessions/ten/restore", headers=admin)
        assert restored.status_code == 200, restored.text
        assert restored.json()["kept_current"] is True
        assert len(client.get("/v1/sessions/ten", headers=admin).json()["messages"]) == 11
        found = client.get("/v1/search", params={"q": "planted"}, headers=admin).json()
        assert "ten" not in {r["session_id"] for r in found["results"]}
    lines = _audit(home)
    assert any(line["action"] == "POST /v1/sessions" and line["outcome"] == "409"
               and line["targets"] == ["ten"] and line["token"] == "w" for line in lines)
    assert any(line["action"] == "POST /v1/sessions" and line["outcome"] == "201"
               and line["targets"] == ["ten"] and line["token"] == "a" for line in lines)
    assert any(line["action"] == "POST /v1/sessions/ten/restore" and line["targets"] == ["ten"]
               for line in lines)
    replaced_files = list((home / "replaced" / "ten").glob("*.json"))
    assert len(replaced_files) == 2 and all(
        stat.S_IMODE(p.stat().st_mode) == 0o600 for p in replaced_files)



def test_a_write_token_cannot_change_who_said_a_stored_message_or_when(tmp_path: Path) -> None:
    home = tmp_path / "home"
    service = _service(home)
    said = {**TEN, "messages": [{**m, "speaker": "Ana", "time": f"2026-05-04T10:0{n}:00Z"}
                                for n, m in enumerate(TEN["messages"])]}
    service.ingest_record(said)
    with TokenStore(service.data) as store:
        write = {"Authorization": f"Bearer {store.create('w', 'default', 'write')[1]}"}
        admin = {"Authorization": f"Bearer {store.create('a', 'default', 'admin')[1]}"}

    def edited(n: int, **change: str) -> dict[str, object]:
        return {**said, "messages": [{**m, **change} if k == n else m
                                     for k, m in enumerate(said["messages"])]}

    with TestClient(create_app(service.settings, service), base_url=LOCAL) as client:
        before = client.get("/v1/sessions/ten", headers=write).json()["messages"]
        for change in ({"speaker": "Mallory"}, {"time": "2020-01-01T00:00:00Z"}):
            refused = client.post("/v1/sessions", json=edited(3, **change), headers=write)
            assert refused.status_code == 409, (change, refused.text)
            assert "keeps the first 3 of them unchanged" in refused.json()["detail"]
        # a record that leaves them out would erase them: a change too
        assert client.post("/v1/sessions", json=TEN, headers=write).status_code == 409
        assert client.get("/v1/sessions/ten", headers=write).json()["messages"] == before
        assert client.get("/v1/sessions/ten/versions", headers=write).json()["versions"] == []
        # the same record again, or one that adds messages after the stored ones, is no change
        assert client.post("/v1/sessions", json=said, headers=write).status_code == 200
        grown = {**said, "messages": [*said["messages"], {"role": "user", "content": "step 10"}]}
        assert client.post("/v1/sessions", json=grown, headers=write).status_code == 201
        # an admin may, saying so, and the version it replaced is kept and comes back
        moved = {**grown, "messages": [{**m, "speaker": "Mallory"} if k == 3 else m
                                       for k, m in enumerate(grown["messages"])]}
        replaced = client.post("/v1/sessions", json=moved, headers=admin,
                               params={"replace": "true"})
        assert (replaced.status_code, replaced.json()["replaced"]) == (201, True)
        assert client.get("/v1/sessions/ten", headers=admin).json()["messages"][3][
            "speaker"] == "Mallory"
        restored = client.post("/v1/sessions/ten/restore", headers=admin)
        assert (restored.status_code, restored.json()["kept_current"]) == (200, True)
        assert client.get("/v1/sessions/ten", headers=admin).json()["messages"][3][
            "speaker"] == "Ana"
    assert any(line["action"] == "POST /v1/sessions" and line["outcome"] == "409"
               and line["targets"] == ["ten"] and line["token"] == "w" for line in _audit(home))


def test_a_file_read_again_keeps_a_version_for_a_new_speaker_not_for_moved_times(
        tmp_path: Path) -> None:
    # formats with no time of their own for a message give it the file's modification time
    # (a Cursor transcript), which moves at every write: a re-read is no replacement
    service = _service(tmp_path / "home")
    source = tmp_path / "in" / "ten.json"
    source.parent.mkdir()

    def write(time: str, speaker: str) -> None:
        source.write_text(json.dumps({**TEN, "messages": [
            {**m, "time": time, "speaker": speaker} for m in TEN["messages"]]}))
        service.index([source])

    write("2026-05-04T10:00:00Z", "Ana")
    write("2026-05-04T11:30:00Z", "Ana")
    assert service.versions.list("ten").versions == []
    write("2026-05-04T11:30:00Z", "Mallory")
    assert [v.messages for v in service.versions.list("ten").versions] == [10]

def test_replaced_versions_expire_and_go_with_their_session(tmp_path: Path) -> None:
    service = _service(tmp_path / "home", keep_replaced_days=0)
    service.ingest_record(TEN)
    service.ingest_record({**TEN, "messages": TEN["messages"][:2]}, replace=True)
    assert service.versions.list("ten").versions == []  # kept 0 days: gone with the write
    kept = _service(tmp_path / "home")
    kept.ingest_record({**TEN, "messages": TEN["messages"][:1]}, replace=True)
    assert len(kept.versions.list("ten").versions) == 1
    kept.delete("ten")
    assert not (tmp_path / "home" / "replaced" / "ten").exists()


def test_a_file_that_replaces_a_session_keeps_the_version_it_replaced(
        tmp_path: Path, recall) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "in" / "ten.json"
    source.parent.mkdir()
    source.write_text(json.dumps(TEN))
    recall("index", source)
    source.write_text(json.dumps({**TEN, "messages": TEN["messages"][:3]}))
    recall("index", source)
    listed = recall("restore", "ten", "--list", "--json")
    assert [v["messages"] for v in json.loads(listed.stdout)["versions"]] == [10]
    done = recall("restore", "ten")
    assert "restored ten to version" in done.stdout and "(10 messages)" in done.stdout
    shown = json.loads(recall("show", "ten", "--json").stdout)
    assert len(shown["messages"]) == 10
    assert any(e.action == "cli restore" and e.targets == ["ten"]
               for e in AuditLog(DataDir(tmp_path / "home")).entries())


# --- 3. an audit log that holds

def test_a_path_with_doubled_slashes_is_routed_and_audited_as_the_path_it_is(
        local: tuple[TestClient, RecallService]) -> None:
    client, service = local
    for n, url in enumerate((f"{LOCAL}//v1/sessions", f"{LOCAL}/v1//sessions",
                             f"{LOCAL}/v1/./sessions", f"{LOCAL}/v1/todos/../sessions")):
        answer = client.post(url, json={**TEN, "sessionId": f"n{n}"})
        assert answer.status_code == 201, (url, answer.text)
        assert any(line["action"] == "POST /v1/sessions" and line["targets"] == [f"n{n}"]
                   for line in _audit(service.data.root)), url



def test_a_path_with_encoded_slashes_is_routed_and_audited_as_the_path_it_is(
        tmp_path: Path) -> None:
    # uvicorn decodes %2F in `path` and keeps it encoded in `raw_path`, which the audit reads:
    # against `recall serve`, so the decoding is the one a real client meets
    home = tmp_path / "home"
    service = _service(home)
    service.ingest_record(TEN)
    with TokenStore(service.data) as store:
        read = {"Authorization": f"Bearer {store.create('r', 'default', 'read')[1]}"}
        write = {"Authorization": f"Bearer {store.create('w', 'default', 'write')[1]}"}
    proc, base = serve(home)
    try:
        for n, path in enumerate(("/v1%2Fsessions", "/v1%2fsessions", "/%2Fv1%2Fsessions",
                                  "/v1/todos%2F..%2Fsessions")):
            answer = httpx.post(base + path, json={**TEN, "sessionId": f"e{n}"}, headers=write)
            assert answer.status_code == 201, (path, answer.text)
            assert httpx.get(f"{base}/v1/sessions/e{n}", headers=read).status_code == 200
        # refused as the path it is: a read token may not write, a write token may not delete
        assert httpx.post(f"{base}/v1%2Fsessions", json={**TEN, "sessionId": "r0"},
                          headers=read).status_code == 403
        assert httpx.delete(f"{base}/v1%2Fsessions%2Ften", headers=write).status_code == 403
        assert httpx.get(f"{base}/v1/sessions/ten", headers=read).status_code == 200
        assert httpx.get(f"{base}/v1/sessions/r0", headers=read).status_code == 404
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    lines = _audit(home)
    for n in range(4):
        assert any(line["action"] == "POST /v1/sessions" and line["outcome"] == "201"
                   and line["targets"] == [f"e{n}"] and line["token"] == "w"
                   for line in lines), n
    assert any(line["action"] == "POST /v1/sessions" and line["outcome"] == "403"
               and line["token"] == "r" for line in lines)
    assert any(line["action"] == "DELETE /v1/sessions/ten" and line["outcome"] == "403"
               and line["token"] == "w" for line in lines)
    assert not any("%2" in str(line["action"]).lower() for line in lines)

def test_refused_requests_are_rate_limited_and_cost_the_log_two_lines_a_minute(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    service = _service(home, api_token="the-token", refusals_per_minute=20)
    service.index([EXAMPLES])
    statuses = []
    with TestClient(create_app(service.settings, service), base_url=LOCAL) as client:
        started = time.monotonic()
        for n in range(200):
            answer = client.get("/v1/sessions/" + "a" * 20_000 + str(n),
                                headers={"Authorization": "Bearer guess-" + str(n)})
            statuses.append(answer.status_code)
        elapsed = time.monotonic() - started
        # a client over its budget of refusals may still send what is not refused
        assert client.get("/v1/stats", headers={"Authorization": "Bearer the-token"}
                          ).status_code == 200
    assert statuses[:20] == [401] * 20
    # the budget refills at 20 a minute, one refusal every 3 s: a slow (busy) machine may
    # earn a few more real answers during the loop, never more than that
    refilled = statuses[20:].count(401)
    assert set(statuses[20:]) <= {401, 429}
    assert refilled <= int(elapsed * 20 / 60) + 1
    # the first refusal of each status, then at shutdown the count of the rest of each
    lines = [(line["outcome"], line["count"]) for line in _audit(home)]
    assert lines == [("401", 1), ("429", 1), ("401", 19 + refilled), ("429", 179 - refilled)]
    assert (home / "audit.jsonl").stat().st_size < 4_000


def test_control_characters_cannot_forge_a_line_or_reach_the_terminal(
        tmp_path: Path, recall) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    service = _service(home, api_token="the-token")
    forged = ('/v1/sessions/x%0a2026-12-01 00:00  default  admin  DELETE everything  -  204'
              '%1b[2J%e2%80%ae')
    with TestClient(create_app(service.settings, service), base_url=LOCAL) as client:
        assert client.get(forged).status_code == 401
    raw = (home / "audit.jsonl").read_text()
    assert len(raw.splitlines()) == 1 and "\x1b" not in raw and "\u202e" not in raw
    assert "\\x0a2026-12-01" in raw and "\\x1b[2J" in raw and "\\u202e" in raw
    # a line written by hand (or an older recall) is escaped when shown
    with (home / "audit.jsonl").open("a") as log:
        log.write(json.dumps({"time": 1.0, "tenant": "t\x1b[31m", "token": "x\ny",
                              "action": "GET /", "targets": [], "outcome": "401"}) + "\n")
    shown = recall("audit")  # its home is tmp_path / "home" too
    assert "\x1b" not in shown.stdout and "\u202e" not in shown.stdout
    assert len(shown.stdout.splitlines()) == 2
    assert "\\x1b[31m" in shown.stdout and "x\\x0ay" in shown.stdout


# --- 4. the health probe, token names, the data directory's permissions

def test_health_details_need_a_token_even_when_tokens_live_only_in_the_store(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    _service(home).index([EXAMPLES])
    with TokenStore(DataDir(home)) as store:
        token = store.create("probe", "default", "read")[1]
        other = store.create("other", "team-b", "admin")[1]
    proc, base = serve(home)
    try:
        bare = httpx.get(f"{base}/healthz")
        assert (bare.status_code, bare.json()) == (200, {"status": "ok"})
        assert str(home) not in bare.text
        assert set(httpx.get(f"{base}/healthz", headers={"Authorization": f"Bearer {other}"}
                             ).json()) == {"status"}  # another tenant's token: not our counts
        full = httpx.get(f"{base}/healthz", headers={"Authorization": f"Bearer {token}"}).json()
        assert full["sessions"] == 14 and full["generation"]
        schema = httpx.get(f"{base}/schema/openapi.json",
                           headers={"Authorization": f"Bearer {token}"}).json()
        assert schema["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "(auth on" in err


@pytest.mark.parametrize("name", ["RECALL_API_TOKEN", "recall_api_token", "local", "a\nb",
                                  "x" * 65, "-lead", "has space", "tab\tname", "é"])
def test_token_names_are_checked_and_reserved(recall, name: str) -> None:  # type: ignore[no-untyped-def]
    made = recall("tokens", "create", "--scope", "read", "--name", name, ok=False)
    assert made.returncode == 1
    assert "reserved" in made.stderr or "is not allowed" in made.stderr


def test_the_data_directory_is_its_owners_alone(recall, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    recall("index", EXAMPLES)
    recall("tokens", "create", "--scope", "read")
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    for path in (home / "tokens.sqlite3", home / "state.sqlite3", home / "audit.jsonl",
                 next(home.glob("archive/sessions/*/*.json"))):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert recall("check").returncode == 0
    home.chmod(0o755)
    (home / "tokens.sqlite3").chmod(0o644)
    found = recall("check", "--json", ok=False)
    assert found.returncode == 1
    kinds = {d["kind"] for d in json.loads(found.stdout)["differences"]}
    assert kinds == {"permissions"}
    recall("check", "--repair")
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "tokens.sqlite3").stat().st_mode) == 0o600
    assert recall("check").returncode == 0
