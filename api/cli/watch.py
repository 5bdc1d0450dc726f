"""`recall watch`: keep archiving transcripts as they are written (polling; Ctrl-C to stop)."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from api.cli.output import pass_service
from api.cli.writes import writes
from indexer.formats.common import FORMAT_NAMES
from models import InvalidInput

if TYPE_CHECKING:
    from api.service import RecallService
    from indexer.ingest.watch import WatchRound

__all__ = ["COMMANDS"]


@writes
@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path), metavar="[PATH...]")
@click.option("--format", "fmt", type=click.Choice(FORMAT_NAMES),
              help="read only this format (default: recognize each file by content)")
@click.option("--once", is_flag=True, help="one pass, then exit (for cron and tests)")
@click.option("--interval", type=float, default=1.0, show_default=True, metavar="SECONDS",
              help="seconds between passes")
@click.option("--quiet", type=float, default=2.0, show_default=True, metavar="SECONDS",
              help="a file is read once unchanged for this long")
@pass_service
def watch(service: RecallService, paths: tuple[Path, ...], fmt: str | None, once: bool,
          interval: float, quiet: float) -> int:
    """Keep archiving transcripts as they are written.

    Watches PATH, or with --format and no PATH, where that format keeps its transcripts; a
    file is read once it has been quiet for --quiet seconds. Ctrl-C stops after the pass."""
    from indexer.formats import ImportOptions
    from indexer.formats.importer import candidate_files, default_paths
    from indexer.formats.sources import discover
    from indexer.ingest.progress import silent_progress
    from indexer.ingest.watch import Watcher

    if interval <= 0 or quiet < 0:
        raise InvalidInput("--interval must be positive and --quiet not negative")
    if not paths and not fmt:
        raise InvalidInput("give a PATH to watch, or --format FORMAT for its default location")
    roots = list(paths) or default_paths(str(fmt))
    for path in roots:
        if not path.exists():  # may appear later: the tool has not written anything yet
            print(f"recall watch: {path} does not exist yet; watching for it", file=sys.stderr)

    def list_files() -> list[Path]:
        present = [p for p in roots if p.exists()]
        return candidate_files(fmt, present) if fmt else list(discover(present))

    ingestor = service.ingestor(ImportOptions(format=fmt))
    ingestor.progress = silent_progress  # one line per pass instead of a bar
    watcher = Watcher(list_files, ingestor.index_paths, quiet=quiet, interval=interval,
                      home=service.data.root)
    told: list[str | None] = [None]  # the fault last told, so a lasting one is told once

    def report(done: WatchRound) -> None:
        stamp = time.strftime("%H:%M:%S")
        if done.fault and done.fault != told[0]:
            print(f"{stamp} {done.fault} The files wait for the next pass.", file=sys.stderr,
                  flush=True)
        if done.fault or done.report:  # told again only after a pass that got through
            told[0] = done.fault
        for rejection in [*(done.report.rejected if done.report else []), *done.failed]:
            print(f"{stamp} rejected {rejection.path}: {rejection.reason}", file=sys.stderr)
        if done.busy:
            print(f"{stamp} another writer is busy; retrying next pass", file=sys.stderr)
        if done.report and (done.report.indexed or done.report.rejected or done.failed):
            r = done.report
            print(f"{stamp} read {len(done.ingested)} files: indexed {r.indexed} sessions "
                  f"({r.messages} messages), {r.unchanged} unchanged, "
                  f"{len(r.rejected) + len(done.failed)} rejected in {r.seconds:.1f}s",
                  file=sys.stderr, flush=True)
        if once and done.waiting:
            print(f"{stamp} {done.waiting} files still being written; left for the next pass",
                  file=sys.stderr)

    if once:
        done = watcher.poll()
        report(done)
        print(f"watched {done.seen} files: {len(done.ingested)} read, {done.waiting} still being "
              f"written", file=sys.stderr)
        failed = len(done.failed) + (len(done.report.rejected) if done.report else 0)
        readable = done.report.indexed + done.report.unchanged if done.report else 0
        return 1 if failed and not readable else 0

    def stop(signum: int, frame: object) -> None:
        if watcher.stopping.is_set():  # a second Ctrl-C: stop now; ingest is crash-safe
            raise KeyboardInterrupt
        print("recall watch: stopping after this pass", file=sys.stderr, flush=True)
        watcher.stop()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    print(f"recall watch: watching {', '.join(str(p) for p in roots)} every {interval:g}s "
          f"(files are read once quiet for {quiet:g}s); Ctrl-C to stop",
          file=sys.stderr, flush=True)
    try:
        watcher.run(report)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("recall watch: stopped", file=sys.stderr)
    return 0


COMMANDS = [watch]
