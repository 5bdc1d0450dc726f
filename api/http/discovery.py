"""How a CLI finds the `recall serve` running on its data directory: a file the server writes
when it starts listening and removes when it stops (`<home>/server.json`, readable by its owner
only), naming its process, its address, its embedder and a secret. The CLI uses a server only
when the process is alive, the file is its owner's own, and the server proves it holds the
secret by answering a fresh challenge (so a stale file or another program on the port is never
used)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litestar.types import Message, Scope

__all__ = ["CHALLENGE", "FILE_NAME", "PROOF", "ServerFile", "announce", "find", "proof",
           "prover", "withdraw"]

FILE_NAME = "server.json"
CHALLENGE = "x-recall-challenge"  # request header: a random value from the client
PROOF = "x-recall-proof"  # response header: HMAC-SHA256 of the challenge with the secret


@dataclass(frozen=True)
class ServerFile:
    pid: int
    url: str  # where a local client reaches it
    embedder: str  # a client with another embedder searches in-process
    secret: str

    def proves(self, challenge: str, answer: str | None) -> bool:
        return answer is not None and hmac.compare_digest(proof(self.secret, challenge), answer)


def proof(secret: str, challenge: str) -> str:
    return hmac.new(secret.encode(), challenge.encode(), hashlib.sha256).hexdigest()


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
        json.dump(asdict(info), out)
    os.replace(tmp, path)
    return info


def withdraw(home: Path, info: ServerFile) -> None:
    """Remove the file if it still names this server (another may have started since)."""
    path = home / FILE_NAME
    if find_file(path) == info:
        path.unlink(missing_ok=True)


def find(home: Path) -> ServerFile | None:
    """The server announced for `home`, if its file is sound and its process alive."""
    info = find_file(home / FILE_NAME)
    if info is None or not _alive(info.pid):
        return None
    return info


def find_file(path: Path) -> ServerFile | None:
    try:
        status = path.stat()
        if status.st_uid != os.getuid() or status.st_mode & 0o077:
            return None  # not written by us, or readable by others: not ours to trust
        raw = json.loads(path.read_text("utf-8"))
        return ServerFile(int(raw["pid"]), str(raw["url"]), str(raw["embedder"]),
                          str(raw["secret"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # another user's process reusing the number
    return True
