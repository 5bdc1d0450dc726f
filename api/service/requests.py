"""Search requests from loose values (CLI flags, JSON lines, query strings, tool arguments)."""

from __future__ import annotations

from typing import Any, cast

from api.service.limits import MAX_PARAM_CHARS
from models import InvalidQuery, SearchFilters, SearchRequest
from models.hits import SEARCH_WHENS, SearchMode, SearchWhen
from search import check_day, date_range

__all__ = ["REQUEST_KEYS", "search_request"]

REQUEST_KEYS = ("mode", "date", "since", "until", "channel", "participant", "role", "session",
                "scope", "memory_type", "limit", "memory_rank", "strict", "when")


def search_request(values: dict[str, Any], query: Any) -> SearchRequest:
    """The query's length is the searcher's to check (RECALL_MAX_QUERY_CHARS); filter values are
    held to MAX_PARAM_CHARS here."""
    if not isinstance(query, str):
        raise InvalidQuery("'query' must be a string")
    for key in ("date", "since", "until", "channel", "participant", "role", "session", "mode",
                "scope", "memory_type", "memory_rank", "when"):
        if values.get(key) is not None and not isinstance(values[key], str):
            raise InvalidQuery(f"'{key}' must be a string")
        if len(values.get(key) or "") > MAX_PARAM_CHARS:
            raise InvalidQuery(f"'{key}' is longer than {MAX_PARAM_CHARS} characters")
    since, until = values.get("since"), values.get("until")
    if values.get("date"):
        since, until = date_range(str(values["date"]))
    filters = SearchFilters(
        since=check_day(str(since)) if since else None,
        until=check_day(str(until), end=True) if until else None,
        channel=values.get("channel"), participant=values.get("participant"),
        role=values.get("role"), session=values.get("session"),
        scope=values.get("scope") or ("memories" if values.get("memory_type") else "messages"),
        memory_type=values.get("memory_type"),
    )
    mode = values.get("mode") or "hybrid"
    if mode not in ("hybrid", "keyword", "vector"):
        raise InvalidQuery(f"mode must be hybrid, keyword or vector, not {mode!r}")
    limit = values.get("limit")
    limit = 10 if limit is None else limit
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise InvalidQuery("'limit' must be an integer")
    strict = values.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise InvalidQuery("'strict' must be true or false")
    when = values.get("when") or None
    if when is not None and when not in SEARCH_WHENS:
        raise InvalidQuery(f"'when' must be current or history, not {when!r}")
    # mode and when are values of their Literal types: checked above
    return SearchRequest(query=query, mode=cast(SearchMode, mode), filters=filters, limit=limit,
                         memory_rank=values.get("memory_rank") or "match", strict=bool(strict),
                         when=cast(SearchWhen | None, when))
