"""`recall search QUERY [options]` answered by the `recall serve` of the data directory before
click, msgspec or the service are imported: the click CLI spends most of a search's 135 ms on
those imports when a server answers it anyway.

This client answers only what it is sure to answer exactly as the click CLI would (the same
request, the same bytes out); for anything else it prints nothing and returns None, and the
click CLI runs as before: another command, an option it does not know (--batch, --no-server,
--help, -v), an option given twice or with an empty value, a setting in the environment whose
value the CLI would check, a tenant, no server, a server that does not prove itself or answers
anything but 200, any error at all. `RECALL_FULL_CLI=1` sends every search to the click CLI
(to compare the two, as tests/test_fast_search.py and benchmarks/cold_start.py do)."""

from __future__ import annotations

import codecs
import io
import json
import os
import sys
from urllib.parse import urlencode

from api.client.results import print_results
from api.client.server import ask, find

TYPE_CHECKING = False  # typing is not imported at run time: the fast client does without it
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, TextIO

__all__ = ["FULL_CLI", "answer", "wire_params"]

FULL_CLI = "RECALL_FULL_CLI"

# SearchParams' fields (api/service/search_params.py) in their order, with their defaults: the
# click CLI sends all of them that are set, in this order (tests/test_fast_search.py checks both)
PARAMS: tuple[tuple[str, object], ...] = (
    ("query", None), ("mode", "hybrid"), ("date", None), ("since", None), ("until", None),
    ("channel", None), ("participant", None), ("role", None), ("session", None),
    ("scope", None), ("memory_type", None), ("limit", 10), ("memory_rank", "match"),
    ("strict", False), ("when", None))
# `recall search`'s options (api/cli/read.py, api/cli/search_options.py): those with a value,
# and flags with the value they set
VALUED = {"--mode": "mode", "--date": "date", "--since": "since", "--until": "until",
          "--channel": "channel", "--participant": "participant", "--role": "role",
          "--session": "session", "--scope": "scope", "--memory-type": "memory_type",
          "--limit": "limit", "--memory-rank": "memory_rank"}
FLAGS: dict[str, tuple[str, object]] = {
    "--strict": ("strict", True), "--current": ("when", "current"),
    "--history": ("when", "history"), "--memories": ("memories", True),
    "--json": ("as_json", True)}
GROUP_VALUED = {"--home": "home", "--embedder": "embedder"}  # the `recall` group's, before it
# settings whose value Settings.from_env never refuses (text or a path, no rule, no rule tying
# them to another); any other RECALL_* variable set leaves the search to the click CLI, which
# checks it (tests/test_fast_search.py holds this list against api/settings.py)
UNCHECKED_SETTINGS = frozenset({
    "RECALL_HOME", "RECALL_EMBEDDER", "RECALL_MODEL_CACHE", "RECALL_API_TOKEN",
    "RECALL_ALLOWED_HOSTS", "RECALL_LLM_URL", "RECALL_LLM_MODEL", "RECALL_LLM_API_KEY",
    "RECALL_S3_ENDPOINT", "RECALL_S3_REGION", "RECALL_S3_ACCESS_KEY", "RECALL_S3_SECRET_KEY",
    "RECALL_S3_VERIFY_TLS"})


def answer(argv: Sequence[str], env: Mapping[str, str], out: TextIO) -> int | None:
    """Answer `recall ARGV` through the running server and return its exit status, or None,
    having printed nothing, when the click CLI must answer it."""
    if env.get(FULL_CLI) or "search" not in argv:
        return None
    try:
        text = _answer(argv, env, out)
    except KeyboardInterrupt:  # as the click CLI says it (click ends the line first)
        print("\nrecall: interrupted", file=sys.stderr)
        return 130
    except Exception:  # noqa: BLE001  # anything unexpected: the click CLI answers, its own way
        return None
    if text is None:
        return None
    # written once the answer is complete, and outside the fallback: a search never prints twice
    out.write(text)
    out.flush()
    return 0


def _answer(argv: Sequence[str], env: Mapping[str, str], out: TextIO) -> str | None:
    """The search's output, or None when the click CLI must answer."""
    group, rest = _options(argv, {}, GROUP_VALUED, stop_at_argument=True)
    if rest[:1] != ["search"]:
        return None
    options, arguments = _options(rest[1:], FLAGS, VALUED)
    if len(arguments) != 1 or not arguments[0] or not _plain_settings(env):
        return None
    # as Settings.from_env: an option before the environment, an empty variable unset
    home = group.get("home") or env.get("RECALL_HOME") or _default_home()
    server = find(os.path.expanduser(str(home)))
    if server is None or server.embedder != (group.get("embedder") or env.get("RECALL_EMBEDDER")
                                             or "e5"):
        return None
    params = _params(options, arguments[0])
    if params is None or codecs.lookup(out.encoding or "ascii").name != "utf-8":
        return None  # click.echo would print --json its own way on another encoding
    reply = ask(server, env.get("RECALL_API_TOKEN") or None, "GET",
                "/v1/search?" + urlencode(wire_params(params)))
    if not reply.proven or reply.status not in (200, 201):
        return None  # the click CLI asks again and says why, or answers in-process
    response = _as_declared(json.loads(reply.body))
    text = _Rendered(out.isatty())
    if options.get("as_json"):
        print(json.dumps(response, ensure_ascii=False), file=text)
    else:
        print_results(response, text)
    return text.getvalue()


def wire_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """SearchParams' fields as /v1/search's query parameters, in their order: those set, the
    query last as `q`, booleans as `true`/`false` (the click CLI's request too)."""
    given = {k: v for k, v in params.items() if v is not None}
    given["q"] = given.pop("query")
    return {k: str(v).lower() if isinstance(v, bool) else v for k, v in given.items()}


def _options(args: Sequence[str], flags: Mapping[str, tuple[str, object]],
             valued: Mapping[str, str], stop_at_argument: bool = False,
             ) -> tuple[dict[str, Any], list[str]]:
    """Options and arguments as click reads them; ValueError for anything left to click: an
    unknown option, one given twice, `--`, a value that is empty or looks like an option."""
    found: dict[str, Any] = {}
    arguments: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not arg.startswith("-"):
            if stop_at_argument:
                return found, list(args[i - 1:])
            arguments.append(arg)
            continue
        name, eq, text = arg.partition("=")
        value: object = text
        if name in flags and not eq:
            dest, value = flags[name]
        elif name in valued:
            if not eq:
                if i == len(args):
                    raise ValueError(f"{name} needs a value")
                text, i = args[i], i + 1
            if not text or text.startswith("-"):
                raise ValueError(f"{name} {text!r}")
            value = text
            dest = valued[name]
        else:
            raise ValueError(f"left to click: {arg}")
        if dest in found:
            raise ValueError(f"{name} given twice")
        found[dest] = value
    return found, arguments


def _plain_settings(env: Mapping[str, str]) -> bool:
    """Whether every RECALL_* variable set is one Settings.from_env takes as it is, for the
    default tenant (the server acts for a token's tenant, not RECALL_TENANT)."""
    return all(not name.startswith("RECALL_") or not value or name in UNCHECKED_SETTINGS
               or (name == "RECALL_TENANT" and value == "default")
               for name, value in env.items())


def _default_home() -> str:
    import platformdirs  # as Settings.from_env; only when no home is given

    return platformdirs.user_data_dir("recall", appauthor=False)


def _params(options: dict[str, Any], query: str) -> dict[str, Any] | None:
    """The search's parameters as `recall search` sends them (unchecked: the server checks them
    as the CLI would, and a 400 sends the search to the click CLI to say why)."""
    params = dict(PARAMS)
    params["query"] = query
    options = dict(options)
    if options.pop("memories", False):  # --memories is --scope memories
        if options.get("scope") not in (None, "memories"):
            return None  # a usage error: click words it
        options["scope"] = "memories"
    options.pop("as_json", None)
    if "limit" in options:
        options["limit"] = int(options["limit"])  # as click's INT: ValueError leaves it to click
    params.update(options)
    return params


def _as_declared(response: dict[str, Any]) -> dict[str, Any]:
    """Numbers as SearchResponse declares them: a float field that came as `1` prints `1.0`,
    as the click CLI's typed decoding makes it (tests/test_fast_search.py lists these fields
    from models/hits.py)."""
    for hit in response["results"]:
        hit["score"] = float(hit["score"])
        hit["score_parts"] = {k: float(v) for k, v in hit["score_parts"].items()}
        for message in hit["messages"]:
            message["score"] = float(message["score"])
        for fact in hit.get("facts", ()):
            if fact.get("confidence") is not None:
                fact["confidence"] = float(fact["confidence"])
    return response


class _Rendered(io.StringIO):
    """The output, kept until it is complete; a terminal's bold for highlights as on stdout."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty
