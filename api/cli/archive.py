"""Filling and keeping the archive: `recall index`, `import`, `delete`, `reindex`, `check`, `stats`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from api.cli.output import json_option, pass_service, print_json
from api.cli.reports import print_files
from api.cli.writes import AUDIT_META, reads, writes
from indexer.formats.common import ImportOptions
from models import InvalidInput

if TYPE_CHECKING:
    from api.service import RecallService
    from api.service.indexing import IndexResult
    from indexer.ingest.compute import BatchComputer

__all__ = ["COMMANDS"]

PATHS = click.Path(path_type=Path)


def ray_options(command: Callable[..., int]) -> Callable[..., int]:
    """--ray [ADDRESS] and --ray-workers N: compute the batches on a Ray cluster."""
    command = click.option(
        "--ray-workers", type=click.IntRange(min=1), default=None, metavar="N",
        help="Ray worker processes (default: one per CPU of the cluster, or per GPU)")(command)
    return click.option(
        "--ray", "ray_address", is_flag=False, flag_value="local", default=None,
        metavar="[ADDRESS]",
        help="compute on a Ray cluster (memories, keyword analysis, embeddings), writing here; "
             "without ADDRESS a local Ray instance is started (docs/scale-out.md)")(command)


@contextmanager
def computing(service: RecallService, address: str | None,
              workers: int | None) -> Iterator[BatchComputer | None]:
    """The Ray computer the options ask for, started and stopped around the work; else None."""
    if address is None and workers is None:
        yield None
        return
    with service.ray_computer(None if address in (None, "local") else address,
                              workers) as computer:
        yield computer


DELETED_OPTION = click.option(
    "--deleted", is_flag=True,
    help="also read transcripts the agent marked deleted (OpenClaw's <id>.jsonl.deleted.<time>); "
         "without it they are listed as left out")


@writes
@click.command()
@click.argument("paths", nargs=-1, required=True, type=PATHS, metavar="PATH...")
@click.option("--strict", is_flag=True, help="exit non-zero if any file is rejected")
@DELETED_OPTION
@ray_options
@json_option
@pass_service
def index(service: RecallService, paths: tuple[Path, ...], strict: bool, deleted: bool,
          ray_address: str | None, ray_workers: int | None, as_json: bool) -> int:
    """Ingest session files and folders.

    Reads *.json, *.jsonl, SQLite databases and .aider.chat.history.md under each PATH; the
    format (archive JSON, JSONL, or an agent's transcript) is found by content. Unchanged files
    are skipped; bad files are reported and quarantined, and the batch goes on. Each file read
    is listed with its sessions, messages and the records left out, by reason."""
    missing = [str(p) for p in paths if not p.exists()]
    for path in missing:
        print(f"recall: no such file or folder: {path}", file=sys.stderr)
    options = ImportOptions(deleted=True) if deleted else None
    with computing(service, ray_address, ray_workers) as computer:
        report = service.index([p for p in paths if p.exists()], options, computer=computer)
    if as_json:
        print_json(report)
    else:
        print_files(report.files_read, report.passed_over)
        for r in report.rejected:
            print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
        print(f"indexed {report.indexed} sessions ({report.messages} messages), "
              f"{report.unchanged} unchanged, {len(report.rejected)} rejected, "
              f"{sum(report.redacted.values())} secrets redacted, in {report.seconds:.1f}s"
              + older_copies(report))
    if missing and not report.files:
        return 1
    if not report.files:  # nothing to do is not a failure (a new or emptied inbox)
        print("recall: no transcript files found under " + ", ".join(map(str, paths)),
              file=sys.stderr)
        return 0
    nothing_read = report.indexed + report.unchanged == 0 and bool(report.rejected)
    return 1 if nothing_read or (strict and (report.rejected or missing)) else 0


@writes
@click.command()
@click.argument("session_ids", nargs=-1, metavar="[ID...]")
@click.option("--purge", is_flag=True,
              help="then rewrite the indexes and state so no file still holds deleted text "
                   "(copies the whole index: minutes on a large archive)")
@pass_service
def delete(service: RecallService, session_ids: tuple[str, ...], purge: bool) -> int:
    """Remove sessions from the archive and both indexes."""
    if not session_ids and not purge:
        raise InvalidInput("name the sessions to delete, or pass --purge alone to purge "
                           "what earlier deletes left in the index files")
    click.get_current_context().meta[AUDIT_META] = (
        "delete --purge" if purge else "delete", list(session_ids))
    for session_id in session_ids:
        service.delete(session_id)
        print(f"deleted {session_id}")
    if purge:
        copied = service.maintenance.purge()
        print(f"purged: copied {copied.keyword_documents} keyword documents and "
              f"{copied.vector_rows} vectors into fresh files; older files removed")
        if service.settings.store:  # and from object storage: every object an older publish needed
            report = service.publish(purge=True)
            print(f"purged {report.removed} older objects from {service.settings.store}")
    return 0


@writes
@click.command()
@click.argument("session_id")
@click.option("--list", "listing", is_flag=True, help="list the kept versions; restore nothing")
@click.option("--version", type=int, metavar="N",
              help="restore this version (from --list) instead of the newest kept")
@json_option
@pass_service
def restore(service: RecallService, session_id: str, listing: bool, version: int | None,
            as_json: bool) -> int:
    """Bring back a version of a session that a write replaced.

    A write that drops or changes a session's stored messages keeps the version it replaced
    for RECALL_KEEP_REPLACED_DAYS. This makes the newest kept version (or --version N) the
    session again; the version it replaces is kept in turn, so running it again undoes it."""
    if listing:
        found = service.versions.list(session_id)
        if as_json:
            print_json(found)
            return 0
        for v in found.versions:
            print(f"{v.version}  replaced {v.replaced_at}  {v.messages} messages  "
                  f"{v.title or ''}".rstrip())
        if not found.versions:
            print(f"no replaced version of {session_id} is kept "
                  f"(kept for {found.keep_days:g} days)", file=sys.stderr)
        return 0
    click.get_current_context().meta[AUDIT_META] = ("restore", [session_id])
    restored = service.versions.restore(session_id, version)
    if as_json:
        print_json(restored)
    else:
        print(f"restored {session_id} to version {restored.restored_version} "
              f"({restored.messages} messages)"
              + ("; the version it replaced is kept: restore again to undo"
                 if restored.kept_current else ""))
    return 0


@writes
@click.command()
@ray_options
@json_option
@pass_service
def reindex(service: RecallService, ray_address: str | None, ray_workers: int | None,
            as_json: bool) -> int:
    """Rebuild both indexes from the archive, switching atomically."""
    with computing(service, ray_address, ray_workers) as computer:
        report = service.maintenance.reindex(computer)
    if as_json:
        print_json(report)
    else:
        print(f"reindexed {report.indexed} sessions in {report.seconds:.1f}s "
              f"with embedder {service.embedder.name}")
        for r in report.rejected:
            print(f"skipped {r.path}: {r.reason}", file=sys.stderr)
    return 0


@writes
@click.command()
@click.option("--repair", is_flag=True, help="fix what differs from the archive, then check again")
@json_option
@pass_service
def check(service: RecallService, repair: bool, as_json: bool) -> int:
    """Verify that archive, indexes and memories agree.

    Compares the archive, the state database, both indexes and the stored memories, session by
    session. Exit status 1 while any difference remains (after --repair: any it could not
    fix)."""
    from api.service.maintenance import RepairReport

    report = service.maintenance.repair() if repair else service.maintenance.check()
    if as_json:
        print_json(report)
    else:
        if isinstance(report, RepairReport):
            for d in report.found or []:
                print(f"found {d.session_id or '(index)'}: {d.kind}: {d.detail}")
        if isinstance(report, RepairReport) and report.repaired:
            fixed = report.repaired
            print("rebuilt the index from the archive" if fixed.rebuilt
                  else f"re-indexed {fixed.sessions} sessions from the archive")
        for d in report.differences:
            print(f"{d.session_id or '(index)'}: {d.kind}: {d.detail}")
        state = "consistent" if report.ok else f"{len(report.differences)} differences"
        print(f"checked {report.sessions} sessions, {report.keyword_documents} keyword "
              f"documents, {report.vector_passages} vector passages: {state}")
    return 0 if report.ok else 1


@reads
@click.command()
@json_option
@pass_service
def stats(service: RecallService, as_json: bool) -> int:
    """What is archived and indexed."""
    s = service.stats()
    if as_json:
        print_json(s, indent=1)
        return 0
    print(f"data dir:   {s.home}")
    print(f"sessions:   {s.sessions}  messages: {s.messages}")
    if s.first_date:
        print(f"dates:      {s.first_date} .. {s.last_date}")
    channels = ", ".join(f"{name or '-'} {count}" for name, count in s.channels.items())
    print(f"channels:   {channels}")
    if s.index:
        ix = s.index
        print(f"index:      {ix.generation}, embedder {ix.embedder} ({ix.dim}d), "
              f"{ix.keyword_documents} keyword docs, {ix.vector_passages} passages, "
              f"{ix.disk_bytes / 1e6:.1f} MB")
    if s.unfinished:
        print(f"unfinished: {s.unfinished} (the next `recall index` finishes them)")
    if s.quarantined:
        print(f"quarantine: {s.quarantined} rejected files")
    return 0


def older_copies(report: IndexResult) -> str:
    return (f"; {report.older_copies} older copies of sessions already read left out"
            if report.older_copies else "")


COMMANDS = [index, delete, restore, reindex, check, stats]

