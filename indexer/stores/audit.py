"""The audit log: one JSON line per write, delete, purge, token change and refused request
(time, tenant, token name, action, target ids, outcome); never a secret or message text.

`<home>/audit.jsonl`, appended with O_APPEND (each line whole, from any thread or process)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import asdict, dataclass

from indexer.stores.layout import DataDir

__all__ = ["CURRENT_AUDIT", "AuditEntry", "AuditLog"]


@dataclass(frozen=True, slots=True)
class AuditEntry:
    time: float
    tenant: str
    token: str
    action: str  # "POST /v1/sessions", "mcp delete_session", "tokens create", ...
    targets: Sequence[str]
    outcome: str  # "ok", an HTTP status, "denied", "error"


class AuditLog:
    def __init__(self, data: DataDir) -> None:
        self.path = data.root / "audit.jsonl"

    def append(self, tenant: str, token: str, action: str, targets: Sequence[str],
               outcome: str) -> None:
        entry = AuditEntry(time.time(), tenant, token, action, list(targets), outcome)
        line = (json.dumps(asdict(entry), ensure_ascii=False) + "\n").encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    def entries(self, since: float | None = None, tenant: str | None = None
                ) -> Iterator[AuditEntry]:
        try:
            lines = self.path.read_text().splitlines()
        except FileNotFoundError:
            return
        for line in lines:
            entry = AuditEntry(**json.loads(line))
            if (since is None or entry.time >= since) and (tenant is None or entry.tenant == tenant):
                yield entry


# the audit log of the HTTP request being answered (set by its guard, with its principal)
CURRENT_AUDIT: ContextVar[AuditLog | None] = ContextVar("recall_audit", default=None)
