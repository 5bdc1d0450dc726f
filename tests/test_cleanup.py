"""Cleanup: old sessions by last activity, category and channel (a dry run first), and the newest
N snapshots of every session; through the service, HTTP and the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator

import msgspec
import pytest
from litestar.testing import TestClient

from api import RecallService
from api.http.app import create_app
from api.service.maintenance import CleanupReport
from indexer.maintenance.cleanup import parse_age
from indexer.stores.snapshots import SnapshotStore
from indexer.stores.state import State
from models import InvalidInput, SearchRequest

from .helpers import SESSIONS

AS_OF = "2026-04-30"
# older than 60 days on AS_OF: last active before 2026-03-01
OLD = ["t-kyoto", "t-en-birthday", "t-en-errors", "conv-a1"]

DEBUG_OLD = {"sessionId": "t-old-debug", "date": "2025-11-01", "channel": "cli", "category": "Debugging",
             "messages": [{"role": "user", "content": "the flux capacitor segfaults at startup",
                           "time": "2025-11-01T10:00:00+00:00"}]}
# started long ago, but written to last week: its last activity is recent
DEBUG_ACTIVE = {"sessionId": "t-old-active", "date": "2025-11-02", "channel": "cli", "category": "debugging",
                "messages": [{"role": "user", "content": "the gyroscope drifts", "time": "2025-11-02T10:00:00+00:00"},
                             {"role": "user", "content": "still drifting", "time": "2026-04-20T10:00:00+00:00"}]}


@pytest.fixture
def archive(writable: RecallService) -> RecallService:
    writable.ingest_record(DEBUG_OLD)
    writable.ingest_record(DEBUG_ACTIVE)
    return writable


def _ids(report: CleanupReport) -> list[str]:
    return [s.session_id for s in report.sessions]


def _http_ids(body: dict) -> list[str]:
    return [s["session_id"] for s in body["sessions"]]


def _indexed(service: RecallService) -> set[str]:
    state = State(service.data.state_db)
    try:
        return {r.session_id for r in state.sessions("indexed")}
    finally:
        state.close()


@pytest.mark.parametrize(("text", "days"), [("90d", 90), ("12w", 84), ("90", 90), (" 7D ", 7), ("0d", 0)])
def test_parse_age(text: str, days: int) -> None:
    assert parse_age(text) == days


@pytest.mark.parametrize("text", ["3 months", "90 days", "-1d", "d", "", "1.5w", "12y", "9999999d"])
def test_bad_ages_are_refused_clearly(text: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_age(text)
    assert repr(text) in caught.value.detail
    assert "90d or 12w" in caught.value.detail or "too large" in caught.value.detail


def test_dry_run_lists_exactly_what_would_go_and_deletes_nothing(archive: RecallService) -> None:
    before = _indexed(archive)
    report = archive.maintenance.cleanup(older_than="60d", today=AS_OF)
    assert report.dry_run is True and report.applied is None
    assert "applied" not in msgspec.to_builtins(report)
    assert report.older_than_days == 60 and report.as_of == AS_OF
    # oldest first; t-old-active started first but was active last week
    assert _ids(report) == ["t-old-debug", *OLD]
    first = report.sessions[0]
    assert msgspec.to_builtins(first) == {"session_id": "t-old-debug", "date": "2025-11-01", "last_activity": "2025-11-01",
                     "category": "Debugging", "channel": "cli", "messages": 1, "snapshots": 0,
                     "promoted_todos": 0, "linked_todos": 0}
    assert report.totals.sessions == 5
    assert report.totals.messages == sum(s.messages for s in report.sessions)
    assert _indexed(archive) == before
    assert archive.session("t-kyoto").session_id == "t-kyoto"
    # a day less old: the sessions active on the boundary day stay
    assert "t-en-errors" not in _ids(archive.maintenance.cleanup(older_than="79d", today=AS_OF))
    assert "t-en-errors" in _ids(archive.maintenance.cleanup(older_than="78d", today=AS_OF))


def test_category_and_channel_filters(archive: RecallService) -> None:
    def ids(**kw: object) -> list[str]:
        return _ids(archive.maintenance.cleanup(older_than="60d", today=AS_OF, **kw))  # type: ignore[arg-type]

    assert ids(channels=["CLI"]) == ["t-old-debug", "t-en-errors"]
    assert ids(categories=["debugging"]) == ["t-old-debug"]
    assert ids(channels=["telegram", "jsonl"]) == ["t-en-birthday", "conv-a1"]
    assert ids(categories=["debugging"], channels=["telegram"]) == []
    assert ids(categories=["planning"]) == []


def test_apply_deletes_through_the_delete_path(archive: RecallService) -> None:
    todo = archive.todos.add("look at the segfault", source_session_id="t-old-debug")
    report = archive.maintenance.cleanup(older_than="60d", categories=["debugging"], apply=True,
                                         today=AS_OF)
    assert report.dry_run is False
    assert msgspec.to_builtins(report.applied) == {"sessions": ["t-old-debug"], "skipped": [], "snapshots_pruned": 0}
    assert "t-old-debug" not in _indexed(archive) and "t-old-active" in _indexed(archive)
    assert not list(archive.data.archive.rglob("t-old-debug.json"))
    for mode in ("keyword", "vector", "hybrid"):
        hits = archive.search(SearchRequest(query="flux capacitor segfaults", mode=mode)).results
        assert "t-old-debug" not in {h.session_id for h in hits}, mode
    assert archive.todos.get(todo.id).source_session_id is None  # kept, unlinked
    assert archive.maintenance.check().ok
    # nothing left to delete: a second run is a no-op
    again = archive.maintenance.cleanup(older_than="60d", categories=["debugging"], apply=True,
                                        today=AS_OF)
    assert again.sessions == [] and again.applied.sessions == []


def test_a_session_that_changed_since_the_plan_is_left_alone(archive: RecallService) -> None:
    state = State(archive.data.state_db)
    try:
        row = state.session("t-kyoto")
    finally:
        state.close()
    assert row is not None
    assert archive.ingestor().delete_many({"t-kyoto": "not-its-hash", "t-gone": "x"}) == []
    assert "t-kyoto" in _indexed(archive)
    assert archive.ingestor().delete_many({"t-kyoto": row.content_hash}) == ["t-kyoto"]
    assert "t-kyoto" not in _indexed(archive)


def test_keep_newest_snapshots_of_every_session(archive: RecallService) -> None:
    for session_id, count in (("t-zh-upgrade", 3), ("t-kyoto", 2), ("t-blocks", 1)):
        for _ in range(count):
            archive.snapshots.create(session_id)
    store = SnapshotStore(archive.data)
    newest = store.list("t-zh-upgrade")[-1].id
    dry = archive.maintenance.cleanup(keep_snapshots=1)
    assert msgspec.to_builtins(dry.snapshots) == [{"session_id": "t-kyoto", "deleted": 1, "kept": 1},
                                {"session_id": "t-zh-upgrade", "deleted": 2, "kept": 1}]
    assert dry.totals.snapshots == 3 and dry.sessions == []
    assert len(store.list("t-zh-upgrade")) == 3  # the dry run deleted nothing
    # with an age too: a session deleted whole counts its snapshots there, not twice
    both = archive.maintenance.cleanup(older_than="60d", keep_snapshots=1, today=AS_OF)
    assert msgspec.to_builtins(both.snapshots) == [{"session_id": "t-zh-upgrade", "deleted": 2, "kept": 1}]
    assert next(s for s in both.sessions if s.session_id == "t-kyoto").snapshots == 2
    assert both.totals.snapshots == 4
    applied = archive.maintenance.cleanup(keep_snapshots=1, apply=True)
    assert applied.applied.snapshots_pruned == 3
    assert [s.id for s in store.list("t-zh-upgrade")] == [newest]
    assert len(store.list("t-kyoto")) == 1 and len(store.list("t-blocks")) == 1


@pytest.mark.parametrize(("kwargs", "message"), [
    ({}, "nothing to clean up"),
    ({"channels": ["cli"]}, "give an age too"),
    ({"older_than": "soon"}, "cannot read age 'soon'"),
    ({"keep_snapshots": 0}, "keep-snapshots must be at least 1"),
    ({"older_than": "1d", "today": "2026-02-30"}, "is not a real date"),
    ({"older_than": "1d", "channels": [""]}, "categories and channels are up to 50 names"),
])
def test_cleanup_errors(archive: RecallService, kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        archive.maintenance.cleanup(**kwargs)


@pytest.fixture
def client(archive: RecallService) -> Iterator[TestClient]:
    with TestClient(create_app(archive.settings, archive), base_url="http://127.0.0.1") as c:
        yield c


def test_cleanup_route_is_a_dry_run_unless_asked(client: TestClient, archive: RecallService) -> None:
    body = {"older_than": "60d", "channels": ["cli"], "as_of": AS_OF}
    dry = client.post("/v1/cleanup", json=body)
    assert dry.status_code == 200
    assert dry.json()["dry_run"] is True and "applied" not in dry.json()
    assert _http_ids(dry.json()) == ["t-old-debug", "t-en-errors"]
    assert {"t-old-debug", "t-en-errors"} <= _indexed(archive)
    done = client.post("/v1/cleanup", json={**body, "dry_run": False}).json()
    assert done["applied"]["sessions"] == ["t-old-debug", "t-en-errors"]
    assert client.get("/v1/sessions/t-en-errors").status_code == 404
    assert client.get("/v1/search", params={"q": "ERR_CONNECTION_REFUSED"}).json()["results"] == []


def test_cli_cleanup(recall) -> None:
    recall("index", str(SESSIONS))
    dry = recall("cleanup", "--older-than", "60d", "--as-of", AS_OF, "--dry-run").stdout
    assert "t-kyoto  2025-12-20  last active 2025-12-20  category -  channel webchat" in dry
    assert "would delete 3 sessions" in dry and "nothing deleted" in dry
    assert recall("cleanup", "--older-than", "60d", "--as-of", AS_OF).stdout == dry  # the default
    applied = json.loads(recall("cleanup", "--older-than", "60d", "--as-of", AS_OF, "--channel", "telegram",
                                "--apply", "--json").stdout)
    assert applied["applied"]["sessions"] == ["t-en-birthday"]
    gone = recall("show", "t-en-birthday", ok=False)
    assert gone.returncode == 1 and "no session" in gone.stderr
    bad = recall("cleanup", "--older-than", "3mo", ok=False)
    assert bad.returncode == 1 and "cannot read age '3mo'" in bad.stderr and "Traceback" not in bad.stderr
    both = recall("cleanup", "--older-than", "1d", "--dry-run", "--apply", ok=False)
    assert both.returncode == 2 and "not allowed with" in both.stderr
