"""How `recall serve` announces itself to the CLI of its data directory: it writes
`<home>/server.json` (atomically, readable by its owner only) when it starts listening, removes
it when it stops, and answers every request's challenge with the proof. The file's format, how a
client finds it and checks the proof are api/client/server.py's, which the CLI reads with the
standard library alone."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from api.client.server import CHALLENGE, FILE_NAME, PROOF, ServerFile, find, find_file, proof

if TYPE_CHECKING:
    from litestar.types import Message, Scope

__all__ = ["CHALLENGE", "FILE_NAME", "PROOF", "ServerFile", "announce", "find", "proof",
           "prover", "withdraw"]


def prover(secret: str) -> Callable[[Message, Scope], Awaitable[None]]:
    """A Litestar `before_send` hook: every response answers the request's challenge."""

    async def prove(message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start":
            return
        challenge = dict(scope.get("headers", [])).get(CHALLENGE.encode())
        if challenge:
            answer = proof(secret, challenge.decode("latin-1")).encode()
            message["headers"] = [*message.get("headers", []), (PROOF.encode(), answer)]

    return prove


def local_url(host: str, port: int) -> str:
    """The address a client on this machine uses for a server bound to `host`."""
    if host in ("0.0.0.0", "", "localhost"):
        return f"http://127.0.0.1:{port}"
    if host == "::":
        return f"http://[::1]:{port}"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def announce(home: Path, host: str, port: int, embedder: str) -> ServerFile:
    """Write the file for this process (atomically, mode 0600) and return it."""
    info = ServerFile(os.getpid(), local_url(host, port), embedder, secrets.token_hex(16))
    path = home / FILE_NAME
    tmp = path.with_name(f".{FILE_NAME}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(info.as_dict(), out)
    os.replace(tmp, path)
    return info


def withdraw(home: Path, info: ServerFile) -> None:
    """Remove the file if it still names this server (another may have started since)."""
    path = home / FILE_NAME
    if find_file(path) == info:
        path.unlink(missing_ok=True)
