"""The `recall` group: global options, the one service built for every command, and the exit
statuses (0 done, 1 a recall error, 2 a usage error, 130 interrupted)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence

import click

from api.cli import (
    archive,
    importing,
    live,
    maintenance,
    memories,
    read,
    recovery,
    secrets,
    serve,
    setup,
    storage,
    todos,
    tokens,
    watch,
    writes,
)
from api.cli.output import Run
from api.http.allocator import limit_arenas
from api.settings import Settings
from indexer.stores.faults import explain_fault
from models import RecallError

__all__ = ["cli", "main"]


class RecallGroup(click.Group):
    """The `recall` group: a fault of the machine in any command (a full disk, a read-only data
    directory, a damaged index) ends it with a clear message instead of a traceback; with
    RECALL_STORE set, a writing command ends by publishing (api/cli/storage.py); each writing
    command leaves a line in the audit log (api/cli/writes.py)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            try:
                result = super().invoke(ctx)
            except Exception:
                writes.audit_command(ctx, "error")
                raise
            writes.audit_command(ctx, "ok")
            storage.publish_after(ctx, ctx.find_object(Run))
            return result
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:
            run = ctx.find_object(Run)
            fault = explain_fault(exc, run.settings.home if run else None)
            if fault is None:
                raise
            raise fault from exc


@click.group(cls=RecallGroup,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--home", help="data directory (default: $RECALL_HOME or the per-user data dir)")
@click.option("--embedder", help="embedding model (default: $RECALL_EMBEDDER or e5)")
@click.option("-v", "--verbose", is_flag=True, help="log progress details")
@click.pass_context
def cli(ctx: click.Context, home: str | None, embedder: str | None, verbose: bool) -> None:
    """Search your archived conversations with AI assistants, in English and Chinese."""
    # before any command starts its threads: an import's Lance and Tantivy threads otherwise
    # keep freed memory in up to 16 arenas (api/http/allocator.py; 971 -> 713 MB peak at 10k)
    limit_arenas()
    _log_to_stderr(ctx, logging.INFO if verbose else logging.WARNING)
    ctx.obj = Run(Settings.from_env(home=home, embedder=embedder))


def _log_to_stderr(ctx: click.Context, level: int) -> None:
    """Log lines go to this run's stderr until the command ends (a process may run several
    commands: tests and scripts call `main` in-process)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(level)

    def restore() -> None:
        root.removeHandler(handler)
        root.setLevel(previous)

    ctx.call_on_close(restore)


for family in (archive, importing, watch, read, memories, recovery, live, todos, maintenance, serve, setup,
               secrets, storage, tokens):
    for command in family.COMMANDS:
        cli.add_command(command)


def main(argv: Sequence[str] | None = None) -> int:
    # everything recall writes (the archive, indexes, tokens, the audit log, exports) is its
    # user's alone: files 0600, folders 0700
    umask = os.umask(0o077)
    try:
        return _run(argv)
    finally:
        os.umask(umask)


def _run(argv: Sequence[str] | None) -> int:
    try:
        code = cli.main(args=list(argv) if argv is not None else None, prog_name="recall",
                        standalone_mode=False)
    except click.ClickException as exc:  # a usage error: the message and how to get help
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:  # --help
        return exc.exit_code
    except click.Abort:  # Ctrl-C (click turns KeyboardInterrupt into Abort)
        print("recall: interrupted", file=sys.stderr)
        return 130
    except RecallError as exc:
        print(f"recall: {exc.detail}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("recall: interrupted", file=sys.stderr)
        return 130
    return code if isinstance(code, int) else 0
