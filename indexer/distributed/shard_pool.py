"""Shards on a pool of Ray actors that may lose members: results in order, lost shards sent again.

A worker process killed, or a whole node gone with the actors on it, fails the shards those
actors held with a Ray system error (an ActorDiedError, a lost object), never with an error of
the computation itself. Such a shard goes to an actor still alive, and a replacement actor is
asked for: Ray places it wherever the cluster has room (at once when only a process died; not
until a node joins when the lost node's CPUs went with it). An error raised by the computation
(RayTaskError) fails the run, as it would without Ray.

Ray's own actor restarts are not used for this: an actor whose node is gone restarts only where
there is room for it, and its tasks would wait for that, possibly forever.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

from models import RecallError

__all__ = ["NoWorkersLeft", "ShardPool"]

log = logging.getLogger(__name__)

Tag = TypeVar("Tag")
Args = TypeVar("Args")

# How long a run with no live worker waits for a replacement to start before failing.
REPLACEMENT_WAIT = 300.0  # seconds
ATTEMPTS_PER_SHARD = 4  # a shard lost this many times fails the run


class NoWorkersLeft(RecallError):
    """Every worker was lost and none could be started again: the CLI says so in one line,
    as for any other failed run, not with a traceback."""

    status = 503
    title = "Compute cluster lost"


class ShardPool(Generic[Tag, Args]):
    """Sends (tag, args) shards to actors, `per_actor` in flight on each, and yields
    (tag, result) in the order the shards came."""

    def __init__(self, ray: Any, actors: list[Any], start_actor: Callable[[], Any],
                 call: Callable[[Any, Args], Any], per_actor: int = 2,
                 replacements: int = 3) -> None:
        self._ray = ray
        self._start_actor = start_actor
        self._call = call
        self.live: list[Any] = list(actors)
        self.starting: dict[Any, Any] = {}  # the ready ref of a replacement -> its actor
        self._limit = per_actor * max(len(actors), 1)  # shards sent or held, not yet yielded
        self._per_actor = per_actor
        self._replacements_left = replacements * max(len(actors), 1)
        self.lost = 0  # shards sent again because their worker was lost

    @property
    def actors(self) -> list[Any]:
        """Every actor the pool holds, live or still starting (for the caller to stop)."""
        return self.live + list(self.starting.values())

    def results(self, shards: Iterable[tuple[Tag, Args]]) -> Iterator[tuple[Tag, Any]]:
        source = iter(shards)
        exhausted = False
        queue: deque[tuple[int, Tag, Args]] = deque()  # lost shards, sent again first
        running: dict[Any, tuple[int, Tag, Args, Any]] = {}  # ref -> shard and its actor
        done: dict[int, tuple[Tag, Any]] = {}
        attempts: dict[int, int] = {}
        sent = yielded = 0
        while True:
            while self.live and len(running) + len(done) < self._limit:
                actor = self._least_loaded(running)
                if actor is None:
                    break
                if queue:
                    index, tag, args = queue.popleft()
                elif not exhausted:
                    try:
                        tag, args = next(source)
                    except StopIteration:
                        exhausted = True
                        continue
                    index, sent = sent, sent + 1
                else:
                    break
                attempts[index] = attempts.get(index, 0) + 1
                running[self._call(actor, args)] = (index, tag, args, actor)
            if yielded in done:
                yield done.pop(yielded)
                yielded += 1
                continue
            if exhausted and not queue and not running:
                return
            self._wait(running, done, queue, attempts)

    def _least_loaded(self, running: dict[Any, tuple[int, Tag, Args, Any]]) -> Any | None:
        load = {id(actor): 0 for actor in self.live}
        for *_, actor in running.values():
            if id(actor) in load:
                load[id(actor)] += 1
        actor = min(self.live, key=lambda a: load[id(a)])
        return actor if load[id(actor)] < self._per_actor else None

    def _wait(self, running: dict[Any, tuple[int, Tag, Args, Any]],
              done: dict[int, tuple[Tag, Any]], queue: deque[tuple[int, Tag, Args]],
              attempts: dict[int, int]) -> None:
        """Wait for one shard or replacement; take it in, or send its shard again."""
        ray = self._ray
        waiting = list(running) + list(self.starting)
        if not waiting:
            raise NoWorkersLeft("every Ray worker was lost and none could be started again")
        ready, _ = ray.wait(waiting, num_returns=1,
                            timeout=None if self.live else REPLACEMENT_WAIT)
        if not ready:
            raise NoWorkersLeft(f"every Ray worker was lost, and no replacement started within "
                                f"{REPLACEMENT_WAIT:.0f} s (does the cluster have room?)")
        ref = ready[0]
        if ref in self.starting:
            actor = self.starting.pop(ref)
            try:
                ray.get(ref)
            except ray.exceptions.RayTaskError:
                raise
            except ray.exceptions.RayError as exc:
                log.warning("Ray: a replacement worker failed to start: %s", exc)
                self._replace()
                return
            self.live.append(actor)
            log.info("Ray: a replacement worker joined (%d live)", len(self.live))
            return
        index, tag, args, actor = running.pop(ref)
        try:
            done[index] = (tag, ray.get(ref))
        except ray.exceptions.RayTaskError:
            raise  # the computation failed: it would fail again anywhere
        except ray.exceptions.RayError as exc:
            if attempts[index] >= ATTEMPTS_PER_SHARD:
                raise NoWorkersLeft(f"a shard was lost {attempts[index]} times; last: "
                                    f"{type(exc).__name__}") from exc
            log.warning("Ray: a worker was lost (%s); its shard is sent again",
                        type(exc).__name__)
            self.lost += 1
            queue.append((index, tag, args))
            if actor in self.live:
                self.live.remove(actor)
                ray.kill(actor, no_restart=True)
                self._replace()

    def _replace(self) -> None:
        if self._replacements_left <= 0:
            return
        self._replacements_left -= 1
        actor = self._start_actor()
        self.starting[actor.pid.remote()] = actor
