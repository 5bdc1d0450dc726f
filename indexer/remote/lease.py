"""One writer per bucket prefix: a lease object with an expiry, taken and renewed with
conditional writes.

- Taking it: `PUT lease.json` with `If-None-Match: *` succeeds only if there is none.
- Renewing it, or taking over an expired one: `PUT` with `If-Match: <ETag read>` succeeds
  only if nobody wrote it since it was read, so two writers racing for an expired lease
  cannot both win.
- Another writer's lease that has not expired: WriterBusy, naming who holds it and until when.

A store that ignores these headers (some older S3 implementations) would let the last writer
win a race; docs/scale-out.md says so. AWS S3 (since 2024), Ceph radosgw and MinIO honour them.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from dataclasses import dataclass

from indexer.remote.objects import ObjectStore, PreconditionFailed
from models import WriterBusy

__all__ = ["LEASE_KEY", "WriterLease"]

LEASE_KEY = "lease.json"


@dataclass
class WriterLease:
    store: ObjectStore
    holder: str  # this writer's data directory id
    seconds: float = 60.0
    _etag: str | None = None

    def hold(self) -> None:
        """Take the lease, or renew it when this writer holds it already."""
        body = json.dumps({"holder": self.holder, "host": socket.gethostname(),
                           "pid": os.getpid(), "expires": time.time() + self.seconds}).encode()
        if self._etag is not None:
            try:
                self._etag = self.store.put(LEASE_KEY, body, if_etag=self._etag)
                return
            except PreconditionFailed:
                self._etag = None  # taken over after it expired: try again from the start
        found = self.store.get(LEASE_KEY)
        try:
            if found is None:
                self._etag = self.store.put(LEASE_KEY, body, if_absent=True)
                return
            current, etag = json.loads(found[0]), found[1]
            if current.get("holder") != self.holder and current.get("expires", 0) > time.time():
                raise _busy(current)
            self._etag = self.store.put(LEASE_KEY, body, if_etag=etag)
        except PreconditionFailed:
            raise _busy(json.loads((self.store.get(LEASE_KEY) or (b"{}", ""))[0])) from None

    def release(self) -> None:
        """Let the lease expire now (the next writer need not wait for it)."""
        if self._etag is None:
            return
        body = json.dumps({"holder": self.holder, "expires": 0}).encode()
        with contextlib.suppress(PreconditionFailed):
            self.store.put(LEASE_KEY, body, if_etag=self._etag)
        self._etag = None


def _busy(current: dict) -> WriterBusy:
    until = time.strftime("%H:%M:%S", time.localtime(float(current.get("expires", 0))))
    return WriterBusy(
        f"another writer holds this bucket prefix ({current.get('host', '?')}, pid "
        f"{current.get('pid', '?')}) until {until} unless it renews; one writer at a time "
        "publishes to object storage (docs/scale-out.md)")
