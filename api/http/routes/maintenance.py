"""Maintenance over HTTP: what is archived and indexed, the consistency check, cleanup."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Router, get, post
from litestar.params import JSONBody

from api.http.params import Day, Service
from api.http.problems import problem_responses
from api.http.scopes import ADMIN, READ
from api.service.limits import MAX_PARAM_CHARS
from api.service.maintenance import MAX_FILTER_VALUES, CleanupReport, ConsistencyReport
from api.service.sessions import Stats

__all__ = ["router"]


class CleanupRequest(msgspec.Struct, forbid_unknown_fields=True):
    older_than: Annotated[str, msgspec.Meta(
        max_length=20, pattern=r"^\s*[0-9]{1,6}\s*[dwDW]?\s*$",
        description="90d, 12w or 90 (days), counted from each session's last activity")] | None = None
    categories: Annotated[list[Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_PARAM_CHARS)]],
                          msgspec.Meta(max_length=MAX_FILTER_VALUES)] = msgspec.field(default_factory=list)
    channels: Annotated[list[Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_PARAM_CHARS)]],
                        msgspec.Meta(max_length=MAX_FILTER_VALUES)] = msgspec.field(default_factory=list)
    keep_snapshots: Annotated[int, msgspec.Meta(ge=1)] | None = None
    dry_run: bool = True  # say what would go; false deletes it
    as_of: Day | None = None  # count ages up to this day


@get("/stats", opt=READ, sync_to_thread=True, responses=problem_responses(503), summary="What is archived and indexed")
def stats_route(service: Service) -> Stats:
    return service.stats()


@get("/check", opt=READ, sync_to_thread=True, responses=problem_responses(),
     summary="Whether archive, state, both indexes and memories agree (`recall check --json`)")
def check_route(service: Service) -> ConsistencyReport:
    return service.maintenance.check()


@post("/cleanup", opt=ADMIN, sync_to_thread=True, status_code=200,
      responses=problem_responses(400, 409, 413, 503),
      summary="Delete sessions older than an age (by category or channel) and old snapshots; "
              "a dry run unless dry_run is false")
def cleanup_route(service: Service, data: JSONBody[CleanupRequest]) -> CleanupReport:
    return service.maintenance.cleanup(
        older_than=data.older_than, categories=data.categories, channels=data.channels,
        keep_snapshots=data.keep_snapshots, apply=not data.dry_run, today=data.as_of)


router = Router(path="/", route_handlers=[stats_route, check_route, cleanup_route])
