"""One search request as every interface takes it: each parameter declared once, with its type,
its limits and its help text. The command line's options (api/cli/search_options.py), the HTTP
query parameters (api/http/routes/search.py) and the MCP tool's arguments (api/mcp/search.py) are
made from these declarations, and every one of them converts what it got with `search_params`:
one conversion, one set of errors (InvalidQuery), one SearchRequest.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from api.service.limits import MAX_PARAM_CHARS
from models import InvalidQuery, SearchFilters, SearchRequest
from models.hits import MemoryRank, SearchMode, SearchScope, SearchWhen
from models.memory import MemoryType
from search import check_day, date_range

__all__ = ["OPTIONS", "SEARCH_PARAMS", "Param", "SearchParams", "search_params"]

Text = Annotated[str, Meta(max_length=MAX_PARAM_CHARS)]
# YYYY-MM-DD, YYYY-MM or YYYY; empty: no limit (the day itself is checked by check_day)
Day = Annotated[str, Meta(pattern=r"^([0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?)?$")]


def _about(description: str, **limits: Any) -> Meta:
    return Meta(description=description, **limits)


class SearchParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A search: the query and how to search (the one place these are declared)."""

    query: Annotated[str, _about("words, a question or an identifier, in English or Chinese "
                                 "(中文或英文); quote a phrase with \"...\"")]
    mode: Annotated[SearchMode, _about("hybrid (words and meaning, the default), keyword or "
                                       "vector")] = "hybrid"
    date: Annotated[Day | None, _about("only this day, month or year: YYYY-MM-DD, YYYY-MM or "
                                       "YYYY")] = None
    since: Annotated[Day | None, _about("only on or after this date (YYYY-MM-DD, YYYY-MM or "
                                        "YYYY)")] = None
    until: Annotated[Day | None, _about("only on or before this date (YYYY-MM-DD, YYYY-MM or "
                                        "YYYY)")] = None
    channel: Annotated[Text | None, _about("only this channel (webchat, telegram, cli, an "
                                           "agent's name, ...)")] = None
    participant: Annotated[Text | None, _about("only sessions with this participant")] = None
    role: Annotated[Text | None, _about("only messages with this role (user, assistant, ...)")
                    ] = None
    session: Annotated[Text | None, _about("only this session id")] = None
    scope: Annotated[SearchScope | None, _about(
        "what to search: messages (the conversations, default), memories (facts, preferences, "
        "feedback, decisions and references extracted from them), or all")] = None
    memory_type: Annotated[MemoryType | None, _about(
        "only memories of this type (searches the memories unless scope says all)")] = None
    limit: Annotated[int, _about("sessions to return", ge=1, le=100)] = 10
    memory_rank: Annotated[MemoryRank, _about(
        "match (default), or relevance: memory hits score match x memory relevance (memories "
        "used more, and more lately, rank higher)")] = "match"
    strict: Annotated[bool, _about(
        "only sessions with real evidence, and none when the archive likely holds no answer "
        "(fewer wrong results, some right ones missed)")] = False
    when: Annotated[SearchWhen | None, _about(
        "current: how things stand now (of the sessions near the top, the newest first); "
        "history: how they stood at first (the oldest first); default: as the query's own "
        "words ask")] = None

    def request(self) -> SearchRequest:
        """The SearchRequest these parameters ask for (dates checked, a date made a range)."""
        since, until = self.since, self.until
        if self.date:
            since, until = date_range(self.date)
        scope = self.scope or ("memories" if self.memory_type else "messages")
        filters = SearchFilters(
            since=check_day(since) if since else None,
            until=check_day(until, end=True) if until else None,
            channel=self.channel, participant=self.participant, role=self.role,
            session=self.session, scope=scope, memory_type=self.memory_type)
        return SearchRequest(query=self.query, mode=self.mode, filters=filters, limit=self.limit,
                             memory_rank=self.memory_rank, strict=self.strict, when=self.when)


def search_params(values: Mapping[str, Any], *, from_text: bool = False) -> SearchParams:
    """Convert what an interface got (flags, a JSON line, tool arguments; query strings with
    `from_text`, whose numbers and booleans are text) into SearchParams, or InvalidQuery
    saying which parameter is wrong and how."""
    given = {k: v for k, v in values.items() if v is not None}
    try:
        return msgspec.convert(given, SearchParams, strict=not from_text)
    except msgspec.ValidationError as exc:
        raise InvalidQuery(_explain(str(exc), given)) from None


def _explain(message: str, given: Mapping[str, Any]) -> str:
    """msgspec's "Expected `int`, got `str` - at `$.limit`" as "'limit': expected `int`, ..."."""
    text, _, where = message.partition(" - at `$.")
    field = where.rstrip("`")
    if "Object contains unknown field" in message:
        return f"unknown parameter {message.split('`')[1]!r}"
    if "Object missing required field" in message:
        return f"'{message.split('`')[1]}' is required"
    param = next((p for p in SEARCH_PARAMS if p.name == field), None)
    if param is None:
        return text
    if text.startswith("Invalid enum value") and param.choices:
        got = text.removeprefix("Invalid enum value").strip()
        return f"'{field}' must be one of {', '.join(param.choices)} (got {got})"
    if "ge" in param.limits and ("Expected `int` >=" in text or "Expected `int` <=" in text):
        return f"{field} must be between {param.limits['ge']} and {param.limits['le']}"
    if "matching regex" in text:
        return f"cannot read date {given.get(field)!r}: use YYYY-MM-DD, YYYY-MM or YYYY"
    if "of length <=" in text:
        return f"'{field}' is longer than {param.limits['max_length']} characters"
    expected = {bool: "true or false", int: "a whole number", str: "text"}.get(param.kind)
    if text.startswith("Expected") and expected:
        return f"'{field}' must be {expected}"
    text = text[0].lower() + text[1:] if text else text
    return f"'{field}': {text}" if field else text


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter as an interface declares it: its name, Python type (without None), whether
    it may be left out, its default, help, and limits."""

    name: str
    kind: Any  # str, int, bool, or a Literal
    optional: bool
    default: Any
    description: str
    limits: dict[str, Any]

    @property
    def choices(self) -> tuple[str, ...] | None:
        return typing.get_args(self.kind) if typing.get_origin(self.kind) is Literal else None


def _params() -> tuple[Param, ...]:
    out = []
    for field in msgspec.structs.fields(SearchParams):
        kind, metas = _unwrap(field.type)
        optional = type(None) in typing.get_args(kind)
        if optional:
            kind = next(a for a in typing.get_args(kind) if a is not type(None))
            kind, inner = _unwrap(kind)
            metas += inner
        limits = {k: getattr(m, k) for m in metas for k in ("ge", "le", "max_length", "pattern")
                  if getattr(m, k) is not None}
        description = " ".join(m.description for m in metas if m.description)
        default = None if field.default is msgspec.NODEFAULT else field.default
        out.append(Param(field.name, kind, optional, default, description, limits))
    return tuple(out)


def _unwrap(kind: Any) -> tuple[Any, list[Meta]]:
    metas: list[Meta] = []
    while typing.get_origin(kind) is Annotated:
        base, *extra = typing.get_args(kind)
        metas += [m for m in extra if isinstance(m, Meta)]
        kind = base
    return kind, metas


SEARCH_PARAMS: tuple[Param, ...] = _params()
# the parameters besides the query: what every interface offers as options
OPTIONS: tuple[Param, ...] = tuple(p for p in SEARCH_PARAMS if p.name != "query")
