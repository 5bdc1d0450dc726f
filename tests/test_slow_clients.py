"""Slow and idle clients against `recall serve` over real HTTP: they cannot hold the server; and
each connection it accepts has Nagle's algorithm off.

The server runs with 1-second deadlines and a limit of 8 connections (RECALL_HTTP_* settings):
connections that send nothing, headers a byte at a time, or a body a byte at a time are closed
after their deadline, and meanwhile another client's search answers at once.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .helpers import serve

TIMEOUT = 1.0  # header, body and keep-alive deadline of the server under test
MAX_CONNECTIONS = 8
SETTINGS = {"RECALL_HTTP_HEADER_TIMEOUT": str(TIMEOUT), "RECALL_HTTP_BODY_TIMEOUT": str(TIMEOUT),
            "RECALL_HTTP_KEEP_ALIVE": str(int(TIMEOUT)),
            "RECALL_HTTP_MAX_CONNECTIONS": str(MAX_CONNECTIONS), "RECALL_HTTP_MAX_HEADER_KB": "16"}
SLACK = 1.5  # scheduling on a busy 2-core machine


@pytest.fixture(scope="module")
def server(built_home: Path) -> Iterator[tuple[str, tuple[str, int]]]:
    proc, base = serve(built_home, env=SETTINGS)
    try:
        yield base, ("127.0.0.1", int(base.rsplit(":", 1)[1]))
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


def _connect(address: tuple[str, int]) -> socket.socket:
    sock = socket.create_connection(address, timeout=TIMEOUT + SLACK + 2)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _trickle(sock: socket.socket, data: bytes, stop: threading.Event) -> None:
    """Send `data` a byte every 0.2 s: always active, never done."""
    for byte in data:
        if stop.wait(0.2):
            return
        try:
            sock.sendall(bytes([byte]))
        except OSError:  # closed by the server
            return


def _seconds_until_closed(sock: socket.socket, opened: float) -> float:
    """Read until the server closes the connection; seconds from `opened`."""
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    return time.monotonic() - opened


def _search(base: str) -> tuple[int, float]:
    status, seconds, _ = _searched(base)
    return status, seconds


def _searched(base: str) -> tuple[int, float, httpx.Response]:
    started = time.monotonic()
    response = httpx.get(f"{base}/v1/search", params={"q": "升级", "limit": 1}, timeout=10)
    return response.status_code, time.monotonic() - started, response


def test_slow_and_idle_clients_are_cut_off_and_others_are_served(server) -> None:
    base, address = server
    stop = threading.Event()
    opened = time.monotonic()
    idle = [_connect(address) for _ in range(3)]  # connect, then send nothing
    slow_headers = _connect(address)
    slow_body = _connect(address)
    slow_body.sendall(b"POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 1000\r\n\r\n{")
    trickles = [threading.Thread(target=_trickle, args=(slow_headers, b"GET /v1/stats HTTP/1.1\r\n"
                                                        b"Host: 127.0.0.1\r\nX-Pad: " + b"a" * 100, stop)),
                threading.Thread(target=_trickle, args=(slow_body, b" " * 999, stop))]
    for t in trickles:
        t.start()
    kept_alive = _connect(address)  # one request, then idle on the kept-alive connection
    kept_alive.sendall(b"GET /v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert kept_alive.recv(65536).startswith(b"HTTP/1.1 200")
    answered = time.monotonic()
    try:
        status, seconds = _search(base)  # 6 slow or idle connections are open meanwhile
        assert status == 200 and seconds < 2, (status, seconds)
        print(f"\nsearch beside 6 slow or idle connections: {seconds * 1000:.0f} ms")
        for sock in [*idle, slow_headers, slow_body]:
            closed = _seconds_until_closed(sock, opened)
            assert TIMEOUT * 0.9 <= closed <= TIMEOUT + SLACK, closed
        closed = _seconds_until_closed(kept_alive, answered)
        assert TIMEOUT * 0.9 <= closed <= TIMEOUT + SLACK, closed
    finally:
        stop.set()
        for t in trickles:
            t.join()
        for sock in [*idle, slow_headers, slow_body, kept_alive]:
            sock.close()
    assert _search(base)[0] == 200


def test_connection_limit_answers_503_at_once_then_recovers(server) -> None:
    base, address = server
    opened = time.monotonic()
    idle = [_connect(address) for _ in range(MAX_CONNECTIONS)]
    try:
        time.sleep(0.2)  # all accepted
        status, seconds, response = _searched(base)
        assert status == 503 and seconds < 1, (status, seconds)  # a quick no, not a hang
        # the same error shape as every other answer, saying when to come back
        assert response.headers["content-type"] == "application/problem+json"
        assert response.headers["retry-after"] == "1"
        assert response.json()["status"] == 503 and "connection limit" in response.json()["detail"]
        for sock in idle:
            assert _seconds_until_closed(sock, opened) <= TIMEOUT + SLACK
    finally:
        for sock in idle:
            sock.close()
    status, seconds = _search(base)
    assert status == 200 and seconds < 2, (status, seconds)


def test_endless_headers_are_refused(server) -> None:
    """Headers that never end are not buffered past RECALL_HTTP_MAX_HEADER_KB (16 here)."""
    _, address = server
    with _connect(address) as sock:
        sock.sendall(b"GET /v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 20_000)
        assert sock.recv(65536).startswith(b"HTTP/1.1 400")
        assert _seconds_until_closed(sock, time.monotonic()) < TIMEOUT


def test_each_accepted_connection_has_nagles_algorithm_off(tmp_path: Path) -> None:
    """`recall serve` listens on a socket of its own making (api/cli/serve.py), for which asyncio
    leaves Nagle's algorithm on: every kept-alive response then waited 40 ms for the client's
    delayed ACK (docs/performance.md). The server's protocol turns it off per connection."""
    import asyncio

    from uvicorn.server import ServerState

    from api import Settings
    from api.cli.serve import listen
    from api.http.server import server_config

    async def empty_app(scope: object, receive: object, send: object) -> None:
        return None

    async def accepted_socket_nodelay() -> int:
        loop = asyncio.get_running_loop()
        config = server_config(empty_app, Settings(home=tmp_path))
        config.load()
        made: list[asyncio.Protocol] = []

        def protocol() -> asyncio.Protocol:
            made.append(config.http_protocol_class(config=config, server_state=ServerState(),
                                                   app_state={}, _loop=loop))
            return made[-1]

        sock = listen("127.0.0.1", 0)
        server = await loop.create_server(protocol, sock=sock)
        _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        while not made:
            await asyncio.sleep(0.01)
        accepted = made[0].transport.get_extra_info("socket")  # type: ignore[attr-defined]
        nodelay = accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        writer.close()
        server.close()
        return int(nodelay)

    assert asyncio.run(accepted_socket_nodelay()) != 0
