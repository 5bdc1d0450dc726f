"""`recall todo add|done|reopen|list|promote` and `recall cleanup`."""

from __future__ import annotations

import argparse
import json
from typing import Any

import msgspec

from api.service.core import RecallService
from models.todo import TODO_PERIODS, Todo

__all__ = ["add_cleanup_parser", "add_todo_parser", "cmd_cleanup", "cmd_todo", "todo_line"]


def add_todo_parser(sub: Any) -> None:
    p = sub.add_parser("todo", help="todos for a day, week or month: add, done, reopen, list, promote")
    actions = p.add_subparsers(dest="todo_command", required=True, metavar="ACTION")

    a = actions.add_parser("add", help="add a todo")
    a.add_argument("content", help="what to do")
    a.add_argument("--period", choices=TODO_PERIODS, default="week",
                   help="day, week (Monday to Sunday) or month (default week)")
    a.add_argument("--date", help="a day inside the period, YYYY-MM-DD (default today)")
    a.add_argument("--session", help="link it to this session")
    a.add_argument("--memory", help="link it to this memory (and its session)")
    a.add_argument("--json", action="store_true")

    for name, text in (("done", "mark todos done"), ("reopen", "mark done todos open again")):
        a = actions.add_parser(name, help=text)
        a.add_argument("todo_ids", nargs="+", metavar="ID")
        a.add_argument("--json", action="store_true")

    a = actions.add_parser("list", help="list todos")
    a.add_argument("--period", choices=TODO_PERIODS, help="only todos of this period")
    a.add_argument("--date", help="todos whose period holds this day (with --period: only "
                                  "that period's)")
    a.add_argument("--status", choices=("open", "done", "all"), default="open",
                   help="open (default), done or all")
    a.add_argument("--limit", type=int, default=100, help="at most this many (default 100)")
    a.add_argument("--json", action="store_true")

    a = actions.add_parser("promote", help="make todos of tasks extracted from sessions "
                                           "(memory ids from `recall memories ID --json` or "
                                           "`recall digest --json`)")
    a.add_argument("memory_ids", nargs="+", metavar="MEMORY_ID")
    a.add_argument("--period", choices=TODO_PERIODS,
                   help="default: day when the task has a due date, else week")
    a.add_argument("--date", help="a day inside the period (default: the due date, else today)")
    a.add_argument("--json", action="store_true")


def todo_line(todo: Todo | dict[str, Any]) -> str:
    t = todo if isinstance(todo, dict) else msgspec.to_builtins(todo)
    mark = "[x]" if t["status"] == "done" else "[ ]"
    when = t["period_date"] if t["period"] == "day" else \
        f"week of {t['period_date']}" if t["period"] == "week" else t["period_date"][:7]
    source = f"  (from {t['source_session_id']})" if t.get("source_session_id") else ""
    return f"{mark} {t['id']}  {when}  {t['content']}{source}"


def cmd_todo(service: RecallService, args: argparse.Namespace) -> int:
    todos = service.todos
    action = args.todo_command
    if action == "list":
        page = todos.list(args.period, args.date, args.status, limit=args.limit)
        if args.json:
            print(json.dumps(page, ensure_ascii=False))
            return 0
        for t in page["todos"]:
            print(todo_line(t))
        shown = len(page["todos"])
        more = f" (showing {shown})" if shown < page["total"] else ""
        kind = "" if args.status == "all" else f"{args.status} "
        print(f"{page['total']} {kind}todos{more}")
        return 0
    if action == "add":
        done = [todos.add(args.content, args.period, args.date, source_session_id=args.session,
                          source_memory_id=args.memory)]
    elif action in ("done", "reopen"):
        change = todos.complete if action == "done" else todos.reopen
        done = [change(todo_id) for todo_id in args.todo_ids]
    else:  # promote
        done = []
        for memory_id in args.memory_ids:
            todo, created = todos.promote(memory_id, args.period, args.date)
            if not created and not args.json:
                print(f"already a todo: {todo.id}")
            done.append(todo)
    if args.json:
        out = [msgspec.to_builtins(t) for t in done]
        print(json.dumps(out[0] if action == "add" else out, ensure_ascii=False))
    else:
        for t in done:
            print(todo_line(t))
    return 0


def add_cleanup_parser(sub: Any) -> None:
    p = sub.add_parser("cleanup", help="delete old sessions (by category or channel) and old "
                                       "snapshots; a dry run unless --apply")
    p.add_argument("--older-than", metavar="AGE",
                   help="sessions inactive longer than this: 90d, 12w or 90 (days)")
    p.add_argument("--category", action="append", default=[], metavar="NAME",
                   help="only sessions of this category (repeatable)")
    p.add_argument("--channel", action="append", default=[], metavar="NAME",
                   help="only sessions from this channel (repeatable)")
    p.add_argument("--keep-snapshots", type=int, metavar="N",
                   help="keep only the newest N snapshots of every session")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true",
                      help="list what would be deleted; delete nothing (the default)")
    mode.add_argument("--apply", action="store_true", help="delete it")
    p.add_argument("--as-of", metavar="DATE", help="count ages up to this day (default: today)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")


def cmd_cleanup(service: RecallService, args: argparse.Namespace) -> int:
    report = service.cleanup(older_than=args.older_than, categories=args.category,
                             channels=args.channel, keep_snapshots=args.keep_snapshots,
                             apply=args.apply, today=args.as_of)
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
        return 0
    for s in report["sessions"]:
        extra = [f"{s['snapshots']} snapshots"] if s["snapshots"] else []
        if s["promoted_todos"]:
            extra.append(f"{s['promoted_todos']} promoted todos")
        print(f"{s['session_id']}  {s['date']}  last active {s['last_activity']}  "
              f"category {s['category'] or '-'}  channel {s['channel'] or '-'}  "
              f"{s['messages']} messages" + (f", {', '.join(extra)}" if extra else ""))
    for p in report["snapshots"]:
        print(f"{p['session_id']}  {p['deleted']} snapshots beyond the newest {p['kept']}")
    totals = report["totals"]
    what = (f"{totals['sessions']} sessions ({totals['messages']} messages), "
            f"{totals['snapshots']} snapshots, {totals['promoted_todos']} promoted todos")
    if "applied" in report:
        applied = report["applied"]
        print(f"deleted {len(applied['sessions'])} sessions and {applied['snapshots_pruned']} "
              "old snapshots" + (f"; left {len(applied['skipped'])} that changed meanwhile"
                                 if applied["skipped"] else ""))
    else:
        print(f"would delete {what}; nothing deleted. Run with --apply to do it.")
    return 0
