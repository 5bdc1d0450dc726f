"""Asking the `recall serve` of this data directory instead of loading the index and the model
(found and asked by api/client/server.py): the same request, the same typed answer. Whenever the
server cannot answer exactly as the command would (not running, not proven, another embedder,
an error), the command runs in-process instead, so the output never depends on which path
answered."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

import click
import msgspec

from api.client.server import ServerFile, ask, find
from api.settings import Settings
from models.principal import DEFAULT_TENANT

__all__ = ["RunningServer", "no_server_option", "running_server"]

log = logging.getLogger(__name__)

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def no_server_option(fn: F) -> F:
    return click.option("--no-server", is_flag=True,
                        help="answer in this process even when `recall serve` runs on this "
                             "data directory")(fn)


def running_server(settings: Settings, no_server: bool = False) -> RunningServer | None:
    """The running server of this data directory, if the command may use it."""
    if no_server or settings.tenant != DEFAULT_TENANT:  # the server acts for a token's tenant
        return None
    server = find(settings.home)
    if server is None:
        return None
    if server.embedder != settings.embedder:
        log.info("the server uses embedder %s, this command %s: answering in-process",
                 server.embedder, settings.embedder)
        return None
    return RunningServer(server, settings.api_token)


class RunningServer:
    def __init__(self, server: ServerFile, token: str | None) -> None:
        self.server = server
        self.token = token

    def get(self, path: str, params: dict[str, Any], answer: type[T]) -> T | None:
        query = urlencode({k: v for k, v in params.items() if v is not None})
        return self._request("GET", f"/v1{path}?{query}" if query else f"/v1{path}", None, answer)

    def post(self, path: str, body: dict[str, Any], answer: type[T]) -> T | None:
        return self._request("POST", f"/v1{path}", body, answer)

    @staticmethod
    def session_path(session_id: str, *rest: str) -> str:
        return "/".join(["/sessions", quote(session_id, safe=""), *rest])

    def _request(self, method: str, target: str, body: dict[str, Any] | None,
                 answer: type[T]) -> T | None:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode()
        try:
            reply = ask(self.server, self.token, method, target, data)
        except (OSError, ValueError) as exc:
            log.info("no answer from the server at %s (%s): answering in-process",
                     self.server.url, exc)
            return None
        if not reply.proven:
            log.warning("%s does not prove to be the server this data directory announced: "
                        "answering in-process", self.server.url)
            return None
        if reply.status not in (200, 201):
            # errors come from this process, worded exactly as the command words them
            log.info("the server answered %d: answering in-process", reply.status)
            return None
        return msgspec.json.decode(reply.body, type=answer)
