"""Snapshots over HTTP: list, save, prune and read a session's snapshots; what changed since
one; which one to resume from (recovery)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Router, delete, get, post
from litestar.params import JSONBody, QueryParameter

from api.http.params import OptionalSnapshotId, Service, SessionId, SnapshotId
from api.http.problems import problem_responses
from api.http.scopes import ADMIN, READ, WRITE
from api.service.limits import MAX_CONTEXT_CHARS, MAX_ID_LENGTH
from api.service.snapshots import PrunedSnapshots, SnapshotList
from models import ChangeReport, RecoveryDecision, RecoveryOptions, Snapshot

__all__ = ["router"]


class RecoveryRequest(msgspec.Struct):
    session_id: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LENGTH)]
    context: Annotated[str, msgspec.Meta(max_length=MAX_CONTEXT_CHARS)] | None = None
    options: RecoveryOptions | None = None
    # compress the selected snapshot to about this many tokens
    token_budget: Annotated[int, msgspec.Meta(ge=1)] | None = None


@get("/sessions/{session_id:str}/snapshots", opt=READ, sync_to_thread=True,
     responses=problem_responses(400, 404), summary="A session's snapshots, oldest first")
def list_snapshots_route(service: Service, session_id: SessionId) -> SnapshotList:
    return service.snapshots.of(session_id)


@post("/sessions/{session_id:str}/snapshots", opt=WRITE, sync_to_thread=True, status_code=201,
      responses=problem_responses(400, 404),
      summary="Save the session's current state (its memories) as a snapshot")
def create_snapshot_route(service: Service, session_id: SessionId) -> Snapshot:
    return service.snapshots.create(session_id)


@delete("/sessions/{session_id:str}/snapshots", opt=ADMIN, sync_to_thread=True, status_code=200,
        responses=problem_responses(400, 404),
        summary="Cleanup: delete all but the newest `keep` snapshots of a session")
def prune_snapshots_route(service: Service, session_id: SessionId,
                          keep: Annotated[int, QueryParameter(ge=1, description="how many to keep")]
                          ) -> PrunedSnapshots:
    return service.snapshots.prune(session_id, keep)


@get("/sessions/{session_id:str}/snapshots/{snapshot_id:str}", opt=READ, sync_to_thread=True,
     responses=problem_responses(400, 404),
     summary="One snapshot; with token_budget, compressed to about that many tokens")
def get_snapshot_route(service: Service, session_id: SessionId, snapshot_id: SnapshotId,
                       token_budget: Annotated[int | None, QueryParameter(ge=1)] = None) -> Snapshot:
    return service.snapshots.get(session_id, snapshot_id, token_budget)


@get("/sessions/{session_id:str}/changes", opt=READ, sync_to_thread=True, responses=problem_responses(400, 404),
     summary="What changed since a snapshot (default the newest) up to now or another snapshot")
def changes_route(service: Service, session_id: SessionId, snapshot: OptionalSnapshotId = None,
                  against: OptionalSnapshotId = None) -> ChangeReport:
    return service.snapshots.changes(session_id, snapshot, against)


@post("/recovery", opt=READ, sync_to_thread=True, status_code=200, responses=problem_responses(400, 404, 413),
      summary="Choose the snapshot to resume a session from, with confidence, reasons, strategy")
def recovery_route(service: Service, data: JSONBody[RecoveryRequest]) -> RecoveryDecision:
    return service.snapshots.recover(data.session_id, data.context, options=data.options,
                                     token_budget=data.token_budget)


router = Router(path="/", route_handlers=[
    list_snapshots_route, create_snapshot_route, prune_snapshots_route, get_snapshot_route,
    changes_route, recovery_route])
