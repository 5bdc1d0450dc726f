"""Per-token rate limits: a token bucket for each token name, `rate` requests a second with
bursts of up to `burst`; past it, 429 with Retry-After."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

__all__ = ["RateLimiter"]


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()  # guards run on the event loop and in worker threads

    def wait_needed(self, name: str, now: float | None = None) -> float:
        """0 when a request by `name` may go now (and it is counted); else the seconds until
        one may."""
        now = time.monotonic() if now is None else now
        with self._lock:
            bucket = self._buckets.setdefault(name, _Bucket(float(self.burst), now))
            bucket.tokens = min(float(self.burst),
                                bucket.tokens + (now - bucket.updated) * self.rate)
            bucket.updated = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return 0.0
            return (1 - bucket.tokens) / self.rate

    @staticmethod
    def retry_after(wait: float) -> str:
        return str(max(1, math.ceil(wait)))
