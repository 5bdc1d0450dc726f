"""Replicas check in under the bucket prefix, so that a purge can wait for them.

Each `recall serve --from` process writes `replicas/<id>.json`: the publish it serves (once no
search can still be reading the one before) and until when to believe it. It rewrites it when
that changes and at a third of its life, and deletes it on a clean stop.

A replica whose keys may only read cannot check in: it says so once, follows all the same, and
is not waited for (it may answer errors for a moment after a purge, as before check-ins).

A purge deletes every object only older publishes needed, the old generation's vector files
among them, which replicas read in place; it therefore first waits (wait_for_replicas) until
every replica with a live check-in serves the purge's publish, at most a bound. A replica that
stopped without a word is waited for until its check-in expires or the bound ends, whichever
comes first; then the purge goes on (no deleted text waits longer than that).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from indexer.remote.objects import ObjectStore
from models import StorageFault

__all__ = ["CHECK_IN_SECONDS", "REPLICAS", "CheckIn", "wait_for_replicas"]

log = logging.getLogger(__name__)

REPLICAS = "replicas/"
CHECK_IN_SECONDS = 60.0  # how long a check-in is believed; replicas renew at a third of it


@dataclass
class CheckIn:
    """One replica's check-in."""

    store: ObjectStore
    replica_id: str
    seconds: float = CHECK_IN_SECONDS
    _tried: tuple[int, float] | None = None  # (seq, time.monotonic()) of the last write tried
    _written: bool = False  # a check-in of this replica is in the bucket
    _warned: bool = False

    @property
    def key(self) -> str:
        return f"{REPLICAS}{self.replica_id}.json"

    def report(self, seq: int) -> None:
        """Say this replica serves publish `seq` (written when it changed, or to renew)."""
        now = time.monotonic()
        if self._tried and self._tried[0] == seq and now - self._tried[1] < self.seconds / 3:
            return
        self._tried = (seq, now)
        body = {"seq": seq, "until": time.time() + self.seconds}
        try:
            self.store.put(self.key, json.dumps(body).encode())
            self._written = True
        except StorageFault as exc:  # keys that may only read: following works all the same
            if not self._warned:
                log.warning("cannot check in at %s (%s): a purge will not wait for this "
                            "replica, which may answer errors while it switches",
                            self.store.uri(self.key), exc)
                self._warned = True

    def withdraw(self) -> None:
        """A clean stop: a purge need not wait for this replica."""
        if self._written:
            self.store.delete([self.key])
            self._written = False


def wait_for_replicas(store: ObjectStore, seq: int, bound: float,
                      renew: Callable[[], None], poll: float = 0.2) -> tuple[int, list[str]]:
    """Wait until every replica with a live check-in serves `seq` or later, at most `bound`
    seconds, calling `renew` (the writer's lease) now and then; (replicas that did, ids of those
    that did not). Expired check-ins are deleted on the way."""
    deadline = time.monotonic() + bound
    renewed = time.monotonic()
    while True:
        behind, moved, expired = [], 0, []
        for key, _ in store.list(REPLICAS):
            found = store.get(key)
            if found is None:
                continue  # withdrawn meanwhile
            check_in = json.loads(found[0])
            if check_in.get("until", 0) < time.time():
                expired.append(key)
            elif check_in.get("seq", 0) >= seq:
                moved += 1
            else:
                behind.append(key.removeprefix(REPLICAS).removesuffix(".json"))
        if expired:
            store.delete(expired)
        if not behind or time.monotonic() >= deadline:
            if behind:
                log.warning("purge: %d replica(s) still on an older publish after %.0fs (%s); "
                            "deleting its objects anyway", len(behind), bound, ", ".join(behind))
            return moved, behind
        if time.monotonic() - renewed > 5:
            renew()
            renewed = time.monotonic()
        time.sleep(poll)
