"""Memories: `recall memories` of a session, the `digest` of a period, and `relevance`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from api.cli.output import Run, greedy, json_option, pass_run, pass_service, print_json
from api.cli.running_server import RunningServer, no_server_option, running_server
from api.cli.todos import todo_line
from api.cli.writes import reads, writes
from api.service.limits import MAX_LISTED
from models import InvalidInput

if TYPE_CHECKING:
    from api.service import RecallService
    from api.service.relevance import MemoryRelevanceOut

__all__ = ["COMMANDS"]


@reads
@click.command(cls=greedy("--types"))
@click.argument("session_id", metavar="ID")
@click.option("--types", multiple=True, metavar="TYPE...",
              help="only these types: user, feedback, project, reference")
@click.option("--refine", is_flag=True,
              help="let the LLM endpoint (RECALL_LLM_URL) revise them; not stored")
@no_server_option
@json_option
@pass_run
def memories(run: Run, session_id: str, types: tuple[str, ...], refine: bool, no_server: bool,
             as_json: bool) -> int:
    """Typed memories of a session (user, feedback, project, reference)."""
    from api.service.memories import MemoriesPayload

    payload = None
    # refining asks the LLM endpoint of this process's settings, so it stays here
    if not refine and (server := running_server(run.settings, no_server)):
        payload = server.post(RunningServer.session_path(session_id, "memories"),
                              {"types": list(types) or None}, MemoriesPayload)
    if payload is None:
        payload = run.service.memories.extract(session_id, types or None, refine=refine)
    if as_json:
        print_json(payload)
        return 0
    if payload.refine_error:
        print(f"not refined ({payload.refine_error}); rule-based memories:", file=sys.stderr)
    for m in payload.memories:
        due = f" (due {m.due_date})" if m.due_date else ""
        print(f"[{m.type}/{m.kind or '-'} {m.confidence:.2f}] {m.text}{due}")
        if m.superseded_by:
            print(f"    ! superseded on {m.superseded_by.date} by {m.superseded_by.session_id}: "
                  f"{m.superseded_by.text}")
    return 0


@reads
@click.command()
@click.option("--period", type=click.Choice(["day", "week", "month"]), default="week",
              show_default=True)
@click.option("--date", "day", metavar="DATE", help="a day inside the period (default: today)")
@json_option
@pass_service
def digest(service: RecallService, period: str, day: str | None, as_json: bool) -> int:
    """Topics, open tasks and daily activity for a day, week or month."""
    d = service.digest(period, day)
    if as_json:
        print_json(d)
        return 0
    print(f"{d.period} {d.start} .. {d.end}: {d.sessions} sessions, {d.messages} messages")
    if d.topics:
        print("topics: " + ", ".join(f"{t.topic} ({t.sessions})" for t in d.topics))
    for task in d.open_tasks:
        print(f"open task: {task.text}" + (f" (due {task.due_date})" if task.due_date else "")
              + (f" [superseded on {task.superseded_by.date}: {task.superseded_by.text}]"
                 if task.superseded_by else ""))
    for fact in d.changes:
        if fact.superseded_by:
            print(f"changed on {fact.superseded_by.date}: {fact.text} → {fact.superseded_by.text}")
    for todo in d.todos:
        print(f"todo {todo_line(todo)}")
    for day_ in d.activity:
        print(f"{day_.date}  {day_.sessions} sessions  {day_.line}")
    return 0


@click.group()
def relevance() -> None:
    """Memory relevance: list, decay, prune.

    See docs/memory-relevance.md."""


@reads
@relevance.command("list")
@click.option("--session", metavar="ID", help="only this session's memories")
@click.option("--limit", type=int, default=50, help=f"how many (default 50, at most {MAX_LISTED})")
@click.option("--offset", type=int, default=0)
@json_option
@pass_service
def relevance_list(service: RecallService, session: str | None, limit: int, offset: int,
                   as_json: bool) -> int:
    """Memories with their relevance now, most relevant first."""
    out = service.relevance.listing(limit=limit, offset=offset, session_id=session)
    if as_json:
        print_json(out)
        return 0
    p = out.policy
    for m in out.memories:
        print(_line(m))
    print(f"{len(out.memories)} of {out.total} memories as of {out.as_of} (decay "
          f"{p.decay_rate}/day toward {p.floor}, boost {p.boost}, max "
          f"{p.max_memories or 'unlimited'}); {out.pruned_total} pruned")
    return 0


@writes
@relevance.command()
@json_option
@pass_service
def decay(service: RecallService, as_json: bool) -> int:
    """Write every memory's decayed relevance down.

    Reads compute the decay anyway; this also drops the rows of memories that are gone."""
    out = service.relevance.decay()
    if as_json:
        print_json(out)
    else:
        print(f"wrote the relevance of {out.updated} memories as of {out.as_of}; "
              f"dropped {out.dropped} rows of memories that no longer exist")
    return 0


@writes
@relevance.command()
@click.option("--max", "max_memories", type=int, metavar="N",
              help="keep at most N memories (default: $RECALL_RELEVANCE_MAX_MEMORIES)")
@click.option("--dry-run", is_flag=True, help="list what would go; remove nothing")
@json_option
@pass_service
def prune(service: RecallService, max_memories: int | None, dry_run: bool, as_json: bool) -> int:
    """Remove the least relevant memories.

    Keeps at most --max memories (default: the setting), listing every one removed."""
    if max_memories is not None and max_memories < 0:
        raise InvalidInput("--max must not be negative")
    out = service.relevance.prune(dry_run=dry_run, max_memories=max_memories)
    if as_json:
        print_json(out)
        return 0
    verb = "would prune" if out.dry_run else "pruned"
    for m in out.pruned:
        print(f"{verb} {_line(m)}")
    print(f"{verb} {len(out.pruned)} memories: {out.memories_before} -> "
          f"{out.memories_after} (max {out.max_memories})"
          + ("; nothing removed" if out.dry_run else ""))
    return 0


@reads
@relevance.command()
@click.option("--session", metavar="ID", help="only this session's")
@json_option
@pass_service
def pruned(service: RecallService, session: str | None, as_json: bool) -> int:
    """Memories pruning removed (kept out of reindexing)."""
    out = service.relevance.pruned(session)
    if as_json:
        print_json(out)
        return 0
    for m in out.pruned:
        print(f"{m.pruned_at}  {m.relevance:.3f}  [{m.type}] {m.id}\n       {m.text}")
    print(f"{len(out.pruned)} pruned memories")
    return 0


def _line(m: MemoryRelevanceOut) -> str:
    used = f", used {m.access_count}x, last {m.last_accessed}" if m.access_count else ""
    return f"{m.relevance:.3f}  [{m.type}] {m.id}{used}\n       {m.text}"


@reads
@click.command()
@click.option("--subject", metavar="WORDS", help="only statements holding at least half of these words")
@click.option("--current", "when", flag_value="current", help="only what stands now")
@click.option("--history", "when", flag_value="history",
              help="each chain of changes, oldest to newest")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@no_server_option
@json_option
@pass_run
def facts(run: Run, subject: str | None, when: str | None, limit: int, no_server: bool,
          as_json: bool) -> int:
    """Decisions and values, each current or superseded by a later one (and why)."""
    from api.service.facts import FactsPayload

    payload = None
    if server := running_server(run.settings, no_server):
        payload = server.get("/facts", {"subject": subject, "when": when, "limit": limit},
                             FactsPayload)
    if payload is None:
        payload = run.service.facts.list(subject, when, limit)
    if as_json:
        print_json(payload)
        return 0
    if not payload.facts and not payload.chains:
        print("no facts" + (f" about {subject!r}" if subject else ""), file=sys.stderr)
        return 0
    for chain in payload.chains:
        for n, fact in enumerate(chain):
            mark = "now " if n == len(chain) - 1 else "    "
            print(f"{mark}{fact.valid_from}  {fact.text}")
            if fact.maybe_superseded_by and fact.reason:
                print(f"      ↓ maybe ({fact.confidence:.2f}, too unsure to mark it superseded): "
                      f"{fact.reason}")
            elif fact.reason:
                print(f"      ↓ {fact.reason}")
        print()
    for fact in payload.facts:
        print(f"{fact.valid_from}  [{fact.status}] {fact.text}")
        if fact.superseded_by:
            print(f"      superseded on {fact.superseded_by.date} by: {fact.superseded_by.text}"
                  f"  ({fact.reason})")
    return 0


COMMANDS = [memories, digest, relevance, facts]
