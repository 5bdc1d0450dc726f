"""The audit line of each HTTP request that writes over /v1 or is refused (MCP's tools note
their own writes: api/mcp/results.py)."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import unquote

from litestar import Request
from litestar.types import Message, Scope

from api.http.auth import AUDIT_KEY, PRINCIPAL_KEY, REFUSED_KEY, SCOPE_KEY
from api.http.refusals import Refusals
from indexer.stores.audit import AuditEntry

__all__ = ["audit_response", "note_targets"]

TARGETS_KEY = "recall_targets"
REFUSED_STATUSES = frozenset({401, 403, 421, 429})


def note_targets(request: Request, targets: Sequence[str]) -> None:
    """Name the ids a write acted on for its audit line, when its path does not (a POST of a
    session names it in the body)."""
    request.scope.setdefault("state", {})[TARGETS_KEY] = list(targets)


def audit_response(refusals: Refusals):
    """before_send: note each write over /v1 in the audit log with the ids it acted on, and
    each refused request (bounded, one line per client and minute: api/http/refusals.py)."""

    async def hook(message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start":
            return
        state = scope.get("state", {})
        audit, status = state.get(AUDIT_KEY), int(message["status"])
        refused = status in REFUSED_STATUSES and (REFUSED_KEY in state or status in (401, 403))
        writes = state.get(SCOPE_KEY, "read") != "read" and path_of(scope).startswith("/v1/")
        if audit is None or not (refused or writes):
            return
        principal = state.get(PRINCIPAL_KEY)
        tenant, name, note = state.get(REFUSED_KEY) or (
            (principal.tenant, principal.name, "") if principal else ("-", "-", ""))
        action = f"{scope.get('method', 'GET')} {path_of(scope)}"
        if refused:
            client = scope.get("client") or ("-", 0)
            refusals.note(AuditEntry(0.0, tenant, name, action, [], str(status),
                                     client=str(client[0]), note=note))
        else:
            audit.append(tenant, name, action, state.get(TARGETS_KEY) or _path_targets(scope),
                         str(status))

    return hook


def path_of(scope: Scope) -> str:
    # a mounted app's (/mcp) scope path is what lies below the mount; the raw path is the
    # request's own, normalized by the gate (api/http/gate.py)
    raw = scope.get("raw_path")
    return unquote(raw.decode("latin-1")) if raw else scope.get("path", "")


def _path_targets(scope: Scope) -> list[str]:
    parts = path_of(scope).strip("/").split("/")
    return [parts[2]] if len(parts) > 2 and parts[1] in ("sessions", "todos") else []
