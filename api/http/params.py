"""What HTTP routes share: the service dependency and the parameter types, with their limits."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar.di import NamedDependency
from litestar.params import PathParameter, QueryParameter

from api.service import RecallService
from api.service.limits import MAX_ID_LENGTH, MAX_PARAM_CHARS, MAX_SNAPSHOT_ID_LENGTH

__all__ = ["Day", "OptionalDay", "OptionalSnapshotId", "OptionalText", "SearchQuery", "Service",
           "SessionId", "SnapshotId", "search_query"]

Service = NamedDependency[RecallService]
OptionalText = Annotated[str | None, QueryParameter(max_length=MAX_PARAM_CHARS)]
# schema_extra documents a rule the service checks itself, with a clearer message
OptionalDay = Annotated[str | None, QueryParameter(
    max_length=MAX_PARAM_CHARS, description="YYYY-MM-DD, YYYY-MM or YYYY; empty: no limit",
    schema_extra={"pattern": "^([0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?)?$"})]
# a day in a JSON body
Day = Annotated[str, msgspec.Meta(max_length=10, pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                                  description="YYYY-MM-DD; default today")]
SessionId = Annotated[str, PathParameter(min_length=1, max_length=MAX_ID_LENGTH)]
SnapshotId = Annotated[str, PathParameter(min_length=1, max_length=MAX_SNAPSHOT_ID_LENGTH)]
OptionalSnapshotId = Annotated[str | None, QueryParameter(max_length=MAX_SNAPSHOT_ID_LENGTH)]
# The query's length limit is a setting (the searcher checks it, for every interface):
# create_app puts this name into the signature namespace with the configured limit, so the
# schema says what the app checks.
SearchQuery = Annotated[str, QueryParameter()]


def search_query(max_chars: int) -> Any:
    return Annotated[str, QueryParameter(
        description="the query (not blank); quote phrases with \"...\"",
        schema_extra={"min_length": 1, "max_length": max_chars, "pattern": r"\S"})]
