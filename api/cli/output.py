"""What every command shares: the one --json option, JSON output of the service's records, and
options that take several values after one flag."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click
import msgspec

from api.service import RecallService

__all__ = ["greedy", "json_option", "pass_service", "print_json"]

F = TypeVar("F", bound=Callable[..., Any])

# the group callback puts the one service on the context (api/cli/main.py)
pass_service = click.make_pass_decorator(RecallService)


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
