"""One error shape for HTTP: RFC 9457 problem details (`application/problem+json`).

Every recall error carries its status (models/errors.py); Litestar's own HTTP errors
(validation, unknown route, body too large, auth) are mapped to the same shape here, once.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi import ResponseSpec
from litestar.types import Send

from indexer.stores.faults import explain_fault
from models import RecallError, WriterBusy

__all__ = ["EXCEPTION_HANDLERS", "Problem", "problem", "problem_responses", "send_problem"]

log = logging.getLogger(__name__)

MEDIA_TYPE = "application/problem+json"
WRITER_RETRY_AFTER = 5  # seconds a client should wait before sending a write again
_TITLES = {400: "Invalid input", 401: "Unauthorized", 403: "Forbidden", 404: "Not found", 405: "Method not allowed",
           409: "Writer busy", 413: "Payload too large", 415: "Unsupported media type",
           421: "Misdirected request", 429: "Too many requests", 503: "Index unavailable",
           507: "Disk full"}


# what each error status means, for the OpenAPI document
_MEANING = {
    400: "a parameter or the body cannot be used",
    401: "a token is required (RECALL_API_TOKEN is set, or `recall tokens` made one) and the "
         "request lacks 'Authorization: Bearer <token>', or names an unknown, expired or revoked "
         "one",
    403: "the request's token has too narrow a scope for this route (read, write, admin), or "
         "the request names another tenant than the token's (X-Recall-Tenant), or a browser "
         "sent a change from a page of another origin",
    404: "no such session or snapshot",
    409: "another process is writing the archive (try again), or the session is archived "
         "and takes no more changes",
    413: "the body is larger than RECALL_MAX_BODY_MB",
    415: "the body is not sent as JSON ('Content-Type: application/json')",
    421: "the Host header does not name this server (RECALL_ALLOWED_HOSTS lists more names)",
    429: "the token sent more than RECALL_RATE_LIMIT requests a second (after a burst of "
         "RECALL_RATE_BURST), or this client had too many requests refused; Retry-After says "
         "when to send again",
    503: "the index is missing, damaged, half-written, or built with another embedder or by a "
         "newer recall; or the data directory cannot be written or a database is held by "
         "another program (the detail says which, and what to run)",
    507: "the disk holding the data directory is full (nothing stored is lost; free space and "
         "send the request again)",
}


class Problem(msgspec.Struct):
    """RFC 9457 problem details: the body of every error response."""

    type: str
    title: str
    status: int
    detail: str


def problem_responses(*statuses: int) -> dict[int, ResponseSpec]:
    """OpenAPI responses for the error statuses a route can answer with. 401, 403, 421, 429, 503
    and 507 are added: any route may need a token of some scope, refuse a Host that does not
    name the server, be rate limited, and find the disk full or the data directory unwritable
    (even a search takes locks). A route that takes a body (413) also refuses one that is not
    JSON (415). They replace Litestar's own 400 entry, which describes a different body."""
    return {status: ResponseSpec(data_container=Problem, media_type=MEDIA_TYPE, generate_examples=False,
                                 description=f"{_TITLES.get(status, 'Error')}: {_MEANING[status]}")
            for status in sorted({401, 403, 421, 429, 503, 507, *statuses,
                                  *([415] if 413 in statuses else [])})}


def problem(status: int, title: str, detail: str, type_: str = "about:blank") -> Response:
    body = {"type": type_, "title": title, "status": status, "detail": detail}
    return Response(body, status_code=status, media_type=MEDIA_TYPE)


async def send_problem(send: Send, status: int, detail: str,
                       headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Answer with a problem from below the app (the front door, the connection limit)."""
    body = msgspec.json.encode(Problem("about:blank", _TITLES.get(status, "Error"), status, detail))
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode()),
        *headers]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _recall_error(_: Request, exc: RecallError) -> Response:
    slug = type(exc).__name__
    response = problem(exc.status, exc.title, exc.detail, f"https://recall.dev/problems/{slug}")
    if isinstance(exc, WriterBusy):  # worth retrying, unlike other conflicts: say when
        response.headers["Retry-After"] = str(WRITER_RETRY_AFTER)
    return response


def _http_error(_: Request, exc: HTTPException) -> Response:
    detail = exc.detail
    if isinstance(exc, ValidationException) and isinstance(exc.extra, list) and exc.extra:
        detail = "; ".join(f"{e.get('key', '')}: {e.get('message', '')}".strip(": ")
                           for e in exc.extra if isinstance(e, dict)) or detail
    response = problem(exc.status_code, _TITLES.get(exc.status_code, "Error"), str(detail))
    response.headers.update(exc.headers or {})  # e.g. Allow on a 405 (RFC 9110 requires it)
    if exc.status_code == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


def _too_deep(_: Request, exc: RecursionError) -> Response:
    # a request body nested thousands deep stops the JSON decoder (or a walk over the value):
    # the client's input is at fault, not the server
    return problem(400, "Invalid input", "the request is nested too deeply")


def _unexpected(request: Request, exc: Exception) -> Response:
    # a fault of the machine (a full disk, a damaged index) is told to the client as such
    fault = explain_fault(exc, request.app.state.get("home"))
    if fault is not None:
        log.warning("%s (%s: %s)", fault.detail, type(exc).__name__, exc)
        return _recall_error(request, fault)
    log.exception("unexpected error")
    return problem(500, "Internal error", "unexpected error; see the server log")


EXCEPTION_HANDLERS = {RecallError: _recall_error, HTTPException: _http_error,
                      RecursionError: _too_deep, Exception: _unexpected}
