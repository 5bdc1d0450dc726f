"""Ingest and reindex on a real Ray cluster of two nodes on this machine (Ray's own
cluster_utils.Cluster: each node its own raylet and object store, one CPU each): `recall index
--ray ADDRESS` and `recall reindex --ray ADDRESS` write what the single-process path writes, and
a whole node removed mid-run costs nothing but time.

The cluster is started once for the module (~15 s); the module shares the "ray" xdist group with
test_ray.py, as a process can join one Ray instance at a time."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
from ray.cluster_utils import Cluster

from indexer.distributed.parity import differences
from indexer.distributed.ray_compute import RayComputer, RaySpec
from indexer.ingest.progress import silent_progress

from .ray_parity import INPUTS, service_at, top_sessions

pytestmark = [
    pytest.mark.xdist_group("ray"),
    # Ray forks its node processes from this one, where Lance is loaded; they run Ray's code
    # at once and never touch Lance's state
    pytest.mark.filterwarnings("ignore:lance is not fork-safe"),
]

# a lost node is noticed in about 2 s, not Ray's default 15 s or more
FAST_NODE_FAILURE = {"health_check_period_ms": 500, "health_check_failure_threshold": 4}


@pytest.fixture(scope="module")
def two_nodes() -> Iterator[Cluster]:
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "include_dashboard": False, "_system_config": FAST_NODE_FAILURE})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        cluster.shutdown()


def recall(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a process of its own: a driver joining the cluster at its address."""
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_EMBEDDER": "hash",
           "RECALL_BATCH_SESSIONS": "3"}
    done = subprocess.run([sys.executable, "-m", "api.cli", "-v", *args], env=env, text=True,
                          capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_recall_index_and_reindex_on_two_nodes_write_what_one_process_writes(
        tmp_path: Path, two_nodes: Cluster) -> None:
    local = service_at(tmp_path / "local")
    local.index(INPUTS)
    home = tmp_path / "cluster"
    ran = recall(home, "index", *map(str, INPUTS), "--ray", two_nodes.address)
    assert "Ray: 2 workers (CPU)" in ran.stderr  # one on each node's one CPU
    assert ran.stdout.splitlines()[-1].startswith("indexed 21 sessions")
    distributed = service_at(home)
    assert differences(local.data, distributed.data) == []
    assert top_sessions(distributed) == top_sessions(local)
    assert any(top_sessions(local)), "the queries find something"

    local.maintenance.reindex()
    ran = recall(home, "reindex", "--ray", two_nodes.address)
    assert "Ray: 2 workers (CPU)" in ran.stderr
    distributed = service_at(home)
    assert differences(local.data, distributed.data) == []
    assert top_sessions(distributed) == top_sessions(local)
    assert distributed.maintenance.check().ok


def test_a_node_removed_mid_run_loses_nothing(tmp_path: Path, two_nodes: Cluster,
                                              caplog: pytest.LogCaptureFixture) -> None:
    removed = []
    with RayComputer(RaySpec(address=two_nodes.address, embedder="hash")) as computer:
        driver_node = ray.get_runtime_context().get_node_id()
        workers_on = computer.worker_nodes()
        assert len(set(workers_on)) == 2  # a worker on each node
        # the node to lose: one holding a worker, not the head (it holds the cluster's state)
        # nor the one this driver is attached to
        victim = next(node for node in two_nodes.worker_nodes
                      if node.node_id in workers_on and node.node_id != driver_node)

        class RemoveNodeAtFirstShard:
            """Progress that removes the node when the first shard comes back: the node's
            raylet, object store and worker killed, with shards in flight on it."""

            def __call__(self, total: int, desc: str, unit: str = "file"
                         ) -> RemoveNodeAtFirstShard:
                return self

            def update(self, n: int = 1) -> None:
                if not removed:
                    two_nodes.remove_node(victim, allow_graceful=False)
                    removed.append(victim.node_id)

            def note(self, text: str) -> None:
                pass

            def close(self) -> None:
                pass

        computer.progress = RemoveNodeAtFirstShard()
        service = service_at(tmp_path / "cluster", batch_sessions=1)
        try:
            with caplog.at_level(logging.INFO, logger="indexer.distributed"):
                report = service.index(INPUTS, computer=computer)
        finally:
            computer.progress = silent_progress
            two_nodes.add_node(num_cpus=1)  # two nodes again for the other tests
    assert removed and report.indexed == 21
    lost = [r.getMessage() for r in caplog.records if "sent again" in r.getMessage()]
    assert lost, "shards held on the removed node were sent again"
    local = service_at(tmp_path / "local", batch_sessions=1)
    local.index(INPUTS)
    assert differences(local.data, service.data) == []
    assert top_sessions(service) == top_sessions(local)
    assert service.maintenance.check().ok
