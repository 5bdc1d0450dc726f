"""`recall session start|append|pause|resume|archive|list|show`: live sessions from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from api.service.core import RecallService
from models import STATUSES, InvalidInput

__all__ = ["add_session_parser", "cmd_session"]


def add_session_parser(sub: Any) -> None:
    p = sub.add_parser("session", help="live sessions: start, append messages, pause, archive")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")

    a = actions.add_parser("start", help="start a live session; prints its id")
    a.add_argument("--title")
    a.add_argument("--channel")
    a.add_argument("--category", help="what kind of conversation (planning, debugging, ...)")
    a.add_argument("--participant", action="append", default=[], dest="participants",
                   help="who takes part (repeatable)")
    a.add_argument("--id", dest="session_id", help="the session id (default: a new UUID)")
    a.add_argument("--json", action="store_true")

    a = actions.add_parser("append", help="append messages: TEXT, or JSON lines from --file")
    a.add_argument("session_id", metavar="ID")
    a.add_argument("text", nargs="?", help="the message text (one message)")
    a.add_argument("--role", default="user", help="role of TEXT (default user)")
    a.add_argument("--speaker", help="who said TEXT")
    a.add_argument("--file", metavar="FILE",
                   help="one {role, content, time?, id?} object per line ('-' for stdin): a batch")
    a.add_argument("--json", action="store_true")

    for name, what in (("pause", "pause a live session (saves a snapshot to resume from)"),
                       ("resume", "make a paused or recovered session active again"),
                       ("archive", "archive a live session: final, it takes no more messages")):
        a = actions.add_parser(name, help=what)
        a.add_argument("session_id", metavar="ID")
        if name == "archive":
            a.add_argument("--summary", help="the summary to keep (default: one is made)")
        a.add_argument("--json", action="store_true")

    a = actions.add_parser("list", help="sessions by status, category and channel, newest first")
    a.add_argument("--status", choices=STATUSES)
    a.add_argument("--category")
    a.add_argument("--channel")
    a.add_argument("--limit", type=int, default=50)
    a.add_argument("--json", action="store_true")

    a = actions.add_parser("show", help="a session within a token budget (summary, newest messages)")
    a.add_argument("session_id", metavar="ID")
    a.add_argument("--token-budget", type=int)
    a.add_argument("--json", action="store_true")


def cmd_session(service: RecallService, args: argparse.Namespace) -> int:
    if args.action == "start":
        body = {k: v for k, v in (("sessionId", args.session_id), ("title", args.title),
                                  ("channel", args.channel), ("category", args.category),
                                  ("participants", args.participants or None)) if v is not None}
        view = service.start_session(body)
        print(json.dumps(view, ensure_ascii=False) if args.json else view["session_id"])
        return 0
    if args.action == "append":
        result = service.append_messages(args.session_id, _messages(args))
        if args.json:
            print(json.dumps(result, ensure_ascii=False))
        else:
            print(f"appended {result['appended']} messages to {result['session_id']} "
                  f"({result['message_count']} in all"
                  + (f", {result['duplicates']} already there" if result["duplicates"] else "")
                  + (f", {sum(result['redacted'].values())} secrets redacted"
                     if result["redacted"] else "") + ")")
        return 0
    if args.action in ("pause", "resume", "archive"):
        status = {"pause": "paused", "resume": "active", "archive": "archived"}[args.action]
        view = service.set_session_status(args.session_id, status, getattr(args, "summary", None))
        if args.json:
            print(json.dumps(view, ensure_ascii=False))
        else:
            print(f"{view['session_id']}: {view['status']} ({view['message_count']} messages)")
        return 0
    if args.action == "list":
        page = service.list_sessions(status=args.status, category=args.category,
                                     channel=args.channel, limit=args.limit)
        if args.json:
            print(json.dumps(page, ensure_ascii=False))
            return 0
        for s in page["sessions"]:
            print(f"{s['session_id']}  {s['date']}  {s['status']:<9}  {s['channel'] or '-'}  "
                  f"{s['category'] or '-'}  {s['message_count']} messages  {s['title'] or ''}".rstrip())
        print(f"{page['total']} sessions", file=sys.stderr)
        return 0
    from api.cli.commands import cmd_show  # `recall session show` is `recall show`

    return cmd_show(service, args)


def _messages(args: argparse.Namespace) -> list[dict[str, Any]]:
    if (args.text is None) == (args.file is None):
        raise InvalidInput("give the message TEXT, or --file with JSON lines (not both)")
    if args.text is not None:
        message = {"role": args.role, "content": args.text}
        if args.speaker:
            message["speaker"] = args.speaker
        return [message]
    stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    messages = []
    with stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                messages.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"line {number} is not JSON: {exc}") from None
    return messages
