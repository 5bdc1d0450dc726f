"""Serving: `recall serve` (HTTP, with MCP at /mcp), `recall mcp` (stdio), `recall settings`."""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import sys
from typing import TYPE_CHECKING

import click

from api.cli.output import pass_service
from api.cli.writes import reads, writes
from api.settings import SETTINGS
from models import InvalidInput
from models.principal import DEFAULT_TENANT

if TYPE_CHECKING:
    from api.service import RecallService
    from api.service.remote import Following, Publishing

__all__ = ["COMMANDS"]


@reads
@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="address to bind (loopback only by default)")
@click.option("--port", type=int, default=8765, show_default=True)
@click.option("--insecure", is_flag=True,
              help="allow a non-loopback address without RECALL_API_TOKEN")
@click.option("--from", "follow", metavar="S3_URI",
              help="serve a read-only replica of what a writer publishes at s3://bucket/prefix, "
                   "kept in this data directory and switched as the writer publishes")
@pass_service
def serve(service: RecallService, host: str, port: int, insecure: bool, follow: str | None) -> int:
    """Serve the HTTP API (and MCP at /mcp).

    With RECALL_STORE set, it also publishes what its writes change; with --from, it follows
    another writer's publishes instead and refuses writes (docs/scale-out.md)."""
    import uvicorn  # only this command needs the server (malloc's arenas: api/cli/main.py)

    from api.http import create_app
    from api.http.auth import auth_required
    from api.http.discovery import announce, withdraw
    from api.http.memory_trace import start_from_env
    from api.http.server import server_config

    start_from_env(os.environ)  # RECALL_TRACEMALLOC: a soak's diagnostic, off by default

    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if service.tenant != DEFAULT_TENANT:
        raise InvalidInput("recall serve answers each request for its token's tenant "
                           "(docs/team-server.md): unset RECALL_TENANT to serve")
    auth = auth_required(service.settings.api_token, service.data.ensure())
    if not loopback and not auth and not insecure:
        raise InvalidInput(
            f"refusing to serve on {host} without a token: anyone who can reach it could read "
            "your conversations. Set RECALL_API_TOKEN (or make one with `recall tokens create`), "
            "or pass --insecure.")
    loop = object_storage(service, follow)  # before listening: a replica needs its first copy
    print(f"recall: serving {service.data.root} on http://{host}:{port} "
          f"(auth {'on' if auth else 'off'}"
          f"{f', following {follow}' if follow else ''})", file=sys.stderr)
    # Listening before announcing: the CLI on this data directory sends its searches here from
    # then on, and one sent while the model warms up waits in the queue instead of being refused.
    sock = listen(host, port)
    announced = announce(service.data.ensure().root, host, port, service.settings.embedder)
    # uvicorn stops gracefully on SIGTERM, then raises the signal again with the handler it found:
    # this one makes it an exit that runs the `finally` below (the writer lease released, a
    # replica's check-in withdrawn) instead of the default handler's instant death
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        if loop:
            loop.start()
        app = create_app(service.settings, service, host=host, announced=announced)
        uvicorn.Server(server_config(app, service.settings, host=host, port=port)).run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)
        if loop:
            loop.stop()
        withdraw(service.data.root, announced)
        sock.close()
    return 0


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # the status a shell reports for a process it ended so


def object_storage(service: RecallService, follow: str | None) -> Following | Publishing | None:
    """The loop that follows a store (--from) or publishes to one (RECALL_STORE), its first
    round done: a replica has its first copy; a writer holds the lease (another's: WriterBusy)."""
    from api.service.remote import Following, Publishing

    if follow:
        following = Following(service.data, service.settings, follow)
        following.step()
        service.replica_of = follow
        return following
    if service.settings.store:
        publishing = Publishing(service.data, service.settings)
        publishing.step()
        return publishing
    return None


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port, or a clear error (the port taken, say)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise InvalidInput(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    return sock


@writes
@click.command()
@pass_service
def mcp(service: RecallService) -> int:
    """Serve the MCP tools over stdio (for agents)."""
    from api.mcp import run_stdio

    run_stdio(service)
    return 0


@reads
@click.command()
@pass_service
def settings(service: RecallService) -> int:
    """List settings, their environment variables and values."""
    for setting in SETTINGS:
        value = getattr(service.settings, setting.name)
        if setting.secret and value:
            value = "(set)"  # never print a secret
        print(f"{setting.env:<29} = {value}\n    {setting.help}")
    return 0


COMMANDS = [serve, mcp, settings]
