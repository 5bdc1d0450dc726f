"""Ingest and reindex computed on a local Ray cluster (indexer/distributed/): the same stores
and searches as the single-process path, pruned memories kept out, a killed worker restarted
with nothing lost, a killed driver leaving the old generation live, and the CLI options.

One local Ray instance of two workers (started once, ~13 s) serves the module; the tests run
on one xdist worker, as a process can join one Ray instance only."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from api import RecallService
from indexer.distributed.parity import differences
from indexer.distributed.ray_compute import RayComputer, RaySpec
from indexer.ingest.progress import silent_progress
from indexer.stores.memories import MemoryStore

from .helpers import EXAMPLES, agreement, free_port
from .ray_parity import INPUTS, service_at, top_sessions

pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayComputer]:
    with RayComputer(RaySpec(workers=2, embedder="hash")) as computer:
        yield computer


def test_a_ray_index_and_reindex_write_what_the_single_process_path_writes(
        tmp_path: Path, cluster: RayComputer) -> None:
    local, distributed = service_at(tmp_path / "local"), service_at(tmp_path / "ray")
    local.index(INPUTS)
    report = distributed.index(INPUTS, computer=cluster)
    assert report.indexed == 21 and not report.rejected
    assert differences(local.data, distributed.data) == []
    assert top_sessions(distributed) == top_sessions(local)
    assert any(top_sessions(local)), "the queries find something"

    local.maintenance.reindex()
    assert distributed.maintenance.reindex(cluster).indexed == 21
    assert differences(local.data, distributed.data) == []
    assert top_sessions(distributed) == top_sessions(local)
    agreement(distributed)
    assert distributed.maintenance.check().ok


def test_a_ray_reindex_leaves_pruned_memories_out(tmp_path: Path, cluster: RayComputer) -> None:
    service = service_at(tmp_path / "home")
    service.index(INPUTS, computer=cluster)
    session_id, memory = next((sid, memories[0]) for sid in sorted(_session_ids(service))
                              if (memories := MemoryStore(service.data).load(sid)))
    service.ingestor().prune_memories({memory.id: 0.01}, time.time())
    service.maintenance.reindex(cluster)
    assert memory.id not in {m.id for m in MemoryStore(service.data).load(session_id) or []}
    keys = [doc["key"][0] for doc in
            service.searcher.generation().keyword.memories.every_document()]
    assert keys and not [key for key in keys if memory.id in key]
    assert service.maintenance.check().ok


def test_a_killed_worker_is_restarted_and_the_run_loses_nothing(
        tmp_path: Path, cluster: RayComputer) -> None:
    victim = cluster.worker_pids()[0]
    killed: list[int] = []

    class KillAtFirstShard:
        """Progress that kills a worker when the first shard comes back, others in flight."""

        def __call__(self, total: int, desc: str, unit: str = "file") -> KillAtFirstShard:
            return self

        def update(self, n: int = 1) -> None:
            if not killed:
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        def note(self, text: str) -> None:
            pass

        def close(self) -> None:
            pass

    cluster.progress = KillAtFirstShard()
    try:
        service = service_at(tmp_path / "ray", batch_sessions=1)
        report = service.index(INPUTS, computer=cluster)
    finally:
        cluster.progress = silent_progress
    assert killed and victim not in cluster.worker_pids()
    assert report.indexed == 21
    local = service_at(tmp_path / "local", batch_sessions=1)
    local.index(INPUTS)
    assert differences(local.data, service.data) == []


def _session_ids(service: RecallService) -> set[str]:
    return {p.stem for p in service.data.archive.rglob("*.json")}


def _recall(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_EMBEDDER": "hash"}
    return subprocess.Popen([sys.executable, "-m", "api.cli", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_recall_reindex_with_ray_and_a_killed_driver(tmp_path: Path) -> None:
    """The CLI as a process: `--ray` starts a local Ray instance; a driver killed mid-reindex
    leaves the old generation live and consistent, and the next reindex finishes."""
    home = tmp_path / "home"
    done = _recall(home, "index", str(EXAMPLES), "--ray", "--ray-workers", "1")
    out, err = done.communicate(timeout=240)
    assert done.returncode == 0, err
    assert out.splitlines()[-1].startswith("indexed 14 sessions")  # after each file's line
    live = (home / "index" / "CURRENT").read_text()

    driver = _recall(home, "reindex", "--ray", "--ray-workers", "1")
    deadline = time.monotonic() + 120
    while len(list((home / "index").glob("gen-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # the new generation exists: the build is under way
    driver.send_signal(signal.SIGKILL)
    driver.communicate(timeout=30)
    current = (home / "index" / "CURRENT").read_text()
    assert current == live or current in {p.name for p in (home / "index").glob("gen-*")}
    service = service_at(home)
    assert service.maintenance.check().ok
    assert service.maintenance.reindex().indexed == 14
    assert len(list((home / "index").glob("gen-*"))) <= 2  # the live one and the one before
    assert service.maintenance.check().ok


def test_an_unreachable_cluster_is_named_at_once(recall) -> None:  # type: ignore[no-untyped-def]
    recall("index", EXAMPLES)
    port = free_port()  # nothing listens there
    ran = recall("reindex", "--ray", f"127.0.0.1:{port}", ok=False)
    assert ran.returncode == 1
    assert f"cannot reach the Ray cluster at 127.0.0.1:{port}: Connection refused" in ran.stderr
