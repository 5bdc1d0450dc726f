"""The search options of `recall search`, made from SearchParams (api/service/search_params.py):
each one's type, limits, default and help come from there. `--when` is spelled `--current` and
`--history` here, and `--memories` is `--scope memories`: shorter to type, the same parameter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from api.service.search_params import OPTIONS, Param

__all__ = ["search_options"]

F = TypeVar("F", bound=Callable[..., Any])
METAVARS = {"date": "DATE", "since": "DATE", "until": "DATE", "channel": "NAME",
            "participant": "NAME", "role": "ROLE", "session": "ID"}
SPELLED_HERE = {"when"}  # --current / --history below


def search_options(command: F) -> F:
    """Add every search option to a click command (in the order SearchParams declares them)."""
    for param in reversed([p for p in OPTIONS if p.name not in SPELLED_HERE]):
        command = _option(param)(command)
    command = click.option("--history", "when", flag_value="history",
                           help="how things stood at first: of the sessions near the top, the "
                                "oldest first")(command)
    command = click.option("--current", "when", flag_value="current",
                           help="how things stand now: of the sessions near the top, the newest "
                                "first (a question with 'now', '现在' and the like does this by "
                                "itself)")(command)
    return click.option("--memories", is_flag=True,
                        help="search the memories extracted from sessions instead of the "
                             "messages (--scope memories)")(command)


def _option(param: Param) -> Callable[[F], F]:
    flag = "--" + param.name.replace("_", "-")
    if param.kind is bool:
        return click.option(flag, is_flag=True, default=None, help=param.description)
    kwargs: dict[str, Any] = {"help": param.description}
    if param.choices:
        kwargs["type"] = click.Choice(param.choices)
    elif param.kind is int:
        kwargs["type"] = int  # its range is checked with the rest (the same words everywhere)
    else:
        kwargs["metavar"] = METAVARS.get(param.name, "TEXT")
    if param.default is not None:
        kwargs |= {"default": param.default, "show_default": True}
    return click.option(flag, **kwargs)
