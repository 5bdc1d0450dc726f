"""Computing ingest batches on a Ray cluster: an actor pool of workers holding the model.

The writer (this process, the driver) reads and prepares the sessions, sends each batch (a
shard) to a worker, and commits the results in order, exactly as when it computes them itself
(indexer/ingest/write.py): crash safety, generations and `recall check` do not depend on where
a batch was computed. Workers only compute (indexer/ingest/compute.py): extract memories,
analyse keyword text, embed; they read and write nothing of the data directory.

A worker lost mid-run, its process killed or its whole node gone, costs only time: the shards it
held go to the workers left and a replacement worker is started where the cluster has room
(shard_pool.py); a driver killed mid-run leaves what a crashed single-process writer leaves,
which the next run finishes or discards.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from indexer.distributed.shard_pool import ShardPool
from indexer.ingest.compute import Batches, ComputedBatch, compute_batch
from indexer.ingest.prepare import Prepared
from indexer.ingest.progress import Progress, ProgressFactory, silent_progress
from indexer.stores.layout import DataDir
from indexer.stores.relevance import pruned_ids
from models import InvalidInput, Session

__all__ = ["RayComputer", "RaySpec"]

log = logging.getLogger(__name__)

# Batches sent ahead to each worker: one computing, one waiting, so a worker never idles while
# the driver commits; more would only hold more sessions in memory.
IN_FLIGHT_PER_WORKER = 2
CONNECT_TIMEOUT = 5.0  # seconds to reach a cluster's head node
# Replacement workers a run may start, per worker it began with, before it goes on without.
WORKER_RESTARTS = 3


@dataclass(frozen=True)
class RaySpec:
    """Where to compute: address None starts a local Ray instance of `workers` processes;
    otherwise the cluster at that address (`ray start --head` prints it), `workers` actors
    (default: one per CPU, or per GPU when it has GPUs)."""

    address: str | None = None
    workers: int | None = None
    threads: int = 1  # encoder threads in each worker
    embedder: str = "e5"
    model_cache: Path | None = None


class _Worker:
    """One Ray actor: loads the embedder once, then computes the shards it is sent."""

    def __init__(self, embedder: str, model_cache: Path | None, threads: int) -> None:
        from indexer.embedding.embedders import load_embedder

        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # workers never reach a model hub
        self.embedder = load_embedder(embedder, model_cache, threads)

    def pid(self) -> int:
        return os.getpid()

    def node_id(self) -> str:
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def compute(self, sessions: list[Session], pruned: set[str]) -> ComputedBatch:
        return compute_batch(sessions, self.embedder, pruned)


class RayComputer:
    """A BatchComputer whose batches are computed by Ray workers, several at once."""

    def __init__(self, spec: RaySpec, progress: ProgressFactory = silent_progress) -> None:
        self.spec = spec
        self.progress = progress
        self._connected = False
        self.actors: list[Any] = []
        self._worker_class: Any = None

    def __enter__(self) -> Self:
        import ray

        # Ray forks to start its processes, and Lance (loaded here) warns in every such child;
        # they run Ray's own code at once and never touch Lance's state
        warnings.filterwarnings("ignore", message="lance is not fork-safe")
        if self.spec.address is None:
            # "local": a new instance even when a cluster runs on this machine (ray.init()
            # alone would join the one `ray start --head` or a test cluster last started)
            ray.init(address="local", num_cpus=self.spec.workers or os.cpu_count(),
                     include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            _check_reachable(self.spec.address)
            try:
                ray.init(address=self.spec.address, log_to_driver=False, configure_logging=False)
            except ConnectionError as exc:
                raise InvalidInput(f"cannot reach the Ray cluster at {self.spec.address}: "
                                   f"{exc}") from None
        self._connected = True
        try:
            self.actors = self._start_workers(ray)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        import ray

        for actor in self.actors:
            ray.kill(actor)
        self.actors = []
        if self._connected:  # stops a local instance; leaves a cluster, which runs on
            ray.shutdown()
            self._connected = False

    def _start_workers(self, ray: Any) -> list[Any]:
        resources = ray.cluster_resources()
        gpus = int(resources.get("GPU", 0))
        count = self.spec.workers or gpus or int(resources.get("CPU", 1))
        # no restarts by Ray: the pool sends a lost worker's shards to the others and asks for
        # a replacement itself (a restart waits for room that a lost node took with it)
        self._worker_class = ray.remote(max_restarts=0, max_task_retries=0,
                                        num_cpus=self.spec.threads if not gpus else 0,
                                        num_gpus=1 if gpus else 0)(_Worker)
        actors = [self._new_worker() for _ in range(count)]
        ray.get([actor.pid.remote() for actor in actors])  # each loaded its model
        log.info("Ray: %d workers (%s), %d thread(s) each", count,
                 f"{gpus} GPUs" if gpus else "CPU", self.spec.threads)
        return actors

    def _new_worker(self) -> Any:
        return self._worker_class.remote(self.spec.embedder, self.spec.model_cache,
                                         self.spec.threads)

    def worker_pids(self) -> list[int]:
        import ray

        return list(ray.get([actor.pid.remote() for actor in self.actors]))

    def worker_nodes(self) -> list[str]:
        """The Ray node id each worker runs on."""
        import ray

        return list(ray.get([actor.node_id.remote() for actor in self.actors]))

    def compute(self, data: DataDir,
                batches: Batches) -> Iterator[tuple[Sequence[Prepared], ComputedBatch]]:
        """Send batches to the workers as they free up; hand results back in order."""
        if not self.actors:
            raise RuntimeError("RayComputer used outside its `with` block")
        import ray

        pool: ShardPool[Sequence[Prepared], tuple[list[Session], set[str]]] = ShardPool(
            ray, self.actors, self._new_worker,
            lambda actor, shard: actor.compute.remote(*shard),
            IN_FLIGHT_PER_WORKER, WORKER_RESTARTS)
        shards = ((batch, ([p.session for p in batch],
                           pruned_ids(data, [p.session.session_id for p in batch])))
                  for batch in batches)
        rate = _Rate(self.progress(0, "computing on Ray", "shard"))
        try:
            for batch, computed in pool.results(shards):
                yield rate.done(batch, computed)
        finally:
            self.actors = pool.actors  # replacements included, for __exit__ to stop
        rate.close(pool.lost)


def _check_reachable(address: str) -> None:
    """Fail at once on an address nobody answers at: Ray itself retries for minutes."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # "auto" and other forms Ray resolves itself
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise InvalidInput(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}. "
                           "Give the head node's address (`ray start --head` prints it), or "
                           "--ray alone for a local instance.") from None


class _Rate:
    """Shards done and messages per second across the cluster, on the progress bar."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.started = time.monotonic()
        self.shards = 0
        self.messages = 0

    def done(self, batch: Sequence[Prepared],
             computed: ComputedBatch) -> tuple[Sequence[Prepared], ComputedBatch]:
        self.shards += 1
        self.messages += sum(len(p.session.messages) for p in batch)
        self.bar.update(1)
        self.bar.note(f"{self.messages / max(time.monotonic() - self.started, 1e-9):.0f} "
                      "messages/s")
        return batch, computed

    def close(self, lost: int) -> None:
        self.bar.close()
        log.info("Ray: %d shards, %d messages in %.1f s%s", self.shards, self.messages,
                 time.monotonic() - self.started,
                 f", {lost} sent again after a worker was lost" if lost else "")
