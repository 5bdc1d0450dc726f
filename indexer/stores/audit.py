"""The audit log: one JSON line per write, delete, purge, token change and refused request
(time, tenant, token name, action, target ids, outcome); never a secret or message text.

`<home>/audit.jsonl`, appended with O_APPEND (each line whole, from any thread or process).
What a client sent (a path, a tenant or token name) is kept with every control, format and
line-separator character escaped (`\\x1b`, `\\u2028`), and cut to a bounded length, so a
request can neither forge a line nor reach the terminal of whoever reads the log."""

from __future__ import annotations

import json
import os
import time
import unicodedata
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import asdict, dataclass

from indexer.stores.layout import DataDir

__all__ = ["CURRENT_AUDIT", "AuditEntry", "AuditLog", "escape"]

MAX_FIELD = 300  # characters kept of any one field a client can choose
MAX_TARGETS = 50
# Unicode categories that move the cursor, hide text or end a line: control, format (bidi
# overrides), line and paragraph separators
_UNSAFE = {"Cc", "Cf", "Zl", "Zp"}


def escape(text: str, limit: int = MAX_FIELD) -> str:
    """`text` with every unsafe character written as a visible escape, cut to `limit`."""
    out = "".join(ch if unicodedata.category(ch) not in _UNSAFE
                  else (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
                  for ch in text[:limit])
    return out + "…" if len(text) > limit else out


@dataclass(frozen=True, slots=True)
class AuditEntry:
    time: float
    tenant: str
    token: str
    action: str  # "POST /v1/sessions", "mcp delete_session", "tokens create", ...
    targets: Sequence[str]
    outcome: str  # "ok", an HTTP status, "denied", "error"
    client: str = ""  # the address a refused HTTP request came from
    count: int = 1  # refusals this line stands for (one line per client and minute)
    note: str = ""  # why a token was refused ("revoked"), the tenant a request named, ...

    def safe(self) -> AuditEntry:
        """This entry with every field a client can choose escaped and bounded."""
        return AuditEntry(self.time, escape(self.tenant), escape(self.token), escape(self.action),
                          [escape(t, 120) for t in list(self.targets)[:MAX_TARGETS]],
                          escape(self.outcome), escape(self.client, 64), self.count,
                          escape(self.note))


class AuditLog:
    def __init__(self, data: DataDir) -> None:
        self.path = data.root / "audit.jsonl"

    def append(self, tenant: str, token: str, action: str, targets: Sequence[str],
               outcome: str, **more: object) -> None:
        self.write(AuditEntry(time.time(), tenant, token, action, list(targets), outcome,
                              **more))  # type: ignore[arg-type]

    def write(self, entry: AuditEntry) -> None:
        line = (json.dumps(asdict(entry.safe()), ensure_ascii=False) + "\n").encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    def entries(self, since: float | None = None, tenant: str | None = None
                ) -> Iterator[AuditEntry]:
        """The entries in order, each escaped again (a line written by an older recall, or by
        hand, may hold anything)."""
        try:
            lines = self.path.read_text(errors="replace").splitlines()
        except FileNotFoundError:
            return
        for line in lines:
            try:
                entry = AuditEntry(**json.loads(line)).safe()
            except (ValueError, TypeError):
                entry = AuditEntry(0.0, "-", "-", "unreadable line: " + escape(line, 200), [], "-")
            if (since is None or entry.time >= since) and (tenant is None or entry.tenant == tenant):
                yield entry


# the audit log of the HTTP request being answered (set by its guard, with its principal)
CURRENT_AUDIT: ContextVar[AuditLog | None] = ContextVar("recall_audit", default=None)
