"""A server's services, one per tenant (docs/team-server.md): each over the tenant's own data
directory, so a request can only reach the data of its token's tenant; all share one model."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, cast

from models.principal import CURRENT_PRINCIPAL, DEFAULT_TENANT, Principal

if TYPE_CHECKING:
    from api.service.core import RecallService

__all__ = ["TenantServices"]


class TenantServices:
    def __init__(self, first: RecallService) -> None:
        self.first = first
        self._services = {first.tenant: first}
        self._lock = threading.Lock()

    def service(self, tenant: str) -> RecallService:
        """The tenant's service, made on its first request (its data directory is made by its
        first write; reading an empty one answers that nothing is indexed yet)."""
        with self._lock:
            found = self._services.get(tenant)
            if found is None:
                from api.service.core import RecallService

                first = self.first
                found = RecallService(first.settings, tenant=tenant, embedder=first.embedder,
                                      progress=first.progress)
                found.replica_of = first.replica_of
                self._services[tenant] = found
        return found

    def for_principal(self, principal: Principal | None) -> RecallService:
        """The service of whom a request acts for; nobody (no request, as on one person's
        machine, or a route open without a token) is the default tenant."""
        return self.service(principal.tenant if principal else DEFAULT_TENANT)

    def current(self) -> RecallService:
        """The service of the request being answered (CURRENT_PRINCIPAL, set from its token)."""
        return self.for_principal(CURRENT_PRINCIPAL.get())

    def all(self) -> list[RecallService]:
        with self._lock:
            return list(self._services.values())

    def routed(self) -> RecallService:
        """One object to hand to code written for a single service (the MCP tools): each
        attribute is looked up on the service of the request being answered."""
        return cast("RecallService", _Routed(self))


class _Routed:
    def __init__(self, tenants: TenantServices) -> None:
        self._tenants = tenants

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tenants.current(), name)
