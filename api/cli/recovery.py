"""Saved states and resuming: `recall snapshot`, `snapshots`, `changes`, `recover`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
import msgspec

from api.cli.output import Run, json_option, pass_run, pass_service, print_json
from api.cli.running_server import no_server_option, running_server
from api.cli.writes import reads, writes
from models import InvalidInput, RecoveryDecision, recovery_options

if TYPE_CHECKING:
    from api.service import RecallService

__all__ = ["COMMANDS"]


@writes
@click.command()
@click.argument("session_id", metavar="ID")
@json_option
@pass_service
def snapshot(service: RecallService, session_id: str, as_json: bool) -> int:
    """Save a session's current state (its memories) as a snapshot."""
    saved = service.snapshots.create(session_id)
    if as_json:
        print_json(saved)
    else:
        print(f"saved {saved.id}: {len(saved.intents)} intents, {len(saved.facts)} facts, "
              f"{len(saved.tasks)} tasks")
    return 0


@reads
@click.command()
@click.argument("session_id", metavar="ID")
@click.option("--keep", type=int, help="delete all but the newest N first")
@click.option("--show", "shown", metavar="SNAPSHOT", help="print this snapshot instead of the list")
@click.option("--budget", type=int, help="with --show: compress it to about N tokens")
@json_option
@pass_service
def snapshots(service: RecallService, session_id: str, keep: int | None, shown: str | None,
              budget: int | None, as_json: bool) -> int:
    """List a session's snapshots (saved states)."""
    if shown:  # one snapshot is only ever printed as JSON
        one = service.snapshots.get(session_id, shown, budget)
        print(msgspec.json.format(msgspec.json.encode(one), indent=1).decode())
        return 0
    if budget is not None:
        raise InvalidInput("--budget needs --show SNAPSHOT")
    listed = service.snapshots.of(session_id, keep)
    if as_json:
        print_json(listed)
        return 0
    if not listed.snapshots:
        print(f"no snapshots for {session_id}")
    for s in listed.snapshots:
        open_tasks = sum(1 for t in s.tasks if t.is_open)
        print(f"{s.id}  {s.created_at}  {len(s.intents)} intents, {len(s.facts)} facts, "
              f"{open_tasks}/{len(s.tasks)} open tasks  {s.description}")
    return 0


@reads
@click.command()
@click.argument("session_id", metavar="ID")
@click.option("--snapshot", "since", metavar="SNAPSHOT",
              help="compare from this snapshot (default: the newest)")
@click.option("--against", metavar="SNAPSHOT",
              help="compare to this snapshot (default: the session's current state)")
@json_option
@pass_service
def changes(service: RecallService, session_id: str, since: str | None, against: str | None,
            as_json: bool) -> int:
    """What changed since a snapshot (intents, facts, tasks)."""
    report = service.snapshots.changes(session_id, since, against)
    if as_json:
        print_json(report)
        return 0
    print(f"{report.before_id} -> {report.after_id}: {report.severity}. {report.summary}")
    for change in (*report.intents, *report.facts, *report.tasks):
        print(f"  {change.kind:<14} {change.text}")
    for reason in report.reasons:
        print(f"  why: {reason}")
    for advice in report.recommendations:
        print(f"  advice: {advice}")
    return 0


@reads
@click.command()
@click.argument("session_id", metavar="ID")
@click.option("--context", help="what you want to resume now (ranks by relevance too)")
@click.option("--budget", type=int, help="compress the chosen snapshot to about N tokens")
@click.option("--window-hours", type=float,
              help="only snapshots this close to the newest (default 720; 0: no window)")
@click.option("--weight", "weights", multiple=True, metavar="PART=W",
              help="score weight: recency, completeness, relevance or freshness (repeatable)")
@no_server_option
@json_option
@pass_run
def recover(run: Run, session_id: str, context: str | None, budget: int | None,
            window_hours: float | None, weights: tuple[str, ...], no_server: bool,
            as_json: bool) -> int:
    """Choose the snapshot to resume a session from."""
    given: dict[str, object] = {}
    if window_hours is not None:
        given["time_window_hours"] = window_hours or None
    if weights:
        given["weights"] = dict(_weight(text) for text in weights)
    options = recovery_options(given)
    decision = None
    if server := running_server(run.settings, no_server):
        body = {"session_id": session_id, "context": context,
                "options": msgspec.to_builtins(options), "token_budget": budget}
        decision = server.post("/recovery", body, RecoveryDecision)
    if decision is None:
        decision = run.service.snapshots.recover(session_id, context, options=options,
                                                 token_budget=budget)
    if as_json:
        print_json(decision)
        return 0
    print(f"resume from {decision.selected.id} ({decision.selected.created_at}): "
          f"{decision.strategy}, confidence {decision.confidence:.2f}")
    for reason in decision.reasons:
        print(f"  - {reason}")
    for fact in decision.superseded_facts:
        if fact.superseded_by is not None:
            print(f"  ! superseded on {fact.superseded_by.date}: {fact.text} → "
                  f"{fact.superseded_by.text}")
    for alt in decision.alternatives:
        print(f"  alternative {alt.snapshot_id}: score {alt.score:.3f}")
    return 0


def _weight(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    try:
        return name.strip(), float(value)
    except ValueError:
        raise InvalidInput(f"--weight wants PART=NUMBER, not {text!r}") from None


COMMANDS = [snapshot, snapshots, changes, recover]
