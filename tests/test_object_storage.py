"""Object storage (indexer/remote/, docs/scale-out.md) against a real S3 server, Ceph's radosgw
(tests/s3.py): a writer publishes to a bucket; `recall serve --from` in another process, with
its own data directory, follows it (vectors read in place), sees new writes, goes through a
reindex without an error or a mixed answer, and refuses writes; one writer holds the lease;
delete and purge leave no object holding the deleted text; `audit-secrets --apply` publishes the
re-redacted copy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from api import Settings
from api.cli import main
from api.service.remote import Publishing
from indexer.remote.lease import WriterLease
from indexer.remote.objects import ObjectStore, S3Config
from indexer.stores.audit import AuditLog
from indexer.stores.layout import DataDir
from models import WriterBusy

from .helpers import EXAMPLES, SESSIONS, camel_keys, serve
from .s3 import S3Server

pytestmark = pytest.mark.xdist_group("s3")

MARKER = "Quixotrombone"  # one made-up word: nothing else in the archive holds it


@pytest.fixture
def store_env(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Settings of a writer that publishes to a fresh bucket (also set in this process)."""
    env = {"RECALL_STORE": f"s3://{s3_server.new_bucket('recall')}/team",
           "RECALL_S3_ENDPOINT": s3_server.endpoint, "RECALL_S3_REGION": s3_server.region,
           "RECALL_S3_ACCESS_KEY": s3_server.access_key,
           "RECALL_S3_SECRET_KEY": s3_server.secret_key, "RECALL_EMBEDDER": "hash"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


@pytest.fixture
def writer(tmp_path: Path, store_env: dict[str, str],
           monkeypatch: pytest.MonkeyPatch) -> Callable[..., int]:
    """`recall ARGS...` in-process on the writer's data directory."""
    monkeypatch.setenv("RECALL_HOME", str(tmp_path / "writer"))
    return lambda *args: main([str(a) for a in args])


@pytest.fixture
def follower(tmp_path: Path, store_env: dict[str, str],
             writer: Callable[..., int]) -> Iterator[str]:
    """`recall serve --from` as a process of its own, with its own (empty) data directory,
    after the writer indexed EXAMPLES; its base URL."""
    assert writer("index", EXAMPLES) == 0
    env = {k: v for k, v in store_env.items() if k != "RECALL_STORE"}
    env["RECALL_FOLLOW_INTERVAL"] = "0.2"
    proc, base = serve(tmp_path / "follower", "--from", store_env["RECALL_STORE"], env=env)
    try:
        yield base
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def search(base: str, query: str) -> list[str]:
    answer = httpx.get(f"{base}/v1/search", params={"q": query, "limit": 10}, timeout=30)
    assert answer.status_code == 200, answer.text
    return [hit["session_id"] for hit in answer.json()["results"]]


def local_search(query: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert main(["search", query, "--json", "--limit", "10", "--no-server"]) == 0
    return [hit["session_id"] for hit in json.loads(capsys.readouterr().out)["results"]]


def test_a_follower_in_another_process_answers_as_the_writer_and_takes_in_new_writes(
        tmp_path: Path, follower: str, writer: Callable[..., int],
        capsys: pytest.CaptureFixture[str]) -> None:
    for query in ("升级", "ERR_CONNECTION_REFUSED", "vacation planning in Japan"):
        assert search(follower, query) == local_search(query, capsys) != []
    generation = next((tmp_path / "follower" / "index").glob("gen-*"))
    assert not (generation / "vectors").exists(), "vectors are read in place, not copied"
    assert json.loads((generation / "remote.json").read_text())["uri"].startswith("s3://")

    refused = httpx.post(f"{follower}/v1/sessions", json={"session_id": "x"}, timeout=10)
    assert refused.status_code == 409 and "read-only replica" in refused.json()["detail"]

    assert writer("index", SESSIONS) == 0  # publishes at the end
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and search(follower, "PostgreSQL") != local_search(
            "PostgreSQL", capsys):
        time.sleep(0.2)
    assert search(follower, "PostgreSQL") == local_search("PostgreSQL", capsys) != []


def test_a_reindex_switches_the_follower_without_an_error_or_a_mixed_answer(
        tmp_path: Path, follower: str, writer: Callable[..., int],
        capsys: pytest.CaptureFixture[str]) -> None:
    queries = ["升级", "ERR_CONNECTION_REFUSED", "Friday deploys", "vacation planning in Japan"]
    expected = {q: search(follower, q) for q in queries}
    answers: list[tuple[str, int, list[str] | str]] = []
    stop = threading.Event()

    def keep_searching() -> None:
        while not stop.is_set():
            for query in queries:
                reply = httpx.get(f"{follower}/v1/search", params={"q": query, "limit": 10},
                                  timeout=30)
                answers.append((query, reply.status_code, [h["session_id"] for h in
                                reply.json()["results"]] if reply.is_success else reply.text))

    searcher = threading.Thread(target=keep_searching)
    searcher.start()
    try:
        before = (tmp_path / "writer" / "index" / "CURRENT").read_text()
        assert writer("reindex") == 0
        after = (tmp_path / "writer" / "index" / "CURRENT").read_text()
        assert after != before
        deadline = time.monotonic() + 10
        while (time.monotonic() < deadline and
               (tmp_path / "follower" / "index" / "CURRENT").read_text() != after):
            time.sleep(0.1)
        time.sleep(0.5)  # searches on the new generation too
    finally:
        stop.set()
        searcher.join()
    assert (tmp_path / "follower" / "index" / "CURRENT").read_text() == after
    assert len(answers) > 10
    assert [a for a in answers if a[1] != 200] == []
    assert [a for a in answers if a[2] != expected[a[0]]] == []


def test_one_writer_holds_the_lease(store_env: dict[str, str], s3_server: S3Server) -> None:
    store = ObjectStore(S3Config(store_env["RECALL_STORE"], s3_server.endpoint,
                                 s3_server.region, s3_server.access_key, s3_server.secret_key))
    first, second = WriterLease(store, "writer-a", 30), WriterLease(store, "writer-b", 30)
    first.hold()
    first.hold()  # renewing
    with pytest.raises(WriterBusy, match="another writer holds this bucket prefix"):
        second.hold()
    first.release()
    second.hold()  # released: the next writer need not wait
    expired = WriterLease(store, "writer-c", 0.5)
    with pytest.raises(WriterBusy):
        expired.hold()
    second.seconds = 0.5
    second.hold()
    time.sleep(1)
    expired.hold()  # taken over after it expired
    with pytest.raises(WriterBusy):
        second.hold()


def _objects_with(s3_server: S3Server, bucket: str, needle: str) -> list[str]:
    client = s3_server.client()
    found = []
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for item in page.get("Contents", []):
            body = client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
            if needle.lower().encode() in body.lower():
                found.append(item["Key"])
    return found


def test_delete_and_purge_leave_no_object_holding_the_deleted_text(
        tmp_path: Path, writer: Callable[..., int], store_env: dict[str, str],
        s3_server: S3Server) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for sid, words in [("gone-session", MARKER), ("kept-1", "harbour"), ("kept-2", "lantern")]:
        (folder / f"{sid}.json").write_text(json.dumps({
            "session_id": sid, "date": "2026-03-29", "channel": "cli", "participants": ["ann"],
            "messages": [{"id": "m1", "role": "user", "content": f"remember the {words} plan"},
                         {"id": "m2", "role": "assistant",
                          "content": f"noted: the {words} plan ships on Friday"}]}))
    assert writer("index", folder) == 0
    bucket = store_env["RECALL_STORE"].split("/")[2]
    assert _objects_with(s3_server, bucket, MARKER), "published: the text is in the bucket"
    assert writer("delete", "gone-session") == 0
    left = _objects_with(s3_server, bucket, MARKER)
    assert left and not [k for k in left if k.startswith("team/archive/")], \
        "a delete removes the archive object at once; index files wait for the purge"
    assert writer("delete", "--purge") == 0
    assert _objects_with(s3_server, bucket, MARKER) == []
    assert _objects_with(s3_server, bucket, "harbour"), "the rest is still published"


def test_settings_never_show_the_keys(store_env: dict[str, str],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["settings"]) == 0
    shown = capsys.readouterr().out
    assert "RECALL_STORE" in shown and store_env["RECALL_S3_SECRET_KEY"] not in shown
    assert store_env["RECALL_S3_ACCESS_KEY"] not in shown
    assert "secret" not in repr(S3Config("s3://b/p", secret_key="secret"))


def test_a_follower_without_a_publish_says_so(tmp_path: Path, store_env: dict[str, str]) -> None:
    env = {**os.environ, "RECALL_HOME": str(tmp_path / "f")}
    del env["RECALL_STORE"]
    done = subprocess.run([sys.executable, "-m", "api.cli", "serve", "--from",
                           store_env["RECALL_STORE"]], env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 1
    assert "nothing is published at s3://" in done.stderr


def test_a_replica_offers_the_reading_mcp_tools_only(tmp_path: Path) -> None:
    from api.mcp.server import build_mcp

    from .helpers import make_service

    service = make_service(tmp_path / "home")
    every = {tool.name for tool in build_mcp(service)._tool_manager.list_tools()}
    service.replica_of = "s3://bucket/prefix"
    offered = build_mcp(service)._tool_manager.list_tools()
    assert {"search_archive", "get_session", "recover_session"} <= {t.name for t in offered}
    assert {"delete_session", "archive_session", "append_messages", "add_todo"} <= every
    assert all(t.annotations and t.annotations.read_only_hint for t in offered)
    assert len(offered) < len(every)


def _tenant_session(folder: Path, session_id: str, word: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session_id}.json").write_text(json.dumps({
        "sessionId": session_id, "date": "2026-06-01",
        "messages": [{"role": "user", "content": f"The {word} survey is due Friday."}]}))
    return folder


def test_each_tenant_is_published_and_followed_apart(
        tmp_path: Path, store_env: dict[str, str], writer: Callable[..., int],
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert writer("index", EXAMPLES) == 0  # the default tenant's
    monkeypatch.setenv("RECALL_TENANT", "beta")
    assert writer("index", _tenant_session(tmp_path / "beta-1", "beta-1", MARKER)) == 0
    monkeypatch.delenv("RECALL_TENANT")
    capsys.readouterr()
    # a token change publishes at once (the tokens database goes with the default tenant's)
    assert writer("tokens", "create", "--tenant", "beta", "--scope", "read", "--name",
                  "beta-reader") == 0
    beta = {"Authorization": f"Bearer {capsys.readouterr().out.strip()}"}
    keys = [store_env[k] for k in ("RECALL_S3_ENDPOINT", "RECALL_S3_REGION",
                                   "RECALL_S3_ACCESS_KEY", "RECALL_S3_SECRET_KEY")]
    store = ObjectStore(S3Config(store_env["RECALL_STORE"], *keys))
    assert store.folders("tenants/") == ("beta",)

    env = {k: v for k, v in store_env.items() if k != "RECALL_STORE"}
    env |= {"RECALL_FOLLOW_INTERVAL": "0.2", "RECALL_API_TOKEN": "default-admin"}
    proc, base = serve(tmp_path / "follower", "--from", store_env["RECALL_STORE"], env=env)
    default = {"Authorization": "Bearer default-admin"}

    def found(query: str, auth: dict[str, str]) -> list[str]:
        answer = httpx.get(f"{base}/v1/search", params={"q": query}, headers=auth, timeout=30)
        assert answer.status_code == 200, answer.text
        return [hit["session_id"] for hit in answer.json()["results"]]

    try:
        assert found(MARKER, beta) == ["beta-1"]
        assert found(MARKER, default) == [] and found("升级", default) != []
        assert found("升级", beta) == []
        monkeypatch.setenv("RECALL_TENANT", "beta")
        assert writer("index", _tenant_session(tmp_path / "beta-2", "beta-2", MARKER)) == 0
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "beta-2" not in found(MARKER, beta):
            time.sleep(0.2)
        assert sorted(found(MARKER, beta)) == ["beta-1", "beta-2"]
        monkeypatch.delenv("RECALL_TENANT")
        assert writer("tokens", "revoke", "beta-reader") == 0  # refused on the replica too
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and httpx.get(
                f"{base}/v1/stats", headers=beta, timeout=30).status_code != 401:
            time.sleep(0.2)
        assert httpx.get(f"{base}/v1/stats", headers=beta, timeout=30).status_code == 401
    finally:
        proc.terminate()
        proc.communicate(timeout=30)

    # a server's own loop (`recall serve` with RECALL_STORE) publishes every tenant it finds;
    # one whose prefix another writer holds does not stop the others
    monkeypatch.delenv("RECALL_STORE")
    for tenant in ("delta", "gamma"):
        monkeypatch.setenv("RECALL_TENANT", tenant)
        assert writer("index", _tenant_session(tmp_path / tenant, f"{tenant}-1", MARKER)) == 0
    assert store.folders("tenants/") == ("beta",)
    monkeypatch.delenv("RECALL_TENANT")
    WriterLease(ObjectStore(S3Config(f"{store_env['RECALL_STORE']}/tenants/delta", *keys)),
                "another-writer", 60).hold()
    publishing = Publishing(DataDir(tmp_path / "writer"), Settings.from_env(
        {**store_env, "RECALL_HOME": str(tmp_path / "writer")}))
    publishing.step()
    publishing.stop()
    assert store.folders("tenants/") == ("beta", "delta", "gamma")  # delta: the lease only
    assert store.get("tenants/gamma/CURRENT.json") is not None
    assert store.get("tenants/delta/CURRENT.json") is None


def test_audit_secrets_apply_publishes_the_redacted_copy_and_is_audited(
        tmp_path: Path, writer: Callable[..., int], store_env: dict[str, str],
        s3_server: S3Server, capsys: pytest.CaptureFixture[str]) -> None:
    """A secret older rules let through, already published: a dry run publishes nothing and
    writes no audit line; --apply re-redacts it, publishes (so a replica stops serving the
    unredacted copy) and writes its audit line."""
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    assert writer("index", EXAMPLES) == 0
    home = DataDir(tmp_path / "writer")
    stored = next(home.root.glob("archive/sessions/*/*.json"))
    record = json.loads(stored.read_text())
    record["messages"][0]["content"] += f" token {secret}"
    stored.write_text(json.dumps(record))
    capsys.readouterr()
    assert writer("publish", "--json") == 0
    published = json.loads(capsys.readouterr().out)  # snake_case, as every answer (test_interfaces)
    assert published and camel_keys(published) == []
    bucket = store_env["RECALL_STORE"].split("/")[2]
    assert _objects_with(s3_server, bucket, secret), "published: the secret is in the bucket"

    assert writer("audit-secrets") == 0  # a dry run: nothing written, published or audited
    assert "published" not in capsys.readouterr().err
    assert _objects_with(s3_server, bucket, secret)
    assert not [e for e in AuditLog(home).entries() if e.action == "cli audit-secrets"]

    assert writer("audit-secrets", "--apply") == 0
    assert "recall: published #" in capsys.readouterr().err
    assert secret not in stored.read_text()
    assert _objects_with(s3_server, bucket, secret) == []
    assert _objects_with(s3_server, bucket, "[REDACTED:github_token]"), \
        "the redacted copy is published"
    assert [e.outcome for e in AuditLog(home).entries() if e.action == "cli audit-secrets"] == [
        "ok"]
