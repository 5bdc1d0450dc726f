"""Who a request acts for: a token's name, its tenant and its scope (api/http/auth.py)."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["CURRENT_PRINCIPAL", "DEFAULT_TENANT", "LOCAL", "Principal"]

DEFAULT_TENANT = "default"


@dataclass(frozen=True, slots=True)
class Principal:
    name: str  # the token's name ("RECALL_API_TOKEN" for the single token of the setting)
    tenant: str
    scope: str  # read, write or admin


# no token configured anywhere: one person's machine, where everything is open
LOCAL = Principal("local", DEFAULT_TENANT, "admin")

# the request being answered (set by the HTTP guard; MCP's tools and the audit log read it);
# None where no HTTP request is (the CLI, MCP over stdio)
CURRENT_PRINCIPAL: ContextVar[Principal | None] = ContextVar("recall_principal", default=None)
