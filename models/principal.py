"""Who a request acts for: a token's name, its tenant and its scope (api/http/auth.py)."""

from __future__ import annotations

import re
from contextvars import ContextVar
from dataclasses import dataclass

from models.errors import InvalidInput

__all__ = ["CURRENT_PRINCIPAL", "DEFAULT_TENANT", "LOCAL", "TENANT_PATTERN", "Principal", "check_tenant"]

# the tenant of one person's machine, whose data is the data directory itself; every other
# tenant's is a data directory of its own under <home>/tenants/ (indexer/stores/layout.py)
DEFAULT_TENANT = "default"

# a tenant names a folder: lowercase letters, digits, '-' and '_', starting with a letter or digit
TENANT_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,62}")


def check_tenant(value: str) -> str:
    """Return value if it can name a tenant, else raise InvalidInput saying what may."""
    if not TENANT_PATTERN.fullmatch(value):
        raise InvalidInput(f"tenant {value[:80]!r} is not a tenant name: use 1-63 lowercase "
                           "letters, digits, '-' or '_', starting with a letter or digit")
    return value


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
