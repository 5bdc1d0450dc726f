"""How `recall serve` runs the app: uvicorn, with limits that keep slow or idle clients from
holding the server (RECALL_HTTP_* settings).

uvicorn times out a kept-alive connection only once a response has been sent: a client that
connects and sends nothing, or sends its headers or its body a byte at a time, holds its
connection (and counts against the connection limit) for as long as it likes. TimedH11Protocol
adds the two missing deadlines.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http import h11_impl
from uvicorn.protocols.http.h11_impl import H11Protocol

from api.settings import Settings

__all__ = ["TimedH11Protocol", "server_config"]

log = logging.getLogger(__name__)


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each part of a request the client sends:
    `header_timeout` seconds for the request line and headers (from connecting, or from the
    first byte of the next request on a kept-alive connection), then `body_timeout` seconds for
    the body. Past a deadline the connection is closed. While the app works on a request, or
    while the connection idles between requests (uvicorn's keep-alive timeout), none runs."""

    header_timeout = 10.0
    body_timeout = 60.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_for: str | None = None  # "headers" or "body"

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        # Nagle's algorithm off: a response goes out as two writes (head, then body), and with
        # it on the body waited for the client's delayed ACK of the head, 40 ms on every request
        # of a kept-alive connection. asyncio sets this itself only for sockets made with
        # IPPROTO_TCP; `recall serve` makes its own listening socket (api/cli/serve.py).
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
        self._expect("headers", self.header_timeout)

    def data_received(self, data: bytes) -> None:
        if self._waiting_for is None and self.conn.their_state is h11.IDLE:
            self._expect("headers", self.header_timeout)  # a new request on a kept-alive connection
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.IDLE:
            self._expect(None, 0)  # uvicorn's keep-alive timer runs until the next request starts
        else:
            self._follow()  # a pipelined request, or a body still coming after an early answer

    def connection_lost(self, exc: Exception | None) -> None:
        self._expect(None, 0)
        super().connection_lost(exc)

    def _follow(self) -> None:
        """Set the deadline for what the client still has to send."""
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            if self._waiting_for != "body":
                self._expect("body", self.body_timeout)
        elif state is not h11.IDLE:
            self._expect(None, 0)  # the whole request is in: the app's turn

    def _expect(self, what: str | None, seconds: float) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._waiting_for = what
        if what is not None:
            self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            log.info("closing the connection from %s: the request %s took too long",
                     self.client, self._waiting_for)
            self.transport.close()


_BUSY = json.dumps({"type": "about:blank", "title": "Service Unavailable", "status": 503,
                    "detail": "the server is at its connection limit "
                              "(RECALL_HTTP_MAX_CONNECTIONS): retry in a moment"}).encode()


async def _at_connection_limit(scope: Any, receive: Any, send: Any) -> None:
    """The answer past the connection limit: problem+json like every other error, with
    Retry-After, instead of uvicorn's plain-text one."""
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"application/problem+json"), (b"content-length", str(len(_BUSY)).encode()),
        (b"retry-after", b"1"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": _BUSY, "more_body": False})


# uvicorn's h11 protocol looks this name up in its module when the limit is reached; recall
# serve owns its process, so replacing it there changes only recall's answer
h11_impl.service_unavailable = _at_connection_limit


def head_as_get(app: Any) -> Any:
    """Answer HEAD on every GET route (probes and link checkers send it): the app sees a GET,
    and uvicorn, which still sees the HEAD, sends the headers without the body."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("method") == "HEAD":
            scope = {**scope, "method": "GET"}
        await app(scope, receive, send)

    return wrapped


def server_config(app: Any, settings: Settings, **kwargs: Any) -> uvicorn.Config:
    """The uvicorn config `recall serve` runs (tests start the same one)."""
    protocol = type("TimedH11Protocol", (TimedH11Protocol,), {
        "header_timeout": settings.http_header_timeout, "body_timeout": settings.http_body_timeout})
    return uvicorn.Config(
        head_as_get(app), http=protocol, log_level="warning",
        timeout_keep_alive=settings.http_keep_alive,
        limit_concurrency=settings.http_max_connections,
        h11_max_incomplete_event_size=settings.http_max_header_kb * 1024,
        **kwargs)
