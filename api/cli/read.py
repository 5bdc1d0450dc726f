"""Reading the archive: `recall search` (one query or a batch) and `recall show`."""

from __future__ import annotations

import json
import shlex
import sys
from typing import TYPE_CHECKING, Any

import click
import msgspec
from click.core import ParameterSource

from api.cli.output import Run, json_option, pass_run, print_json
from api.cli.running_server import RunningServer, no_server_option, running_server
from api.cli.search_options import search_options
from api.cli.writes import reads
from api.client.results import print_results
from api.client.search import wire_params
from api.service.search_params import search_params
from models import InvalidQuery, RecallError, SearchResponse

if TYPE_CHECKING:
    from api.service.sessions import ArchivedSession

__all__ = ["COMMANDS", "print_session", "show"]


@reads
@click.command()
@click.argument("query", required=False)
@click.option("--batch", metavar="FILE",
              help="JSON lines of queries ('-' for stdin); the options given here apply to "
                   "every line that does not set its own")
@search_options
@no_server_option
@json_option
@pass_run
@click.pass_context
def search(ctx: click.Context, run: Run, query: str | None, batch: str | None, memories: bool,
           no_server: bool, as_json: bool, **values: Any) -> int:
    """Search the archive.

    QUERY is words, a question or an identifier, in English or Chinese; quote phrases with
    "...". With --batch, one JSON object per line ({"query": ..., "qid": ..., and any option
    by name}) gives one JSON line out per line in. When `recall serve` runs on this data
    directory, the search is sent to it."""
    if memories:
        if values["scope"] not in (None, "memories"):
            raise click.UsageError(f"--memories is --scope memories, not --scope {values['scope']}")
        values["scope"] = "memories"
    if batch is not None:
        if query is not None:
            raise click.UsageError("give a QUERY or --batch FILE, not both")
        given = {k: v for k, v in values.items() if _given(ctx, k, v)}
        return _batch_search(run, running_server(run.settings, no_server), batch, given)
    if not query:
        raise InvalidQuery("give a QUERY or --batch FILE")
    response = _search(run, running_server(run.settings, no_server), values, query)
    if as_json:
        print_json(response)
    else:
        print_results(msgspec.to_builtins(response), sys.stdout)  # the fast client's printer
    return 0


def _given(ctx: click.Context, name: str, value: Any) -> bool:
    """Whether the option was given on the command line (a default applies to no line)."""
    if name in ("scope", "when"):  # set by --scope or --memories, by --current or --history
        return value is not None
    return ctx.get_parameter_source(name) is not ParameterSource.DEFAULT


def _search(run: Run, server: RunningServer | None, values: dict[str, Any], query: Any) -> SearchResponse:
    """The search, by the running server when there is one, else in this process."""
    params = search_params({**values, "query": query})  # checked here: the same errors either way
    if server is not None:
        answer = server.get("/search", wire_params(msgspec.to_builtins(params)), SearchResponse)
        if answer is not None:
            return answer
    return run.service.search(params.request())


def _batch_search(run: Run, server: RunningServer | None, source: str, given: dict[str, Any]) -> int:
    """One JSON line out per line in: the response with its qid, or the error."""
    stream = sys.stdin if source == "-" else open(source, encoding="utf-8")  # noqa: SIM115
    failures = 0
    with stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            qid: Any = None
            out: dict[str, Any]
            try:
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise InvalidQuery("each line must be a JSON object")
                qid = item.pop("qid", number)
                response = _search(run, server, given | item, item.get("query"))
                out = msgspec.to_builtins(response) | {"qid": qid}
            except (RecallError, json.JSONDecodeError) as exc:
                failures += 1
                detail = exc.detail if isinstance(exc, RecallError) else f"invalid JSON: {exc}"
                out = {"qid": qid if qid is not None else number, "error": detail}
            print(json.dumps(out, ensure_ascii=False), flush=True)
    return 1 if failures else 0


@reads
@click.command()
@click.argument("session_id", metavar="ID")
@click.option("--token-budget", type=int, help="summary plus the newest messages that fit")
@no_server_option
@json_option
@pass_run
def show(run: Run, session_id: str, token_budget: int | None, no_server: bool,
         as_json: bool) -> int:
    """Print an archived session."""
    from api.service.sessions import ArchivedSession

    session = None
    if server := running_server(run.settings, no_server):
        session = server.get(RunningServer.session_path(session_id), {"token_budget": token_budget},
                             ArchivedSession)
    _print_session(session or run.service.session(session_id, token_budget), as_json)
    return 0


@reads
@click.command()
@click.argument("session_id", metavar="ID")
@click.option("--print-context", is_flag=True,
              help="print the session's summary and newest messages to paste instead")
@click.option("--token-budget", type=int, default=2000, show_default=True,
              help="with --print-context: about how many tokens to print")
@json_option
@pass_run
def resume(run: Run, session_id: str, print_context: bool, token_budget: int,
           as_json: bool) -> int:
    """Print the command that reopens a session in the agent that wrote it
    (`claude --resume …`, `codex resume …`), and the folder to run it in."""
    if print_context:
        _print_session(run.service.session(session_id, token_budget), as_json)
        return 0
    hint = run.service.resume(session_id)
    if as_json:
        print_json(hint, indent=1)
        return 0
    if hint.command:
        print(f"cd {shlex.quote(hint.cwd)} && {hint.command}" if hint.cwd else hint.command)
    print(f"# {hint.note}", file=sys.stderr if hint.command else sys.stdout)
    if hint.transcript:
        print(f"# transcript: {hint.transcript}", file=sys.stderr if hint.command else sys.stdout)
    return 0 if hint.command else 1


@reads
@click.command()
@click.argument("query")
@click.option("--budget", type=int, default=1500, show_default=True,
              help="about how many tokens the pack may use")
@json_option
@pass_run
def pack(run: Run, query: str, budget: int, as_json: bool) -> int:
    """The best evidence for QUERY within a token budget, for an agent's context: decisions
    first (newest first), then the matching messages, each cited by session, message, date and
    agent. Markdown, or with --json the excerpts too."""
    found = run.service.pack(query, budget)
    if as_json:
        print_json(found, indent=1)
    else:
        print(found.markdown, end="")
        if found.omitted:
            print(f"<!-- {found.omitted} more excerpts did not fit {budget} tokens -->")
    return 0 if found.excerpts else 1


def _print_session(session: ArchivedSession, as_json: bool) -> None:
    if as_json:
        print_json(session, indent=1)
    else:
        print_session(session)


def print_session(s: ArchivedSession) -> None:
    title = s.title or ", ".join(s.topics)
    print(f"{s.session_id}  {s.date}  {s.channel or ''}  {title}")
    if s.summary:
        print(f"summary: {s.summary}")
    if s.omitted_messages:
        print(f"({s.omitted_messages} earlier messages left out to fit the budget)")
    for m in s.messages:
        print(f"\n[{m.time}] {m.speaker or m.role}:\n{m.content}")


COMMANDS = [search, show, resume, pack]
