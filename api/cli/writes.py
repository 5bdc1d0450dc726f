"""Whether a command may change the data directory, declared on the command itself:

    @writes                 # index, delete, todo add, ...
    @click.command()
    def index(...): ...

Every command is `@writes` or `@reads` (tests/test_declarations.py finds any that is
neither). A writing command notes how the tenant's data directory looks before it runs; when it
ends, the group gives it an audit line if it changed anything or failed trying (a dry run or a
listing writes nothing and gets none), and, with RECALL_STORE set, publishes what changed.
"""

from __future__ import annotations

import functools
import getpass
import os
from typing import Any, TypeVar

import click

from api.cli.output import Run
from indexer.stores.audit import AuditLog
from indexer.stores.layout import DataDir

__all__ = ["AUDIT_META", "audit_command", "declared", "ran_a_writer", "reads", "writes"]

C = TypeVar("C", bound=click.Command)

# what a writing command names for its audit line, left in the click context's meta (shared by
# the group and its command): (action, session ids); without it the line has the command's name
AUDIT_META = "recall.audit"
_WRITES = "recall_writes"  # the attribute a declaration sets on its command
_RAN, _BEFORE = "recall.writer", "recall.audit.before"


def writes(command: C) -> C:
    """Declare that a command may change the data directory."""
    return _declare(command, writing=True)


def reads(command: C) -> C:
    """Declare that a command leaves the data directory as it is (its server, if it is one,
    audits and publishes each request itself)."""
    return _declare(command, writing=False)


def declared(command: click.Command) -> bool | None:
    """True for @writes, False for @reads, None for a command that declares nothing."""
    value = getattr(command, _WRITES, None)
    return value if isinstance(value, bool) else None


def ran_a_writer(ctx: click.Context) -> bool:
    """Whether the command this run invoked is a writing one."""
    return bool(ctx.meta.get(_RAN))


def _declare(command: C, writing: bool) -> C:
    setattr(command, _WRITES, writing)
    callback = command.callback
    if callback is None or not writing:
        return command

    @functools.wraps(callback)
    def run_writer(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        ctx.meta[_RAN] = True
        # the audit line's action unless the command names its own: `todo add`, `delete`
        ctx.meta.setdefault(AUDIT_META, (ctx.command_path.split(" ", 1)[-1], []))
        run = ctx.find_object(Run)
        if run is not None:
            ctx.meta[_BEFORE] = _tenant_data(run).fingerprint()
        return callback(*args, **kwargs)

    command.callback = run_writer
    return command


def audit_command(ctx: click.Context, outcome: str) -> None:
    """The audit line of a writing command that wrote to the data directory or failed trying:
    the machine's user who ran it, the tenant it acted for, what it did and the ids it named
    (never text)."""
    run = ctx.find_object(Run)
    if run is None or _BEFORE not in ctx.meta or not run.service_built:
        return
    if outcome == "ok" and _tenant_data(run).fingerprint() == ctx.meta[_BEFORE]:
        return
    action, targets = ctx.meta.get(AUDIT_META, (ctx.invoked_subcommand, []))
    AuditLog(DataDir(run.settings.home)).append(run.settings.tenant, f"cli:{_user()}",
                                                 f"cli {action}", targets, outcome)


def _tenant_data(run: Run) -> DataDir:
    return DataDir(run.settings.home).for_tenant(run.settings.tenant)


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name and no passwd entry (some containers)
        return f"uid {os.getuid()}"
