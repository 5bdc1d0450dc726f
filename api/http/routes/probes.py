"""Outside /v1: the health probe (open to probes, details behind the token) and Prometheus
metrics."""

from __future__ import annotations

import logging

from litestar import Request, Response, get
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Gauge, generate_latest

from api.http.auth import Unauthenticated, authenticate
from api.http.params import Service
from api.http.problems import problem_responses
from api.http.scopes import PUBLIC, READ
from api.service import RecallService
from api.service.sessions import Health
from indexer.stores.layout import DataDir
from models import IndexUnavailable, RecallError
from models.principal import DEFAULT_TENANT

__all__ = ["health_route", "metrics_route"]

log = logging.getLogger(__name__)

SESSIONS_INDEXED = Gauge("recall_sessions_indexed", "Sessions in the archive and both indexes")
MESSAGES_INDEXED = Gauge("recall_messages_indexed", "Messages in the archive and both indexes")


@get("/healthz", sync_to_thread=True, responses=problem_responses(503), opt=PUBLIC,
     security=[{}],  # open to probes: no token needed, none of the data given
     summary="200 when both indexes are open and consistent; the counts and the reason need "
             "the token when one is set")
def health_route(service: Service, request: Request) -> Health:
    """Open to probes without the token, since it says nothing about the data: then only
    ok (200) or not ready (503). With a token of the default tenant (RECALL_API_TOKEN's or the
    token store's; none needed when neither has one), the counts and the reason."""
    if _server_token(service, request):
        return service.health()
    try:
        service.health()
    except Exception as exc:  # noqa: BLE001  # any cause (a damaged index, a full disk): "not ready"
        log.info("not ready: %s", exc)
        raise IndexUnavailable("the index is not ready; the reason needs the token") from None
    return Health("ok")


def _server_token(service: RecallService, request: Request) -> bool:
    """Whether the request carries a token that may see the server's own counts and paths."""
    try:
        principal = authenticate(service.settings.api_token, DataDir(request.app.state["home"]),
                                 request.headers.get("authorization", ""))
    except Unauthenticated:
        return False
    return principal.tenant == DEFAULT_TENANT


@get("/metrics", opt=READ, sync_to_thread=True, include_in_schema=False)
def metrics_route(service: Service) -> Response[bytes]:
    """Prometheus text format: request counts and latencies by route, plus archive size."""
    try:
        counts = service.stats()
        SESSIONS_INDEXED.set(counts.sessions)
        MESSAGES_INDEXED.set(counts.messages)
    except RecallError:  # metrics must answer even when the index is down
        log.warning("could not read counts for /metrics", exc_info=True)
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
