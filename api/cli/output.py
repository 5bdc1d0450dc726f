"""What every command shares: the run's settings and service, the one --json option, JSON
output of the service's records, and options that take several values after one flag."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import click
import msgspec

from api.settings import Settings

if TYPE_CHECKING:
    from api.service import RecallService

__all__ = ["Run", "greedy", "json_option", "pass_run", "pass_service", "print_json"]

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")


class Run:
    """What the group callback sets up for one command: the settings, and the service, built
    the first time a command asks for it (building it imports the indexes; `--help` and a
    search answered by a running server never do)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._service: RecallService | None = None

    @property
    def service_built(self) -> bool:
        return self._service is not None

    @property
    def service(self) -> RecallService:
        if self._service is None:
            from api.service import RecallService
            from indexer.ingest.progress import make_progress

            self._service = RecallService(self.settings, progress=make_progress)
        return self._service


def current_run() -> Run:
    run = click.get_current_context().find_object(Run)
    assert run is not None, "the recall group callback sets the run up"
    return run


def pass_run(fn: Callable[Concatenate[Run, P], R]) -> Callable[P, R]:
    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        return fn(current_run(), *args, **kwargs)

    return call


def pass_service(fn: Callable[Concatenate[RecallService, P], R]) -> Callable[P, R]:
    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        return fn(current_run().service, *args, **kwargs)

    return call


def json_option(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True,
                        help="print the result as JSON")(fn)


def print_json(value: Any, *, indent: int | None = None) -> None:
    """A service record (or plain data) as JSON on stdout: the shape HTTP and MCP answer."""
    click.echo(json.dumps(msgspec.to_builtins(value), ensure_ascii=False, indent=indent))


def greedy(*names: str) -> type[click.Command]:
    """A command class whose options `names` take every value up to the next option, as in
    `--types user project`, besides the repeated form `--types user --types project`."""

    class GreedyCommand(click.Command):
        def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
            return super().parse_args(ctx, _spread(args, names))

    return GreedyCommand


def _spread(args: Sequence[str], names: Sequence[str]) -> list[str]:
    out: list[str] = []
    current: str | None = None  # the greedy option whose values are being read
    for i, arg in enumerate(args):
        if arg == "--":
            return out + list(args[i:])
        if arg.startswith("-"):
            current = arg if arg in names else None
            out.append(arg)
        elif current and out[-1] != current:
            out += [current, arg]
        else:
            out.append(arg)
    return out
