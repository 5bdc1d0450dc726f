"""Size limits on what any interface may pass in, beyond the query length (a setting)."""

from __future__ import annotations

from models.ids import MAX_ID_LENGTH, MAX_SNAPSHOT_ID_LENGTH

__all__ = ["MAX_CONTEXT_CHARS", "MAX_ID_LENGTH", "MAX_LISTED", "MAX_PARAM_CHARS",
           "MAX_SNAPSHOT_ID_LENGTH"]

MAX_PARAM_CHARS = 200  # a filter value: a channel, participant, role, date, ...
MAX_CONTEXT_CHARS = 10_000  # the current context given to a recovery
MAX_LISTED = 1000  # memories one relevance listing may return
