"""A purge on object storage reaches a replica without an error (indexer/remote/replicas.py: the
writer deletes the previous publish's objects once the replica checked in on the new one), the
replica drops its own copies of the purged text as it switches, and `recall serve` stopped with
SIGTERM releases its writer lease and withdraws a replica's check-in. Against a real S3 server,
Ceph's radosgw (tests/s3.py); the replica is `recall serve --from` in a process of its own."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from api.cli import main
from indexer.remote.objects import ObjectStore, S3Config
from indexer.remote.replicas import REPLICAS, CheckIn, wait_for_replicas

from .helpers import EXAMPLES, serve
from .s3 import S3Server

pytestmark = pytest.mark.xdist_group("s3")

MARKER = "Quixotrombone"  # one made-up word: only the purged session holds it
GONE = "purge-me-session"


@pytest.fixture
def store_env(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch,
              tmp_path: Path) -> dict[str, str]:
    """A writer that publishes to a fresh bucket, in this process (`main`)."""
    env = {"RECALL_STORE": f"s3://{s3_server.new_bucket('purge')}/team",
           "RECALL_S3_ENDPOINT": s3_server.endpoint, "RECALL_S3_REGION": s3_server.region,
           "RECALL_S3_ACCESS_KEY": s3_server.access_key,
           "RECALL_S3_SECRET_KEY": s3_server.secret_key, "RECALL_EMBEDDER": "hash"}
    for name, value in {**env, "RECALL_HOME": str(tmp_path / "writer")}.items():
        monkeypatch.setenv(name, value)
    return env


@pytest.fixture
def store(store_env: dict[str, str]) -> ObjectStore:
    keys = [store_env[k] for k in ("RECALL_S3_ENDPOINT", "RECALL_S3_REGION",
                                   "RECALL_S3_ACCESS_KEY", "RECALL_S3_SECRET_KEY")]
    return ObjectStore(S3Config(store_env["RECALL_STORE"], *keys))


@pytest.fixture
def replica(tmp_path: Path, store_env: dict[str, str]) -> Iterator[str]:
    """`recall serve --from` after the writer indexed EXAMPLES and the session to purge."""
    inbox = tmp_path / "in"
    inbox.mkdir()
    (inbox / f"{GONE}.json").write_text(json.dumps({
        "session_id": GONE, "date": "2026-03-29", "channel": "cli", "participants": ["ann"],
        "messages": [{"id": "m1", "role": "user", "content": f"remember the {MARKER} plan"},
                     {"id": "m2", "role": "assistant",
                      "content": f"noted: the {MARKER} plan ships on Friday"}]}))
    assert main(["index", str(EXAMPLES), str(inbox)]) == 0
    env = {k: v for k, v in store_env.items() if k != "RECALL_STORE"}
    proc, base = serve(tmp_path / "replica", "--from", store_env["RECALL_STORE"], env=env)
    try:
        yield base
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def _search_every_20_ms(base: str, stop: threading.Event,
                        answers: list[tuple[int, str]]) -> None:
    queries = [MARKER, "vacation planning in Japan", "升级", "ERR_CONNECTION_REFUSED"]
    with httpx.Client(timeout=30) as client:
        while not stop.is_set():
            reply = client.get(f"{base}/v1/search", params={"q": queries[len(answers) % 4]})
            answers.append((reply.status_code, "" if reply.is_success else reply.text))
            stop.wait(0.02)


def _files_with(root: Path, needles: tuple[str, ...]) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and not p.is_symlink()
                  and any(n.encode() in p.read_bytes() for n in needles))


def _objects_with(store: ObjectStore, needles: tuple[str, ...]) -> list[str]:
    return sorted(key for key, _ in store.list("") if any(
        n.encode() in (store.get(key) or (b"", ""))[0] for n in needles))


def _wait_for(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_replica_searched_every_20_ms_through_a_purge_answers_every_search(
        tmp_path: Path, replica: str, store: ObjectStore) -> None:
    needles = (MARKER, GONE)
    assert _files_with(tmp_path / "replica", needles), "the replica holds the text before"
    _wait_for(lambda: bool(list(store.list("replicas/"))), "the replica checks in")
    answers: list[tuple[int, str]] = []
    stop = threading.Event()
    searcher = threading.Thread(target=_search_every_20_ms, args=(replica, stop, answers))
    searcher.start()
    try:
        assert main(["delete", GONE, "--purge"]) == 0
        # the purge deleted the previous publish's objects only once the replica had switched
        writer_gen = (tmp_path / "writer" / "index" / "CURRENT").read_text()
        assert (tmp_path / "replica" / "index" / "CURRENT").read_text() == writer_gen
        time.sleep(1)  # and searches go on after it
    finally:
        stop.set()
        searcher.join()
    assert len(answers) > 20
    assert [a for a in answers if a[0] != 200] == []
    assert _files_with(tmp_path / "replica", needles) == []
    assert _objects_with(store, needles) == [], "nor the change lists, which named the session"
    found = httpx.get(f"{replica}/v1/search", params={"q": MARKER}, timeout=30).json()
    assert found["results"] == []


def test_sigterm_releases_the_writer_lease_and_withdraws_the_replica_check_in(
        tmp_path: Path, store_env: dict[str, str], store: ObjectStore) -> None:
    assert main(["index", str(EXAMPLES)]) == 0
    env = {k: v for k, v in store_env.items() if k != "RECALL_STORE"}
    follower, _ = serve(tmp_path / "replica", "--from", store_env["RECALL_STORE"], env=env)
    writer, _ = serve(tmp_path / "writer", env=store_env)  # publishes: holds the lease
    try:
        _wait_for(lambda: bool(list(store.list("replicas/"))), "the replica checks in")
        lease = json.loads((store.get("lease.json") or (b"{}", ""))[0])
        assert lease["pid"] == writer.pid and lease["expires"] > time.time()
    finally:
        for proc in (writer, follower):
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=60)
    assert writer.returncode == follower.returncode == 128 + signal.SIGTERM
    lease = json.loads((store.get("lease.json") or (b"{}", ""))[0])
    assert lease["expires"] == 0, "released: the next writer need not wait for it to expire"
    assert list(store.list("replicas/")) == [], "a purge need not wait for a stopped replica"


def test_a_replica_whose_keys_may_only_read_follows_and_says_it_cannot_check_in(
        tmp_path: Path, store_env: dict[str, str], store: ObjectStore,
        s3_server: S3Server) -> None:
    s3_server.client().put_bucket_policy(Bucket=store.bucket, Policy=json.dumps({
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Deny", "Principal": "*", "Action": "s3:PutObject",
            "Resource": f"arn:aws:s3:::{store.bucket}/{store.prefix}/{REPLICAS}*"}]}))
    assert main(["index", str(EXAMPLES)]) == 0
    env = {k: v for k, v in store_env.items() if k != "RECALL_STORE"}
    with (tmp_path / "replica.log").open("w") as log:
        proc, base = serve(tmp_path / "replica", "--from", store_env["RECALL_STORE"], env=env,
                           log=log)
        try:
            found = httpx.get(f"{base}/v1/search", params={"q": "升级"}, timeout=30)
            assert found.status_code == 200 and found.json()["results"]
            assert main(["delete", "--purge"]) == 0  # no check-in to wait for
            writer_gen = (tmp_path / "writer" / "index" / "CURRENT").read_text()
            _wait_for(lambda: (tmp_path / "replica" / "index" / "CURRENT").read_text()
                      == writer_gen, "the replica follows the purge")
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    assert "cannot check in at s3://" in (tmp_path / "replica.log").read_text()
    assert list(store.list(REPLICAS)) == []


def test_a_purge_waits_for_live_check_ins_only_and_at_most_its_bound(store: ObjectStore) -> None:
    CheckIn(store, "moved").report(7)
    CheckIn(store, "stuck").report(6)
    CheckIn(store, "gone", seconds=-1).report(3)  # expired: a replica killed long ago
    moved, behind = wait_for_replicas(store, 7, bound=0.3, renew=lambda: None)
    assert (moved, behind) == (1, ["stuck"])
    assert sorted(key for key, _ in store.list(REPLICAS)) == [
        "replicas/moved.json", "replicas/stuck.json"], "the expired check-in is deleted"
    CheckIn(store, "stuck").report(7)
    assert wait_for_replicas(store, 7, bound=60, renew=lambda: None) == (2, [])
    withdrawn = CheckIn(store, "moved")
    withdrawn.report(8)
    withdrawn.withdraw()
    assert store.get("replicas/moved.json") is None
