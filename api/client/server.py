"""How a client on this machine finds the `recall serve` of its data directory and asks it: a file
the server writes when it starts listening and removes when it stops (`<home>/server.json`,
readable by its owner only, api/http/discovery.py), naming its process, its address, its
embedder and a secret. A client uses a server only when the process is alive, the file is its
owner's own, and the answer proves the server holds the secret (an HMAC of a fresh challenge), so
a stale file or another program on the port is never used.

Standard library only, and no module that costs much to import (no http.client: it loads the
email parser and ssl): `recall search` reads this before anything else."""

from __future__ import annotations

import _socket
import importlib
import json
import os
import sys
from _operator import _compare_digest as compare_digest  # hmac.compare_digest, without OpenSSL

# Python's own small SHA-256 module (`_sha256`, `_sha2` from 3.12) and the socket module's C core:
# `hmac`/`hashlib` load OpenSSL's libcrypto and `socket` builds its enums and loads `selectors`,
# about 9 ms of CPU together, on a search that should take 60 ms in all.
# tests/test_fast_search.py checks the HMAC against the hmac module.
_sha256 = importlib.import_module("_sha2" if sys.version_info >= (3, 12) else "_sha256").sha256

__all__ = ["CHALLENGE", "FILE_NAME", "PROOF", "TIMEOUT", "Reply", "ServerFile", "ask", "find",
           "find_file", "proof"]

FILE_NAME = "server.json"
CHALLENGE = "x-recall-challenge"  # request header: a random value from the client
PROOF = "x-recall-proof"  # response header: HMAC-SHA256 of the challenge with the secret
# a search on a busy server can take a while; a server that is not there fails at once
TIMEOUT = 120.0


class ServerFile:
    """What a server announced: its process, where a local client reaches it, its embedder (a
    client with another embedder searches in-process) and its secret."""

    __slots__ = ("embedder", "pid", "secret", "url")

    def __init__(self, pid: int, url: str, embedder: str, secret: str) -> None:
        self.pid, self.url, self.embedder, self.secret = pid, url, embedder, secret

    def as_dict(self) -> dict[str, object]:
        return {"pid": self.pid, "url": self.url, "embedder": self.embedder, "secret": self.secret}

    def proves(self, challenge: str, answer: str | None) -> bool:
        return answer is not None and compare_digest(proof(self.secret, challenge), answer)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ServerFile) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash((self.pid, self.url, self.embedder, self.secret))

    def __repr__(self) -> str:
        return f"ServerFile(pid={self.pid}, url={self.url!r}, embedder={self.embedder!r})"


def proof(secret: str, challenge: str) -> str:
    """HMAC-SHA256 of the challenge with the secret, in hex (RFC 2104)."""
    key = secret.encode()
    if len(key) > _BLOCK:
        key = _sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = _sha256(bytes(b ^ 0x36 for b in key) + challenge.encode()).digest()
    return str(_sha256(bytes(b ^ 0x5C for b in key) + inner).hexdigest())


_BLOCK = 64  # SHA-256's block size in bytes


def find(home: str | os.PathLike[str]) -> ServerFile | None:
    """The server announced for `home`, if its file is sound and its process alive."""
    info = find_file(os.path.join(home, FILE_NAME))
    if info is None or not _alive(info.pid):
        return None
    return info


def find_file(path: str | os.PathLike[str]) -> ServerFile | None:
    try:
        status = os.stat(path)
        if status.st_uid != os.getuid() or status.st_mode & 0o077:
            return None  # not written by us, or readable by others: not ours to trust
        with open(path, encoding="utf-8") as file:
            raw = json.load(file)
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


class Reply:
    """The server's answer: its status, its body, and whether it proved it is the server."""

    __slots__ = ("body", "proven", "status")

    def __init__(self, status: int, body: bytes, proven: bool) -> None:
        self.status, self.body, self.proven = status, body, proven


def ask(server: ServerFile, token: str | None, method: str, target: str,
        body: bytes | None = None, timeout: float = TIMEOUT) -> Reply:
    """One HTTP/1.1 request to the server, with the headers http.client sent before (Host,
    Accept-Encoding, the challenge, Accept, the bearer token) and `Connection: close`. Raises
    OSError when the server cannot be reached, ValueError when its answer is not HTTP."""
    host, port = address(server.url)
    challenge = os.urandom(16).hex()
    named = f"[{host}]" if ":" in host else host
    headers = [("Host", named if port == 80 else f"{named}:{port}"), ("Accept-Encoding", "identity")]
    if body is not None:
        headers.append(("Content-Length", str(len(body))))
    headers += [(CHALLENGE, challenge), ("Accept", "application/json")]
    if token:
        headers.append(("Authorization", f"Bearer {token}"))
    if body is not None:
        headers.append(("Content-Type", "application/json"))
    headers.append(("Connection", "close"))  # one request: the server closes, nothing lingers
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
    sock = _socket.socket(_socket.AF_INET6 if ":" in host else _socket.AF_INET,
                          _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect((host, port))  # a name is resolved here too
        sock.sendall(head.encode("latin-1") + b"\r\n" + (body or b""))
        status, answer_headers, payload = _read_response(sock)
    finally:
        sock.close()
    return Reply(status, payload, server.proves(challenge, answer_headers.get(PROOF)))


def address(url: str) -> tuple[str, int]:
    """Host and port of an announced `http://host:port` (`http://[v6]:port`)."""
    if not url.startswith("http://"):
        raise ValueError(f"not an http:// address: {url!r}")
    host, _, port = url[len("http://"):].rstrip("/").rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or not port.isdigit():
        raise ValueError(f"no host and port in {url!r}")
    return host.lower(), int(port)


def _read_response(sock: _socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Status, headers (lower-case names) and body of one response: by its Content-Length,
    else chunked, else up to the end of the connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ValueError("the connection closed before the response's headers")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    version, _, code = status_line.partition(" ")
    if not version.startswith("HTTP/1."):
        raise ValueError(f"not an HTTP response: {status_line!r}")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = headers.get("content-length")
    chunked = "chunked" in headers.get("transfer-encoding", "").lower()
    while (length is None or len(rest) < int(length)) and (chunk := sock.recv(65536)):
        rest += chunk  # a body without a length ends with the connection
    if length is not None:
        if len(rest) < int(length):
            raise ValueError("the connection closed inside the response's body")
        return int(code[:3]), headers, rest[:int(length)]
    return int(code[:3]), headers, _unchunk(rest) if chunked else rest


def _unchunk(data: bytes) -> bytes:
    body = b""
    while True:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return body
        if len(data) < size + 2:
            raise ValueError("a chunk of the response's body is cut short")
        body, data = body + data[:size], data[size + 2:]
