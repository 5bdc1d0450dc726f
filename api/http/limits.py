"""The body limit for mounted apps that read the body themselves (the rest: api/service/limits.py)."""

from __future__ import annotations

from litestar.exceptions import HTTPException
from litestar.types import Receive, ReceiveMessage, Scope

__all__ = ["read_body"]


async def read_body(scope: Scope, receive: Receive, limit: int) -> Receive:
    """Read the whole request body, at most `limit` bytes (413 above), and return a receive
    that replays it: for mounted apps that read the body themselves, e.g. /mcp."""
    length = dict(scope.get("headers", [])).get(b"content-length", b"")
    if length.isdigit() and int(length) > limit:
        raise HTTPException(status_code=413, detail=f"the request body is over {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            return _replay([message], receive)
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > limit:
            raise HTTPException(status_code=413, detail=f"the request body is over {limit} bytes")
        if not message.get("more_body", False):
            break
    body: ReceiveMessage = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
    return _replay([body], receive)


def _replay(messages: list[ReceiveMessage], receive: Receive) -> Receive:
    async def replayed() -> ReceiveMessage:
        return messages.pop(0) if messages else await receive()

    return replayed
