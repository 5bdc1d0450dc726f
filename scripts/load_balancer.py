"""A real HTTP load balancer in front of several `recall serve` processes: Debian's haproxy.

    python scripts/load_balancer.py --port 8700 --server 127.0.0.1:8765 --server 127.0.0.1:8766

runs haproxy in the foreground (Ctrl-C stops it) with the configuration `config()` writes:
round robin over the servers, each checked on /healthz twice a second and taken out after two
failed checks; a request whose server dies before answering (refused, reset, no response) is
sent again to another server, so a client does not see a server killed mid-load. Every answer
says which server gave it (`X-Served-By`). `--print` only prints the configuration.

The tests and benchmarks/load_balancer.py use `start()`. Needs the Debian package haproxy
(`make lb` installs it). Standard library only.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

CHECK_EVERY_MS = 500  # a dead server is out after FALL checks: at most about a second
FALL, RISE = 2, 2

CONFIG = """\
global
    maxconn 2000
    log stderr format raw local0 err

defaults
    mode http
    log global
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    timeout http-request 30s
    # a request whose server fails before answering goes to another one: up to 3 tries, the
    # next on another server (redispatch). Reads are safe to send again; an ingest of the same
    # record replaces it (by sessionId), so sending it twice stores it once.
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout
    option http-buffer-request

frontend recall
    bind {bind}
    default_backend recall_servers

backend recall_servers
    balance roundrobin
    # /healthz answers 200 without a token (the counts need one); 503 while a server is failing.
    # The check names a Host the server answers to, as a proxied client would (a check with no
    # Host at all is served too; one naming another host would get 421).
    option httpchk
    http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host localhost
    http-check expect status 200
    default-server check inter {check_ms}ms fall {fall} rise {rise}
    http-response set-header X-Served-By %s
{servers}
"""


def config(bind: str, servers: list[str]) -> str:
    lines = "\n".join(f"    server s{n} {address}" for n, address in enumerate(servers, 1))
    return CONFIG.format(bind=bind, servers=lines, check_ms=CHECK_EVERY_MS, fall=FALL, rise=RISE)


def haproxy() -> str:
    found = shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy", "/sbin/haproxy") if Path(p).exists()), None)
    if found is None:
        raise FileNotFoundError("haproxy is not installed: `make lb` (or apt-get install haproxy)")
    return found


def start(port: int, servers: list[str], workdir: Path, *,
          ready_timeout: float = 15.0) -> subprocess.Popen[bytes]:
    """haproxy on 127.0.0.1:port in front of `servers` (host:port each), its configuration and
    log in workdir; returns once it accepts connections. Stop it with terminate()."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "haproxy.cfg"
    path.write_text(config(f"127.0.0.1:{port}", servers))
    check = subprocess.run([haproxy(), "-c", "-q", "-f", str(path)], capture_output=True,
                           text=True, check=False)
    if check.returncode != 0:
        raise RuntimeError(f"haproxy rejects {path}: {check.stderr or check.stdout}")
    with open(workdir / "haproxy.log", "wb") as log:  # the process keeps its own copy
        proc = subprocess.Popen([haproxy(), "-db", "-f", str(path)], stdout=log, stderr=log)
    deadline = time.monotonic() + ready_timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"haproxy exited with {proc.returncode}: "
                               f"{(workdir / 'haproxy.log').read_text(errors='replace')}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise TimeoutError(f"haproxy did not listen on {port} within {ready_timeout:.0f}s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8700, help="where clients connect")
    parser.add_argument("--bind", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--server", action="append", required=True, metavar="HOST:PORT",
                        help="a `recall serve` to send requests to (repeat for each)")
    parser.add_argument("--print", action="store_true", help="print the configuration only")
    args = parser.parse_args(argv)
    text = config(f"{args.bind}:{args.port}", args.server)
    if args.print:
        print(text)
        return 0
    path = Path(f"/tmp/recall-haproxy-{args.port}.cfg")
    path.write_text(text)
    try:
        return subprocess.call([haproxy(), "-db", "-f", str(path)])
    except KeyboardInterrupt:
        return 0
    except FileNotFoundError as exc:
        print(f"load_balancer: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
