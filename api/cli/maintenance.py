"""Dropping old data on purpose: `recall retention` (lighter tiers) and `recall cleanup`
(deletes); both are dry runs unless --apply."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from api.cli.output import json_option, pass_service, print_json
from api.cli.writes import writes

if TYPE_CHECKING:
    from api.service import RecallService

__all__ = ["COMMANDS"]

F = TypeVar("F", bound=Callable[..., Any])


def dry_run_or_apply(dry_run: str, apply: str) -> Callable[[F], F]:
    """--dry-run (the default) and --apply, which exclude each other."""

    def decorate(fn: F) -> F:
        fn = click.option("--apply", is_flag=True, help=apply)(fn)
        return click.option("--dry-run", is_flag=True, help=f"{dry_run} (the default)")(fn)

    return decorate


def _apply(dry_run: bool, apply: bool) -> bool:
    if dry_run and apply:
        raise click.UsageError("--apply is not allowed with --dry-run")
    return apply


@writes
@click.command()
@dry_run_or_apply("list what would move and what it drops; write nothing",
                  "do it: what is dropped is gone")
@click.option("--full-days", type=int, metavar="N",
              help="sessions inactive longer lose their messages "
                   "(default: $RECALL_RETENTION_FULL_DAYS)")
@click.option("--summary-days", type=int, metavar="N",
              help="sessions inactive longer are compressed "
                   "(default: $RECALL_RETENTION_SUMMARY_DAYS)")
@click.option("--as-of", metavar="DATE", help="count ages up to this day (default: today)")
@json_option
@pass_service
def retention(service: RecallService, dry_run: bool, apply: bool, full_days: int | None,
              summary_days: int | None, as_of: str | None, as_json: bool) -> int:
    """Move old sessions to lighter tiers.

    Sessions inactive longer than the full days keep their summary and memories but lose
    their messages; longer than the summary days they are compressed. A dry run unless
    --apply; off unless a policy is given here or in the settings."""
    result = service.maintenance.retention(full_days=full_days, summary_days=summary_days,
                                           apply=_apply(dry_run, apply), today=as_of)
    if as_json:
        print_json(result)
        return 0
    if not result.enabled:
        print("retention is off: nothing is ever dropped. Set RECALL_RETENTION_FULL_DAYS / "
              "RECALL_RETENTION_SUMMARY_DAYS or pass --full-days / --summary-days.")
        return 0
    for s in result.sessions:
        built = "; a summary is built from the first user line and key memories" \
            if s.summary_built else ""
        print(f"{s.session_id}  {s.date}  last active {s.last_activity}  "
              f"{s.tier} -> {s.target}: drops {', '.join(s.drops)}{built}")
    what = (f"{len(result.sessions)} sessions, {result.messages_dropped} messages, "
            f"{result.characters_dropped} characters")
    if apply:
        print(f"moved {result.applied or 0} sessions to lighter tiers ({what} dropped); "
              "summaries and memories stay searchable")
    else:
        print(f"would move {what} (full {result.full_days} days, summary "
              f"{result.summary_days} days, as of {result.as_of}); nothing written. "
              "Run with --apply to do it.")
    return 0


@writes
@click.command()
@click.option("--older-than", metavar="AGE",
              help="sessions inactive longer than this: 90d, 12w or 90 (days)")
@click.option("--category", "categories", multiple=True, metavar="NAME",
              help="only sessions of this category (repeatable)")
@click.option("--channel", "channels", multiple=True, metavar="NAME",
              help="only sessions from this channel (repeatable)")
@click.option("--keep-snapshots", type=int, metavar="N",
              help="keep only the newest N snapshots of every session")
@dry_run_or_apply("list what would be deleted; delete nothing", "delete it")
@click.option("--as-of", metavar="DATE", help="count ages up to this day (default: today)")
@json_option
@pass_service
def cleanup(service: RecallService, older_than: str | None, categories: tuple[str, ...],
            channels: tuple[str, ...], keep_snapshots: int | None, dry_run: bool, apply: bool,
            as_of: str | None, as_json: bool) -> int:
    """Delete old sessions and old snapshots.

    Sessions inactive longer than --older-than (optionally only of some categories or
    channels), and snapshots beyond the newest --keep-snapshots of each session. A dry run
    unless --apply."""
    report = service.maintenance.cleanup(
        older_than=older_than, categories=categories, channels=channels,
        keep_snapshots=keep_snapshots, apply=_apply(dry_run, apply), today=as_of)
    if as_json:
        print_json(report)
        return 0
    for s in report.sessions:
        extra = [f"{s.snapshots} snapshots"] if s.snapshots else []
        if s.promoted_todos:
            extra.append(f"{s.promoted_todos} promoted todos")
        print(f"{s.session_id}  {s.date}  last active {s.last_activity}  "
              f"category {s.category or '-'}  channel {s.channel or '-'}  "
              f"{s.messages} messages" + (f", {', '.join(extra)}" if extra else ""))
    for p in report.snapshots:
        print(f"{p.session_id}  {p.deleted} snapshots beyond the newest {p.kept}")
    totals = report.totals
    what = (f"{totals.sessions} sessions ({totals.messages} messages), "
            f"{totals.snapshots} snapshots, {totals.promoted_todos} promoted todos")
    if report.applied:
        applied = report.applied
        print(f"deleted {len(applied.sessions)} sessions and {applied.snapshots_pruned} "
              "old snapshots" + (f"; left {len(applied.skipped)} that changed meanwhile"
                                 if applied.skipped else ""))
    else:
        print(f"would delete {what}; nothing deleted. Run with --apply to do it.")
    return 0


COMMANDS = [retention, cleanup]
