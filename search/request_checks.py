"""What a search request must satisfy before any index is read."""

from __future__ import annotations

from models import MEMORY_TYPES, SEARCH_SCOPES, InvalidQuery, SearchRequest
from models.hits import MEMORY_RANKS

__all__ = ["check_request"]


def check_request(request: SearchRequest, max_query_chars: int, max_limit: int) -> None:
    """Raise InvalidQuery, naming the problem, for a request no search should run."""
    if not request.query.strip():
        raise InvalidQuery("the query is empty")
    if len(request.query) > max_query_chars:
        raise InvalidQuery(f"the query is longer than {max_query_chars} characters")
    if not 1 <= request.limit <= max_limit:
        raise InvalidQuery(f"limit must be between 1 and {max_limit}")
    if not 1 <= request.messages_per_session <= 20:
        raise InvalidQuery("messages per session must be between 1 and 20")
    f = request.filters
    if f.scope not in SEARCH_SCOPES:
        raise InvalidQuery(f"scope must be one of {', '.join(SEARCH_SCOPES)}, not {f.scope!r}")
    if f.memory_type is not None:
        if f.memory_type not in MEMORY_TYPES:
            raise InvalidQuery(f"memory type must be one of {', '.join(MEMORY_TYPES)}, "
                               f"not {f.memory_type!r}")
        if f.scope == "messages":
            raise InvalidQuery("a memory type needs the memories scope")
    if request.memory_rank not in MEMORY_RANKS:
        raise InvalidQuery(f"memory rank must be one of {', '.join(MEMORY_RANKS)}, "
                           f"not {request.memory_rank!r}")
    if request.memory_rank == "relevance" and f.scope == "messages":
        raise InvalidQuery("ranking by memory relevance needs the memories or all scope")
    if f.since and f.until and f.since > f.until:
        raise InvalidQuery(f"since ({f.since}) is after until ({f.until})")
