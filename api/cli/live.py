"""`recall session start|append|pause|resume|archive|list|show`: live sessions from the shell."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from api.cli.output import json_option, pass_service, print_json
from api.cli.read import show
from api.cli.writes import reads, writes
from models import STATUSES, InvalidInput

if TYPE_CHECKING:
    from api.service import RecallService
    from api.service.live import LiveSession
    from api.service.sessions import SessionSummary

__all__ = ["COMMANDS"]


@click.group()
def session() -> None:
    """Live sessions: start, append messages, pause, archive."""


@writes
@session.command()
@click.option("--title")
@click.option("--channel")
@click.option("--category", help="what kind of conversation (planning, debugging, ...)")
@click.option("--participant", "participants", multiple=True, help="who takes part (repeatable)")
@click.option("--id", "session_id", help="the session id (default: a new UUID)")
@json_option
@pass_service
def start(service: RecallService, title: str | None, channel: str | None, category: str | None,
          participants: tuple[str, ...], session_id: str | None, as_json: bool) -> int:
    """Start a live session; prints its id."""
    body = {k: v for k, v in (("session_id", session_id), ("title", title), ("channel", channel),
                              ("category", category),
                              ("participants", list(participants) or None)) if v is not None}
    started = service.live.start(body)
    if as_json:
        print_json(started)
    else:
        print(started.session_id)
    return 0


@writes
@session.command()
@click.argument("session_id", metavar="ID")
@click.argument("text", required=False)
@click.option("--role", default="user", help="role of TEXT (default user)")
@click.option("--speaker", help="who said TEXT")
@click.option("--file", "source", metavar="FILE",
              help="one {role, content, time?, id?} object per line ('-' for stdin): a batch")
@json_option
@pass_service
def append(service: RecallService, session_id: str, text: str | None, role: str,
           speaker: str | None, source: str | None, as_json: bool) -> int:
    """Append messages: TEXT, or JSON lines from --file."""
    result = service.live.append(session_id, _messages(text, role, speaker, source))
    if as_json:
        print_json(result)
    else:
        print(f"appended {result.appended} messages to {result.session_id} "
              f"({result.message_count} in all"
              + (f", {result.duplicates} already there" if result.duplicates else "")
              + (f", {sum(result.redacted.values())} secrets redacted" if result.redacted else "")
              + ")")
    return 0


@writes
@session.command()
@click.argument("session_id", metavar="ID")
@json_option
@pass_service
def pause(service: RecallService, session_id: str, as_json: bool) -> int:
    """Pause a live session (saves a snapshot to resume from)."""
    _print_status(service.live.set_status(session_id, "paused"), as_json)
    return 0


@writes
@session.command()
@click.argument("session_id", metavar="ID")
@json_option
@pass_service
def resume(service: RecallService, session_id: str, as_json: bool) -> int:
    """Make a paused or recovered session active again."""
    _print_status(service.live.set_status(session_id, "active"), as_json)
    return 0


@writes
@session.command()
@click.argument("session_id", metavar="ID")
@click.option("--summary", help="the summary to keep (default: one is made)")
@json_option
@pass_service
def archive(service: RecallService, session_id: str, summary: str | None, as_json: bool) -> int:
    """Archive a live session: final, it takes no more messages."""
    _print_status(service.live.set_status(session_id, "archived", summary), as_json)
    return 0


def _print_status(view: LiveSession, as_json: bool) -> None:
    if as_json:
        print_json(view)
    else:
        print(f"{view.session_id}: {view.status} ({view.message_count} messages)")


@reads
@session.command("list")
@click.option("--status", type=click.Choice(STATUSES))
@click.option("--category")
@click.option("--channel")
@click.option("--limit", type=int, default=50)
@json_option
@pass_service
def session_list(service: RecallService, status: str | None, category: str | None,
                 channel: str | None, limit: int, as_json: bool) -> int:
    """Sessions by status, category and channel, newest first."""
    page = service.list_sessions(status=status, category=category, channel=channel, limit=limit)
    if as_json:
        print_json(page)
        return 0
    for s in page.sessions:
        print(f"{s.session_id}  {s.date}  {s.status:<9}  {s.channel or '-'}  "
              f"{s.category or '-'}  {_message_count(s)}  {s.title or ''}".rstrip())
    print(f"{page.total} sessions", file=sys.stderr)
    return 0


def _message_count(s: SessionSummary) -> str:
    if s.trimmed is None:
        return f"{s.message_count} messages"
    return f"{s.message_count} of {s.trimmed.message_count} messages ({s.trimmed.tier} tier)"


session.add_command(show)  # `recall session show` is `recall show`


def _messages(text: str | None, role: str, speaker: str | None,
              source: str | None) -> list[dict[str, Any]]:
    if text is not None and source is None:
        message = {"role": role, "content": text}
        if speaker:
            message["speaker"] = speaker
        return [message]
    if text is not None or source is None:
        raise InvalidInput("give the message TEXT, or --file with JSON lines (not both)")
    stream = sys.stdin if source == "-" else open(source, encoding="utf-8")  # noqa: SIM115
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


COMMANDS = [session]
