"""One error shape for HTTP: RFC 9457 problem details (`application/problem+json`).

Every recall error carries its status (models/errors.py); Litestar's own HTTP errors
(validation, unknown route, body too large, auth) are mapped to the same shape here, once.
"""

from __future__ import annotations

import logging

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from models import RecallError

__all__ = ["EXCEPTION_HANDLERS", "problem"]

log = logging.getLogger(__name__)

MEDIA_TYPE = "application/problem+json"
_TITLES = {400: "Invalid input", 401: "Unauthorized", 404: "Not found", 405: "Method not allowed",
           413: "Payload too large", 503: "Index unavailable"}


def problem(status: int, title: str, detail: str, type_: str = "about:blank") -> Response:
    body = {"type": type_, "title": title, "status": status, "detail": detail}
    return Response(body, status_code=status, media_type=MEDIA_TYPE)


def _recall_error(_: Request, exc: RecallError) -> Response:
    slug = type(exc).__name__
    return problem(exc.status, exc.title, exc.detail, f"https://recall.dev/problems/{slug}")


def _http_error(_: Request, exc: HTTPException) -> Response:
    detail = exc.detail
    if isinstance(exc, ValidationException) and isinstance(exc.extra, list) and exc.extra:
        detail = "; ".join(f"{e.get('key', '')}: {e.get('message', '')}".strip(": ")
                           for e in exc.extra if isinstance(e, dict)) or detail
    response = problem(exc.status_code, _TITLES.get(exc.status_code, "Error"), str(detail))
    if exc.status_code == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


def _too_deep(_: Request, exc: RecursionError) -> Response:
    # a request body nested thousands deep stops the JSON decoder (or a walk over the value):
    # the client's input is at fault, not the server
    return problem(400, "Invalid input", "the request is nested too deeply")


def _unexpected(_: Request, exc: Exception) -> Response:
    log.exception("unexpected error")
    return problem(500, "Internal error", "unexpected error; see the server log")


EXCEPTION_HANDLERS = {RecallError: _recall_error, HTTPException: _http_error,
                      RecursionError: _too_deep, Exception: _unexpected}
