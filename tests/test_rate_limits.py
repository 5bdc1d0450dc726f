"""Per-token rate limits (api/http/rate_limits.py): a burst goes through, the request past it gets
429 with Retry-After, each token has its own bucket, and the bucket refills at the rate."""

from __future__ import annotations

import time
from pathlib import Path

from litestar.testing import TestClient

from api import RecallService, Settings
from api.http import create_app
from api.http.rate_limits import RateLimiter
from indexer import HashEmbedder
from indexer.stores.tokens import TokenStore

from .helpers import EXAMPLES


def test_the_bucket_lets_a_burst_through_then_refills_at_the_rate() -> None:
    limiter = RateLimiter(rate=2.0, burst=3)
    assert [limiter.wait_needed("a", now=10.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.wait_needed("a", now=10.0) == 0.5
    assert limiter.wait_needed("b", now=10.0) == 0.0  # every token its own bucket
    assert limiter.wait_needed("a", now=10.5) == 0.0
    assert RateLimiter.retry_after(0.5) == "1"


def test_a_token_past_its_limit_gets_429_with_retry_after(tmp_path: Path) -> None:
    service = RecallService(Settings(home=tmp_path, embedder="hash", rate_limit=2.0,
                                     rate_burst=3), embedder=HashEmbedder())
    service.index([EXAMPLES])
    with TokenStore(service.data) as store:
        first, second = (store.create(name, "default", "read")[1] for name in ("a", "b"))
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as client:
        def get(token: str) -> int:
            return client.get("/v1/stats", headers={"Authorization": f"Bearer {token}"}
                              ).status_code

        assert [get(first) for _ in range(3)] == [200, 200, 200]
        refused = client.get("/v1/stats", headers={"Authorization": f"Bearer {first}"})
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "1"
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert "2 requests a second" in refused.json()["detail"]
        assert get(second) == 200  # another token is not held back
        time.sleep(0.6)
        assert get(first) == 200
