"""Importing agents' transcripts: `recall import FORMAT` (with its dry run and `--explain`) and
`recall sources`; `recall index` reads the same files found by content (api/cli/archive.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from api.cli.archive import DELETED_OPTION, PATHS, older_copies
from api.cli.output import json_option, pass_service, print_json
from api.cli.reports import counts, print_files
from api.cli.writes import reads, writes
from indexer.formats.common import DEFAULT_TOOL_CHARS, FORMAT_NAMES, ImportOptions
from models import InvalidInput
from search.dates import check_day

if TYPE_CHECKING:
    from api.service import RecallService
    from api.service.indexing import ImportPreview
    from indexer.formats.sources import Rejection

__all__ = ["COMMANDS"]


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
        _say_what_cannot_be_read(fmt)
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
        print_files(report.files_read, report.passed_over)
        for r in report.rejected:
            print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
        print(f"{fmt}: read {report.files} files; indexed {report.indexed} sessions "
              f"({report.messages} messages), {report.unchanged} unchanged, "
              f"{len(report.rejected)} rejected, {sum(report.redacted.values())} secrets redacted, "
              f"in {report.seconds:.1f}s" + older_copies(report))
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
        for u in s.unreadable:  # present, but not readable by recall: said, not passed over
            print(f"{'':<12} {u.files:>6} files  not readable: {u.what}  {u.folder}")
    return 0


def _say_what_cannot_be_read(fmt: str) -> None:
    """Files the agent keeps that recall cannot read (Windsurf's encrypted Cascade
    conversations), named on stderr rather than passed over in silence."""
    from indexer.formats.importer import unreadable_files

    for u in unreadable_files(fmt):
        print(f"recall: {u.files} {u.what} in {u.folder} cannot be read", file=sys.stderr)


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
    print_files(planned.files_read, planned.passed_over)
    for r in planned.rejected:
        print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
    older = f", {planned.older_than_since} older than {since}" if since else ""
    print(f"would import {len(planned.sessions)} sessions ({planned.messages} messages) from "
          f"{planned.files} files: {len(planned.empty)} with nothing to import, "
          f"{len(planned.rejected)} rejected{older}; nothing written")



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
          + (f" ({counts(t.left_out)})" if left else ""))
    if t.parts_left_out:
        print(f"parts left out: {counts(t.parts_left_out)}")
    if t.repaired:
        print(f"repaired: {counts(t.repaired)}")
    for s in explained.sessions:
        print(f"session {s.session_id}  {s.date}  {s.messages} messages  {s.title or ''}".rstrip())
    if explained.reason:
        print(f"recall: {path}: {explained.reason}", file=sys.stderr)
        return 1
    return 0


COMMANDS = [import_, sources]
