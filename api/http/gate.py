"""The front door: what every request passes before routing, whoever sends it.

A server on loopback is reachable from every web page its user opens. A page cannot read
another origin's answers, but it can send "simple" requests (a form POST, a `no-cors` fetch with
a `text/plain` body) that need no preflight, and with DNS rebinding it can point a name of its
own at 127.0.0.1 and read what comes back under that name. So, for every request:

- its path is normalized (`//`, `/./`, `/../`) before routing and auditing see it;
- `Host` must name this server (421): a loopback name or address, the bound address, or a name
  in RECALL_ALLOWED_HOSTS;
- a request that may change something (any method but GET, HEAD and OPTIONS) that a browser
  marks as sent from a page must come from this server's own origin (403);
- a body must be JSON (415): a browser sends JSON across origins only after a preflight, which
  this server never grants.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from litestar.types import Scope

__all__ = ["AllowedHosts", "Refusal", "check_request", "normalize_path"]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True, slots=True)
class Refusal:
    status: int
    detail: str


class AllowedHosts:
    """The names a request's Host may give: loopback names and addresses (`*.localhost` too:
    browsers resolve it to loopback themselves, so no page can rebind it), the address the
    server is bound to and, bound to every interface, this machine's own names and any IP
    address; plus what RECALL_ALLOWED_HOSTS lists (`*` for any, `.example.com` for that domain
    and every name under it)."""

    def __init__(self, bind: str, extra: Iterable[str] = ()) -> None:
        self.bind = _bare(bind)
        self.names = {_bare(name) for name in extra if name.strip() and name.strip() != "*"}
        self.any = any(name.strip() == "*" for name in extra)
        self.wildcard = self.bind in WILDCARD_BINDS
        if self.wildcard:
            self.names |= {_bare(socket.gethostname()), _bare(socket.getfqdn())}
        elif self.bind:
            self.names.add(self.bind)

    @classmethod
    def parse(cls, bind: str, setting: str | None) -> AllowedHosts:
        return cls(bind, (setting or "").split(","))

    def allows(self, host: str) -> bool:
        if self.any:
            return True
        if host == "localhost" or host.endswith(".localhost") or host in self.names:
            return True
        if any(name.startswith(".") and (host.endswith(name) or host == name[1:])
               for name in self.names):
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        # an address names no one's domain, so no page can rebind it
        return address.is_loopback or self.wildcard


def check_request(scope: Scope, hosts: AllowedHosts) -> Refusal | None:
    """Why this request is refused before routing, or None to let it in."""
    headers = _headers(scope)
    host_header = headers.get("host", "")
    host, port = _split_host(host_header)
    # no Host at all is an HTTP/1.0 client (a health checker): browsers always send one, so
    # what rebinding needs is never missing
    if host_header.strip() and not hosts.allows(host):
        return Refusal(421, f"Host {host_header[:100]!r} does not name this server; to reach it "
                            "under that name, add the name to RECALL_ALLOWED_HOSTS")
    method = scope.get("method", "GET")
    if method in SAFE_METHODS:
        return None
    refused = _cross_site(headers, host, port)
    if refused:
        return Refusal(403, f"{method} from {refused} refused: a change may only come from "
                            "this server's own page or from a client that is not a browser")
    if _has_body(headers) and not _is_json(headers.get("content-type", "")):
        return Refusal(415, "a request body must be JSON: send 'Content-Type: application/json'")
    return None


def normalize_path(scope: Scope) -> None:
    """Collapse `//`, `/./` and `/../` in the request's path, in place: routing, guards and the
    audit log then all see the path the router serves."""
    path = scope.get("path", "")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    normal = "/" + "/".join(parts) + ("/" if parts and path.endswith("/") else "")
    if normal != path:
        scope["path"] = normal
    # the raw path is what a mounted app's caller (and the audit log) reads the whole path from;
    # %2F and the like are decoded in `path` already, so the two agree again
    scope["raw_path"] = quote(normal, safe="/:@!$&'()*+,;=-._~").encode()


def _cross_site(headers: dict[str, str], host: str, port: int | None) -> str | None:
    """The origin a browser says a request comes from, when that is not this server."""
    site = headers.get("sec-fetch-site")
    if site in ("cross-site", "same-site"):  # same-site: another port of localhost, say
        return f"a {site} page ({headers.get('origin', 'no Origin')[:100]})"
    origin = headers.get("origin")
    if origin is None:
        return None  # not sent by a browser page: a command line, an agent, a script
    parts = urlsplit(origin)
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return f"origin {origin[:100]!r}"  # "null": a sandboxed frame, a file
    default = DEFAULT_PORTS[parts.scheme]
    try:
        origin_port = parts.port or default
    except ValueError:
        return f"origin {origin[:100]!r}"
    if _bare(parts.hostname) != host or origin_port != (port or default):
        return f"origin {origin[:100]!r}"
    return None


def _headers(scope: Scope) -> dict[str, str]:
    # a header sent twice counts once, as its first value: a second Host or Origin cannot
    # override what was checked
    found: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        found.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return found


def _split_host(header: str) -> tuple[str, int | None]:
    """(name, port) of a Host header: `[::1]:8765`, `localhost`, `Example.COM.:80`."""
    header = header.strip()
    if header.startswith("["):
        name, _, rest = header[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        name, _, port = header.rpartition(":") if header.count(":") == 1 else (header, "", "")
    return _bare(name), int(port) if port.isdigit() else None


def _bare(name: str) -> str:
    return name.strip().strip("[]").rstrip(".").lower()


def _has_body(headers: dict[str, str]) -> bool:
    length = headers.get("content-length", "")
    return (length.isdigit() and int(length) > 0) or "transfer-encoding" in headers


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/")
                                            and media.endswith("+json"))
