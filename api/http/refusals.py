"""Refused requests, held to a budget and to bounded lines in the audit log.

Each refusal (401, 403, 421) spends from its client's budget (by address: `burst` at once, then
`rate` a second; RECALL_REFUSALS_PER_MINUTE); past it the client gets 429 instead, with
Retry-After. The audit log gets one line per client, token name, status and minute: the first
refusal's at once, and when the minute ends one more that counts the rest. A client that guesses tokens as fast as it can, or sends a path a megabyte
long, then costs the log a few hundred bytes a minute instead of hundreds of megabytes.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from api.http.rate_limits import RateLimiter
from indexer.stores.audit import AuditEntry, AuditLog

__all__ = ["Refusals"]


@dataclass
class _Window:
    start: float
    last: AuditEntry
    more: int = 0  # refusals after the first, not written yet


class Refusals:
    def __init__(self, audit: AuditLog, rate: float = 1.0, burst: int = 60,
                 window: float = 60.0) -> None:
        self.audit = audit
        self.window = window
        self._limiter = RateLimiter(rate, burst)
        self._open: dict[tuple[str, str, str], _Window] = {}
        self._lock = threading.Lock()

    def wait_needed(self, client: str) -> float:
        """0 when `client` may be refused once more with its real answer (the refusal is
        counted); else the seconds until it may, during which it gets 429."""
        return self._limiter.wait_needed(client)

    def note(self, entry: AuditEntry, now: float | None = None) -> None:
        """Log a refusal, or count it when its client already has a line this minute for the
        same token name ("-" for none, or an unknown one) and status."""
        now = time.time() if now is None else now
        key = (entry.client, entry.token, entry.outcome)
        with self._lock:
            self._close(lambda w: now - w.start >= self.window, now)
            window = self._open.get(key)
            if window is not None:
                window.more += 1
                window.last = entry
                return
            self._open[key] = _Window(now, entry)
        self.audit.write(replace(entry, time=now))
        self._close_later()

    def flush(self, now: float | None = None) -> None:
        """Write the counts of every open minute (at shutdown)."""
        with self._lock:
            self._close(lambda w: True, time.time() if now is None else now)

    def _close(self, due: Callable[[_Window], bool], now: float) -> None:
        for key, window in list(self._open.items()):
            if due(window):
                del self._open[key]
                if window.more:
                    self.audit.write(replace(
                        window.last, time=now, count=window.more, targets=[],
                        note=f"more refusals in the minute from {window.start:.0f}; "
                             "the last one's action shown"))

    def _close_later(self) -> None:
        # a client that stops sending still gets its count written when its minute ends
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not on the server's loop: the next refusal or the shutdown writes it
        loop.call_later(self.window + 0.5, lambda: self._close_due(time.time()))

    def _close_due(self, now: float) -> None:
        with self._lock:
            self._close(lambda w: now - w.start >= self.window, now)
