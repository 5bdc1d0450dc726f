"""`recall todo add|done|reopen|list|promote`: todos for a day, a week or a month."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from api.cli.output import json_option, pass_service, print_json
from api.cli.writes import reads, writes
from models.todo import TODO_PERIODS, Todo

if TYPE_CHECKING:
    from api.service import RecallService

__all__ = ["COMMANDS", "todo_line"]

PERIOD = click.Choice(TODO_PERIODS)


def todo_line(t: Todo) -> str:
    mark = "[x]" if t.status == "done" else "[ ]"
    when = t.period_date if t.period == "day" else \
        f"week of {t.period_date}" if t.period == "week" else t.period_date[:7]
    source = f"  (from {t.source_session_id})" if t.source_session_id else ""
    return f"{mark} {t.id}  {when}  {t.content}{source}"


def _print(todos: list[Todo], as_json: bool, one: bool = False) -> None:
    if as_json:
        print_json(todos[0] if one else todos)
    else:
        for t in todos:
            print(todo_line(t))


@click.group()
def todo() -> None:
    """Todos for a day, a week or a month."""


@writes
@todo.command()
@click.argument("content")
@click.option("--period", type=PERIOD, default="week",
              help="day, week (Monday to Sunday) or month (default week)")
@click.option("--date", "day", help="a day inside the period, YYYY-MM-DD (default today)")
@click.option("--session", help="link it to this session")
@click.option("--memory", help="link it to this memory (and its session)")
@json_option
@pass_service
def add(service: RecallService, content: str, period: str, day: str | None, session: str | None,
        memory: str | None, as_json: bool) -> int:
    """Add a todo: CONTENT is what to do."""
    added = service.todos.add(content, period, day, source_session_id=session,
                              source_memory_id=memory)
    _print([added], as_json, one=True)
    return 0


@writes
@todo.command()
@click.argument("todo_ids", nargs=-1, required=True, metavar="ID...")
@json_option
@pass_service
def done(service: RecallService, todo_ids: tuple[str, ...], as_json: bool) -> int:
    """Mark todos done."""
    _print([service.todos.complete(todo_id) for todo_id in todo_ids], as_json)
    return 0


@writes
@todo.command()
@click.argument("todo_ids", nargs=-1, required=True, metavar="ID...")
@json_option
@pass_service
def reopen(service: RecallService, todo_ids: tuple[str, ...], as_json: bool) -> int:
    """Mark done todos open again."""
    _print([service.todos.reopen(todo_id) for todo_id in todo_ids], as_json)
    return 0


@reads
@todo.command("list")
@click.option("--period", type=PERIOD, help="only todos of this period")
@click.option("--date", "day",
              help="todos whose period holds this day (with --period: only that period's)")
@click.option("--status", type=click.Choice(["open", "done", "all"]), default="open",
              help="open (default), done or all")
@click.option("--limit", type=int, default=100, help="at most this many (default 100)")
@json_option
@pass_service
def todo_list(service: RecallService, period: str | None, day: str | None, status: str,
              limit: int, as_json: bool) -> int:
    """List todos."""
    page = service.todos.listing(period, day, status, limit=limit)
    if as_json:
        print_json(page)
        return 0
    for t in page.todos:
        print(todo_line(t))
    shown = len(page.todos)
    more = f" (showing {shown})" if shown < page.total else ""
    kind = "" if status == "all" else f"{status} "
    print(f"{page.total} {kind}todos{more}")
    return 0


@writes
@todo.command()
@click.argument("memory_ids", nargs=-1, required=True, metavar="MEMORY_ID...")
@click.option("--period", type=PERIOD,
              help="default: day when the task has a due date, else week")
@click.option("--date", "day", help="a day inside the period (default: the due date, else today)")
@json_option
@pass_service
def promote(service: RecallService, memory_ids: tuple[str, ...], period: str | None,
            day: str | None, as_json: bool) -> int:
    """Make todos of extracted tasks.

    MEMORY_ID: a task memory's id, from `recall memories ID --json` or `recall digest
    --json`. Promoting a task again gives the todo made the first time."""
    promoted = []
    for memory_id in memory_ids:
        result = service.todos.promote(memory_id, period, day)
        if not result.created and not as_json:
            print(f"already a todo: {result.todo.id}")
        promoted.append(result.todo)
    _print(promoted, as_json)
    return 0


COMMANDS = [todo]
