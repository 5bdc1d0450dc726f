"""Filling and keeping the archive: `recall index`, `import`, `delete`, `reindex`, `check`, `stats`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from api.cli.output import json_option, pass_service, print_json
from api.cli.writes import AUDIT_META, reads, writes
from indexer.formats.common import DEFAULT_TOOL_CHARS, FORMAT_NAMES, ImportOptions
from models import InvalidInput
from search.dates import check_day

if TYPE_CHECKING:
    from api.service import RecallService
    from api.service.indexing import FileLedger, ImportPreview, IndexResult, Rejected
    from indexer.formats.sources import Rejection
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
        _print_files(report.files_read, report.passed_over)
        for r in report.rejected:
            print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
        print(f"indexed {report.indexed} sessions ({report.messages} messages), "
              f"{report.unchanged} unchanged, {len(report.rejected)} rejected, "
              f"{sum(report.redacted.values())} secrets redacted, in {report.seconds:.1f}s"
              + _older(report))
    if missing and not report.files:
        return 1
    if not report.files:  # nothing to do is not a failure (a new or emptied inbox)
        print("recall: no transcript files found under " + ", ".join(map(str, paths)),
              file=sys.stderr)
        return 0
    nothing_read = report.indexed + report.unchanged == 0 and bool(report.rejected)
    return 1 if nothing_read or (strict and (report.rejected or missing)) else 0


@writes
@click.command("import")
@click.argument("fmt", metavar="[FORMAT]", type=click.Choice(FORMAT_NAMES), required=False)
@click.argument("paths", nargs=-1, type=PATHS, metavar="[PATH...]")
@click.option("--all", "every", is_flag=True,
              help="import every agent found in its default location (see `recall sources`)")
@click.option("--since", metavar="DATE",
              help="only sessions active on or after this date (2026-03-01, 2026-03)")
@click.option("--dry-run", is_flag=True, help="list what would be imported; write nothing")
@click.option("--tool-chars", type=int, default=DEFAULT_TOOL_CHARS, show_default=True,
              metavar="N", help="cut tool inputs and outputs to N characters")
@click.option("--thinking", is_flag=True, help="keep the assistant's thinking blocks")
@click.option("--strict", is_flag=True, help="exit non-zero if any file is rejected")
@click.option("--explain", "explain_path", type=PATHS, metavar="FILE",
              help="print the fate of each record of FILE (imported, merged, or left out and "
                   "why); write nothing")
@DELETED_OPTION
@json_option
@pass_service
def import_(service: RecallService, fmt: str | None, paths: tuple[Path, ...], every: bool,
            since: str | None, dry_run: bool, tool_chars: int, thinking: bool, strict: bool,
            explain_path: Path | None, deleted: bool, as_json: bool) -> int:
    """Import an agent's transcripts (see `recall sources` for the formats).

    Reads PATH, or without one, where FORMAT keeps its transcripts (e.g. ~/.claude/projects
    for claude-code, $CODEX_HOME/sessions and archived_sessions for codex). With --all, every
    agent found in its default location, with a report per agent. Each file read is listed
    with its sessions, messages and the records left out, by reason."""
    def options(name: str | None) -> ImportOptions:
        return ImportOptions(format=name, tool_chars=tool_chars, thinking=thinking,
                             since=check_day(since) if since else None, deleted=deleted)

    if tool_chars < 0:
        raise InvalidInput("--tool-chars must not be negative")
    if explain_path is not None:
        if every or paths:
            raise click.UsageError("--explain reads one FILE: give no PATH and no --all")
        return _explain(service, explain_path, options(fmt), as_json)
    if every == bool(fmt):
        raise click.UsageError("give a FORMAT or --all")
    if every and paths:
        raise click.UsageError("--all reads each agent's default location; give no PATH")

    if fmt:
        code, result = _import_format(service, fmt, paths, options(fmt), dry_run, strict, as_json)
        if as_json and result is not None:
            print_json(result)
        return code
    from indexer.formats.importer import find_sources

    codes, results = [], {}
    for source in find_sources():
        if not source.files:
            if not as_json:
                print(f"{source.format}: nothing found at {_places(source.found or source.missing)}")
            continue
        code, result = _import_format(service, source.format, (), options(source.format),
                                      dry_run, strict, as_json)
        codes.append(code)
        results[source.format] = result
    if as_json:
        print_json(results)
    if not codes:
        print("recall: no agent's transcripts found in their default locations "
              "(see `recall sources`)", file=sys.stderr)
        return 1
    return max(codes)


def _import_format(service: RecallService, fmt: str, paths: tuple[Path, ...],
                   options: ImportOptions, dry_run: bool, strict: bool,
                   as_json: bool) -> tuple[int, object]:
    """One format's import (or dry run): its exit code and its report; the report is printed
    here unless it is wanted as JSON."""
    import msgspec

    from api.service.indexing import Rejected
    from indexer.formats.importer import candidate_files, default_paths

    roots = list(paths) or default_paths(fmt)
    missing = [p for p in roots if not p.exists()]
    if not paths:  # a format may keep transcripts in several places; one is enough
        if len(missing) == len(roots):
            raise InvalidInput(f"no {fmt} transcripts at {' or '.join(map(str, missing))} "
                               "(give a PATH)")
        roots, missing = [p for p in roots if p.exists()], []
    for path in missing:
        print(f"recall: no such file or folder: {path}", file=sys.stderr)
    passed_over: list[Rejection] = []
    files = candidate_files(fmt, [p for p in roots if p.exists()], passed_over)
    passed = [Rejected(r.path, r.reason) for r in passed_over]
    if not files:
        print(f"recall: no {fmt} transcripts found under "
              f"{', '.join(str(p) for p in roots)}", file=sys.stderr)
        return 1, None
    if dry_run:
        planned = msgspec.structs.replace(service.preview_import(fmt, files, options),
                                          passed_over=passed)
        if not as_json:
            _print_preview(planned, options.since)
        nothing_read = not (planned.sessions or planned.older_than_since or planned.empty)
        return (1 if nothing_read or (strict and (planned.rejected or missing)) else 0), planned
    report = msgspec.structs.replace(service.index(files, options), passed_over=passed)
    if not as_json:
        _print_files(report.files_read, report.passed_over)
        for r in report.rejected:
            print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
        print(f"{fmt}: read {report.files} files; indexed {report.indexed} sessions "
              f"({report.messages} messages), {report.unchanged} unchanged, "
              f"{len(report.rejected)} rejected, {sum(report.redacted.values())} secrets redacted, "
              f"in {report.seconds:.1f}s" + _older(report))
    nothing_read = report.indexed + report.unchanged == 0 and bool(report.rejected)
    return (1 if nothing_read or (strict and (report.rejected or missing)) else 0), report


@reads
@click.command()
@json_option
def sources(as_json: bool) -> int:
    """Where each supported agent keeps its transcripts on this machine: the default
    locations found, how many transcript files are there, and when the newest was written."""
    from indexer.formats.importer import find_sources

    found = find_sources()
    if as_json:
        print_json(found)
        return 0
    for s in found:
        if s.files:
            print(f"{s.format:<12} {s.files:>6} files  newest {s.newest}  {', '.join(s.found)}")
        else:
            print(f"{s.format:<12}      -          not found  {_places(s.found or s.missing)}")
    return 0


def _places(paths: list[str], shown: int = 2) -> str:
    """A few of an agent's default locations: editors' extensions have dozens (every editor,
    every platform's layout); `--json` lists them all."""
    more = f" (and {len(paths) - shown} more places)" if len(paths) > shown else ""
    return ", ".join(paths[:shown]) + more


def _print_preview(planned: ImportPreview, since: str | None) -> None:
    for s in planned.sessions:
        left_out = ", ".join(f"{n}× {reason}" for reason, n in s.skipped.items())
        print(f"{s.session_id}  {s.date}  {s.messages} messages  {s.title or ''}".rstrip())
        print(f"    {s.file}" + (f"  (left out: {left_out})" if left_out else ""))
    _print_files(planned.files_read, planned.passed_over)
    for r in planned.rejected:
        print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
    older = f", {planned.older_than_since} older than {since}" if since else ""
    print(f"would import {len(planned.sessions)} sessions ({planned.messages} messages) from "
          f"{planned.files} files: {len(planned.empty)} with nothing to import, "
          f"{len(planned.rejected)} rejected{older}; nothing written")


PASSED_OVER_SHOWN = 10


def _print_files(files: list[FileLedger], passed_over: list[Rejected]) -> None:
    """Each file read: its sessions and messages, and what became of its records; then the
    files passed over by name or shape (the first few: --json lists them all)."""
    for f in files:
        counts = (f"{_many(f.sessions, 'session')}, {_many(f.messages, 'message')}"
                  if f.outcome == "read" else f"{f.outcome}: {f.reason}")
        print(f"  {f.path}: {counts}")
        left = sum(f.left_out.values())
        if f.merged or left:  # every record imported is what the line above says
            print(f"      {f.records} records: {f.imported} imported, {f.merged} merged, "
                  f"{left} left out" + (f" ({_counts(f.left_out)})" if left else ""))
        if f.parts_left_out:
            print(f"      parts left out: {_counts(f.parts_left_out)}")
        if f.repaired:
            print(f"      repaired: {_counts(f.repaired)}")
    for r in passed_over[:PASSED_OVER_SHOWN]:
        print(f"  passed over {r.path}: {r.reason}")
    if len(passed_over) > PASSED_OVER_SHOWN:
        print(f"  passed over {len(passed_over) - PASSED_OVER_SHOWN} more files "
              "(--json lists them all)")


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _counts(by_reason: dict[str, int]) -> str:
    return ", ".join(f"{n}× {reason}" for reason, n in
                     sorted(by_reason.items(), key=lambda item: -item[1]))


def _explain(service: RecallService, path: Path, options: ImportOptions, as_json: bool) -> int:
    """`recall import [FORMAT] --explain FILE`: each record's fate; nothing is written."""
    explained = service.explain_import(path, options)
    if as_json:
        print_json(explained)
        return 0 if explained.reason is None else 1
    for fate in explained.fates:
        print(f"{fate.where:>16}  {fate.fate}" + (f": {fate.reason}" if fate.reason else ""))
    t = explained.totals
    left = sum(t.left_out.values())
    print(f"{t.records} records: {t.imported} imported, {t.merged} merged, {left} left out"
          + (f" ({_counts(t.left_out)})" if left else ""))
    if t.parts_left_out:
        print(f"parts left out: {_counts(t.parts_left_out)}")
    if t.repaired:
        print(f"repaired: {_counts(t.repaired)}")
    for s in explained.sessions:
        print(f"session {s.session_id}  {s.date}  {s.messages} messages  {s.title or ''}".rstrip())
    if explained.reason:
        print(f"recall: {path}: {explained.reason}", file=sys.stderr)
        return 1
    return 0


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


def _older(report: IndexResult) -> str:
    return (f"; {report.older_copies} older copies of sessions already read left out"
            if report.older_copies else "")


COMMANDS = [index, import_, sources, delete, restore, reindex, check, stats]

