"""A service's object-storage side (docs/scale-out.md): the writer publishes its data directory
to RECALL_STORE; `recall serve --from s3://...` follows one as a read replica."""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from api.settings import Settings
from indexer.stores.layout import DataDir
from models import RecallError
from models.principal import DEFAULT_TENANT, TENANT_PATTERN

if TYPE_CHECKING:
    from indexer.remote.follow import Follower
    from indexer.remote.objects import S3Config
    from indexer.remote.publish import Publisher

__all__ = ["Following", "Publishing", "follower", "publisher", "s3_config", "tenant_store"]

log = logging.getLogger(__name__)


def s3_config(settings: Settings, uri: str | None = None) -> S3Config:
    from indexer.remote.objects import S3Config

    uri = uri or settings.store
    if not uri:
        raise ValueError("no object store: set RECALL_STORE")
    verify = settings.s3_verify_tls
    return S3Config(uri, settings.s3_endpoint, settings.s3_region, settings.s3_access_key,
                    settings.s3_secret_key,
                    {"true": True, "false": False}.get(verify.lower(), verify))


def tenant_store(uri: str, tenant: str) -> str:
    """Where a tenant's data is published: the store itself for the default tenant, else
    tenants/<tenant>/ under it, as on disk (DataDir.for_tenant)."""
    return uri if tenant == DEFAULT_TENANT else f"{uri.rstrip('/')}/tenants/{tenant}"


def publisher(data: DataDir, settings: Settings, tenant: str = DEFAULT_TENANT) -> Publisher:
    from indexer.remote.objects import ObjectStore
    from indexer.remote.publish import Publisher

    store = s3_config(settings, settings.store and tenant_store(settings.store, tenant))
    return Publisher(data, ObjectStore(store), lock_wait=settings.lock_wait,
                     lease_seconds=settings.lease_seconds)


def follower(data: DataDir, settings: Settings, uri: str) -> Follower:
    from indexer.remote.follow import Follower
    from indexer.remote.objects import ObjectStore

    return Follower(data, ObjectStore(s3_config(settings, uri)))


class _Loop:
    """A daemon thread running `step` every `interval` seconds until stopped; a failed step is
    logged and tried again next time."""

    def __init__(self, name: str, interval: float) -> None:
        self.name = name
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():  # stopped after its first round only: never started
            self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.step()
            except (RecallError, OSError, ValueError, KeyError) as exc:
                log.warning("%s: %s (trying again)", self.name, exc)

    def step(self) -> None:
        raise NotImplementedError


class _TenantPublisher:
    """One tenant's publisher, and what its data directory looked like when it last published."""

    def __init__(self, data: DataDir, settings: Settings, tenant: str) -> None:
        self.data = data
        self.publisher = publisher(data, settings, tenant)
        self.seen: tuple | None = None
        self.held = 0.0


class Publishing(_Loop):
    """`recall serve` with RECALL_STORE: publishes what the server's writes changed, each
    tenant's data directory to its own prefix (tenant_store), and keeps each writer lease while
    it runs (renewed at a third of its length)."""

    def __init__(self, data: DataDir, settings: Settings) -> None:
        super().__init__("publishing", settings.follow_interval)
        self.home = data
        self.settings = settings
        self.renew_every = settings.lease_seconds / 3
        self.tenants: dict[str, _TenantPublisher] = {}

    def step(self) -> None:
        for tenant, data in self.home.tenants():
            if tenant not in self.tenants:
                self.tenants[tenant] = _TenantPublisher(data, self.settings, tenant)
            _for_tenant("publishing", tenant, functools.partial(self._publish,
                                                                self.tenants[tenant]))

    def _publish(self, one: _TenantPublisher) -> None:
        if one.data.current_generation() is None:  # nothing indexed yet: hold the lease only
            one.publisher.hold_lease()
            return
        seen = one.data.fingerprint()
        if seen == one.seen and time.monotonic() - one.held < self.renew_every:
            return
        one.publisher.publish()
        one.seen, one.held = seen, time.monotonic()

    def stop(self) -> None:
        super().stop()
        for one in self.tenants.values():
            one.publisher.release()


class Following(_Loop):
    """`recall serve --from`: takes in each new publish, of the default tenant and of each other
    tenant published under tenants/ (found anew at each step)."""

    def __init__(self, home: DataDir, settings: Settings, uri: str) -> None:
        super().__init__("following", settings.follow_interval)
        self.home, self.settings, self.uri = home, settings, uri
        self.followers = {DEFAULT_TENANT: follower(home, settings, uri)}

    def step(self) -> None:
        root = self.followers[DEFAULT_TENANT]
        root.sync()
        for tenant in root.store.folders("tenants/"):
            if tenant not in self.followers and TENANT_PATTERN.fullmatch(tenant):
                self.followers[tenant] = follower(self.home.for_tenant(tenant), self.settings,
                                                  tenant_store(self.uri, tenant))
        for tenant, following in self.followers.items():
            if tenant != DEFAULT_TENANT:
                _for_tenant("following", tenant, following.sync)

    def stop(self) -> None:
        super().stop()
        for tenant, following in self.followers.items():
            try:
                following.stop()
            except (RecallError, OSError) as exc:  # its check-in expires by itself
                log.warning("following tenant %s: stopping: %s", tenant, exc)


def _for_tenant(what: str, tenant: str, step: Callable[[], object]) -> None:
    """One tenant's part of a loop's step. The default tenant's failure ends the step (and, in
    the first round, `recall serve`: another writer's lease, nothing published); another
    tenant's is logged, so that one tenant's trouble does not hold the others up."""
    if tenant == DEFAULT_TENANT:
        step()
        return
    try:
        step()
    except (RecallError, OSError) as exc:
        log.warning("%s tenant %s: %s (trying again)", what, tenant, exc)
