"""Memory relevance end to end: rows at ingest, decay by a moved clock, boosts on search and
recovery, ranking, pruning with tombstones (reindex, delete, purge), settings, HTTP and CLI."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from api import RecallService, Settings
from api.http.app import create_app
from indexer.stores.memories import MemoryStore
from indexer.stores.relevance import RelevanceStore
from models import InvalidInput, InvalidQuery, SearchFilters, SearchRequest
from search.relevance import RelevancePolicy

from .helpers import JSONL, SESSIONS

DAY = 86_400.0
TEA = "I prefer green tea over coffee in the zeppelin lounge."


def _session(session_id: str, date: str = "2026-05-10") -> dict[str, Any]:
    return {"sessionId": session_id, "date": date, "channel": "webchat", "messages": [
        {"id": "m1", "role": "user", "content": TEA},
        {"id": "m2", "role": "user", "content": "Don't use emojis in the quarterly report."},
        {"id": "m3", "role": "assistant", "content": "Sure."}]}


def _tea(service: RecallService, session_id: str) -> str:
    return next(m.id for m in MemoryStore(service.data).load(session_id) or [] if m.text == TEA)


@pytest.fixture
def rel(writable: RecallService) -> RecallService:
    writable.ingest_record(_session("t-rel-a"))
    writable.ingest_record(_session("t-rel-b"))
    return writable


def _rows(service: RecallService) -> dict[str, Any]:
    with RelevanceStore(service.data) as store:
        return store.rows()


def _memory_search(service: RecallService, query: str, **extra: Any) -> list[tuple[str, str]]:
    request = SearchRequest(query=query, filters=SearchFilters(scope="memories"), **extra)
    return [(r.session_id, m.id or "") for r in service.search(request).results for m in r.messages]


def test_every_stored_memory_gets_a_row_at_its_confidence(rel: RecallService) -> None:
    rows = _rows(rel)
    stored = [m for sid in ("t-rel-a", "t-rel-b") for m in MemoryStore(rel.data).load(sid) or []]
    assert stored and all(rows[m.id].relevance == m.confidence for m in stored)
    assert all(rows[m.id].access_count == 0 and rows[m.id].last_accessed is None for m in stored)


def test_a_changed_session_keeps_its_rows_and_drops_those_of_vanished_memories(
        rel: RecallService) -> None:
    tea = _tea(rel, "t-rel-a")
    rel.relevance.boost([tea])
    emojis = next(i for i in _rows(rel) if i.startswith("t-rel-a:") and i != tea)
    changed = _session("t-rel-a")
    changed["messages"][1]["content"] = "Sure."  # the feedback is gone
    rel.ingest_record(changed, replace=True)  # a stored message changed
    rows = _rows(rel)
    assert rows[tea].access_count == 1  # same memory, same id: its history stays
    assert emojis not in rows
    rel.maintenance.reindex()
    assert _rows(rel)[tea] == rows[tea]


def test_concurrent_boosts_all_count(rel: RecallService) -> None:
    from concurrent.futures import ThreadPoolExecutor

    tea = _tea(rel, "t-rel-a")
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda _: rel.relevance.boost([tea]), range(20)))
    assert _rows(rel)[tea].access_count == 20


def test_relevance_decays_with_time_toward_the_floor(rel: RecallService) -> None:
    tea = _tea(rel, "t-rel-a")
    written = _rows(rel)[tea]
    policy = rel.relevance.policy
    rel.relevance.clock = lambda: written.updated_at + 10 * DAY
    listed = {m.id: m for m in rel.relevance.listing(limit=100).memories}
    expected = policy.floor + (0.75 - policy.floor) * (1 - policy.rate) ** 10
    assert listed[tea].relevance == pytest.approx(expected, abs=1e-6)
    rel.relevance.clock = lambda: written.updated_at + 3650 * DAY
    listed = {m.id: m for m in rel.relevance.listing(limit=100).memories}
    assert listed[tea].relevance == pytest.approx(policy.floor, abs=1e-6)
    # listing is most relevant first
    values = [m.relevance for m in rel.relevance.listing(limit=100).memories]
    assert values == sorted(values, reverse=True)


def test_decay_written_down_changes_nothing_read(rel: RecallService) -> None:
    start = time.time()
    rel.relevance.clock = lambda: start + 7 * DAY
    before = {m.id: m.relevance for m in rel.relevance.listing(limit=500).memories}
    report = rel.relevance.decay()
    assert report.updated == len(before) and report.dropped == 0
    assert all(r.updated_at == start + 7 * DAY for r in _rows(rel).values())
    after = {m.id: m.relevance for m in rel.relevance.listing(limit=500).memories}
    assert after == pytest.approx(before)
    rel.relevance.clock = lambda: start + 9 * DAY
    later = {m.id: m.relevance for m in rel.relevance.listing(limit=500).memories}
    assert all(later[i] <= after[i] for i in after)


def test_a_search_that_returns_memories_boosts_them(rel: RecallService) -> None:
    before = _rows(rel)
    assert _memory_search(rel, "zeppelin lounge", memory_rank="match")
    hits = {mid for _, mid in _memory_search(rel, "zeppelin lounge")}
    after = _rows(rel)
    assert {_tea(rel, "t-rel-a"), _tea(rel, "t-rel-b")} <= hits
    for mid in hits:
        assert after[mid].access_count == 2 and after[mid].last_accessed is not None
        assert after[mid].relevance > before[mid].relevance
    untouched = set(before) - hits
    assert all(after[i] == before[i] for i in untouched)
    # a search of the messages returns no memory: nothing changes
    rel.search(SearchRequest(query="zeppelin lounge"))
    assert _rows(rel) == after


def test_a_relevance_write_that_fails_never_breaks_a_search(rel: RecallService) -> None:
    path = rel.data.root / "relevance.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.mkdir()  # SQLite cannot open a folder
    assert _memory_search(rel, "zeppelin lounge")
    assert _memory_search(rel, "zeppelin lounge", memory_rank="relevance")


def test_memory_rank_relevance_orders_by_match_times_relevance(rel: RecallService) -> None:
    a, b = _tea(rel, "t-rel-a"), _tea(rel, "t-rel-b")
    now = time.time()
    rel.relevance.clock = lambda: now + 30 * DAY  # both decayed the same way...
    rel.relevance.boost([b])  # ...then b was used
    request = SearchRequest(query="green tea zeppelin", filters=SearchFilters(scope="memories"),
                            memory_rank="relevance")
    results = rel.search(request).results
    assert [r.session_id for r in results][:2] == ["t-rel-b", "t-rel-a"]
    assert results[0].score_parts["relevance"] > results[1].score_parts["relevance"]
    relevance = rel.relevance.current([a, b])
    assert relevance[b] > relevance[a]
    # the same match, weighed: the score is fused x relevance
    assert results[0].messages[0].score == pytest.approx(
        results[0].score_parts["fused"], rel=1e-3)
    matched = rel.search(SearchRequest(query="green tea zeppelin",
                                       filters=SearchFilters(scope="memories")))
    assert "relevance" not in matched.results[0].score_parts


def test_memory_rank_is_checked(rel: RecallService) -> None:
    with pytest.raises(InvalidQuery, match="memories or all scope"):
        rel.search(SearchRequest(query="tea", memory_rank="relevance"))
    with pytest.raises(InvalidQuery, match="memory rank"):
        rel.search(SearchRequest(query="tea", filters=SearchFilters(scope="all"),
                                 memory_rank="loudest"))  # type: ignore[arg-type]


def test_a_recovery_boosts_the_memories_of_the_chosen_snapshot(rel: RecallService) -> None:
    rel.snapshots.create("t-rel-a")
    rel.snapshots.recover("t-rel-a")
    rows = _rows(rel)
    used = [m for m in MemoryStore(rel.data).load("t-rel-a") or []]
    assert used and all(rows[m.id].access_count == 1 for m in used)
    assert all(rows[m.id].access_count == 0 for m in MemoryStore(rel.data).load("t-rel-b") or [])


def test_prune_lists_and_removes_the_least_relevant_for_good(rel: RecallService) -> None:
    total = rel.relevance.listing().total
    a = _tea(rel, "t-rel-a")
    now = time.time()
    rel.relevance.clock = lambda: now + 60 * DAY
    # every memory but one is used today: the one left decays to the bottom
    rel.relevance.boost(i for i in _rows(rel) if i != a)

    dry = rel.relevance.prune(dry_run=True, max_memories=total - 1)
    assert dry.dry_run and [m.id for m in dry.pruned] == [a]
    assert dry.memories_before == total and dry.memories_after == total - 1
    assert a in {m.id for m in MemoryStore(rel.data).load("t-rel-a") or []}  # nothing removed
    assert ("t-rel-a", a) in _memory_search(rel, "zeppelin lounge")
    # the search used it; a month later every other memory is used again
    rel.relevance.clock = lambda: now + 90 * DAY
    rel.relevance.boost(i for i in _rows(rel) if i != a)

    done = rel.relevance.prune(max_memories=total - 1)
    assert not done.dry_run and [m.id for m in done.pruned] == [a]
    assert done.pruned[0].text == TEA
    assert a not in {m.id for m in MemoryStore(rel.data).load("t-rel-a") or []}
    assert ("t-rel-a", a) not in _memory_search(rel, "zeppelin lounge")
    assert ("t-rel-b", _tea(rel, "t-rel-b")) in _memory_search(rel, "zeppelin lounge")
    gen = rel.searcher.generation()
    keys = [row for table in gen.vectors.rows(["key"], kinds=["memories"])
            for row in table["key"].to_pylist()]
    assert keys and not any(k.endswith(a) for k in keys)
    assert [p.id for p in rel.relevance.pruned().pruned] == [a]
    assert a not in _rows(rel)
    assert rel.maintenance.check().ok

    # neither a reindex nor re-ingesting a changed session brings it back
    rel.maintenance.reindex()
    changed = _session("t-rel-a")
    changed["messages"].append({"id": "m4", "role": "user", "content": "ok, thanks"})
    rel.ingest_record(changed)
    assert a not in {m.id for m in MemoryStore(rel.data).load("t-rel-a") or []}
    assert ("t-rel-a", a) not in _memory_search(rel, "zeppelin lounge")
    assert rel.maintenance.check().ok
    assert rel.relevance.prune(max_memories=10_000).pruned == []


def test_prune_needs_a_maximum(rel: RecallService) -> None:
    with pytest.raises(InvalidInput, match="RECALL_RELEVANCE_MAX_MEMORIES"):
        rel.relevance.prune(dry_run=True)
    with pytest.raises(InvalidInput, match="negative"):
        rel.relevance.prune(max_memories=-1)


def test_deleting_a_session_forgets_its_relevance_and_tombstones(rel: RecallService) -> None:
    rel.relevance.prune(max_memories=rel.relevance.listing().total - 3)
    pruned_sessions = {p.session_id for p in rel.relevance.pruned().pruned}
    assert pruned_sessions
    for session_id in pruned_sessions | {"t-rel-a"}:
        rel.delete(session_id)
    assert rel.relevance.pruned().pruned == []
    assert not any(r.session_id in pruned_sessions | {"t-rel-a"} for r in _rows(rel).values())
    rel.maintenance.purge()
    files = [p for p in rel.data.root.glob("relevance.sqlite3*") if p.is_file()]
    assert files and not any(b"zeppelin" in p.read_bytes() and b"t-rel-a" in p.read_bytes()
                             for p in files)


def test_a_reindex_forgets_sessions_whose_archive_file_is_gone(rel: RecallService) -> None:
    assert any(r.session_id == "t-rel-b" for r in _rows(rel).values())
    next(rel.data.archive.rglob("t-rel-b.json")).unlink()
    rel.maintenance.reindex()
    assert not any(r.session_id == "t-rel-b" for r in _rows(rel).values())
    assert any(r.session_id == "t-rel-a" for r in _rows(rel).values())


def test_settings_from_the_environment() -> None:
    env = {"RECALL_HOME": "/tmp/x", "RECALL_RELEVANCE_DECAY_RATE": "0.1",
           "RECALL_RELEVANCE_FLOOR": "0.2", "RECALL_RELEVANCE_BOOST": "0.3",
           "RECALL_RELEVANCE_MAX_MEMORIES": "500"}
    s = Settings.from_env(env)
    assert (s.relevance_decay_rate, s.relevance_floor, s.relevance_boost,
            s.relevance_max_memories) == (0.1, 0.2, 0.3, 500)
    defaults = Settings.from_env({"RECALL_HOME": "/tmp/x"})
    assert RelevancePolicy(defaults.relevance_decay_rate, defaults.relevance_floor,
                           defaults.relevance_boost) == RelevancePolicy()
    assert defaults.relevance_max_memories is None


@pytest.mark.parametrize(("var", "value"), [
    ("RECALL_RELEVANCE_DECAY_RATE", "1"), ("RECALL_RELEVANCE_DECAY_RATE", "-0.1"),
    ("RECALL_RELEVANCE_FLOOR", "1.5"), ("RECALL_RELEVANCE_BOOST", "2"),
    ("RECALL_RELEVANCE_MAX_MEMORIES", "-3"), ("RECALL_RELEVANCE_FLOOR", "high"),
])
def test_bad_settings_fail_with_a_hint(var: str, value: str) -> None:
    with pytest.raises(InvalidInput, match=f"^{var} must "):
        Settings.from_env({"RECALL_HOME": "/tmp/x", var: value})


@pytest.fixture
def client(rel: RecallService):
    with TestClient(create_app(rel.settings, rel), base_url="http://127.0.0.1") as c:
        yield c


def test_http_list_prune_decay_and_pruned(client: TestClient, rel: RecallService) -> None:
    body = client.get("/v1/memories/relevance", params={"limit": 2}).json()
    assert body["limit"] == 2 and len(body["memories"]) == 2 and body["total"] > 2
    assert set(body["memories"][0]) == {"id", "session_id", "type", "text", "confidence",
                                        "relevance", "access_count", "last_accessed"}
    assert body["policy"] == {"decay_rate": 0.05, "floor": 0.1, "boost": 0.5, "max_memories": None}
    one = client.get("/v1/memories/relevance", params={"session": "t-rel-b"}).json()
    assert {m["session_id"] for m in one["memories"]} == {"t-rel-b"} and one["total"] == 2

    dry = client.post("/v1/memories/prune", params={"dry_run": "true", "max_memories": 1})
    assert dry.status_code == 200 and dry.json()["dry_run"] is True
    assert len(dry.json()["pruned"]) == body["total"] - 1
    assert client.get("/v1/memories/relevance").json()["total"] == body["total"]

    done = client.post("/v1/memories/prune", params={"max_memories": body["total"] - 1}).json()
    assert len(done["pruned"]) == 1 and done["memories_after"] == body["total"] - 1
    listed = client.get("/v1/memories/pruned").json()["pruned"]
    assert [p["id"] for p in listed] == [done["pruned"][0]["id"]]
    assert client.post("/v1/memories/decay").json()["updated"] == body["total"] - 1

    searched = client.get("/v1/search", params={"q": "zeppelin", "scope": "memories",
                                                "memory_rank": "relevance"}).json()
    assert all("relevance" in r["score_parts"] for r in searched["results"])


@pytest.mark.parametrize(("method", "path", "params", "status", "detail"), [
    ("post", "/v1/memories/prune", {"dry_run": "true"}, 400,
     ("no maximum memory count: set RECALL_RELEVANCE_MAX_MEMORIES or give a maximum "
      "(`recall relevance prune --max N`)")),
    ("get", "/v1/memories/relevance", {"session": "nope"}, 404, "no session 'nope'"),
    ("get", "/v1/search", {"q": "tea", "memory_rank": "relevance"}, 400,
     "ranking by memory relevance needs the memories or all scope"),
])
def test_http_errors_have_the_problem_shape(client: TestClient, method: str, path: str,
                                            params: dict[str, str], status: int, detail: str) -> None:
    response = getattr(client, method)(path, params=params)
    assert response.status_code == status
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status and body["detail"] == detail
    assert set(body) == {"type", "title", "status", "detail"}


@pytest.mark.parametrize("params", [{"limit": "0"}, {"limit": "1001"}, {"offset": "-1"}])
def test_http_list_rejects_bad_pages(client: TestClient, params: dict[str, str]) -> None:
    response = client.get("/v1/memories/relevance", params=params)
    assert response.status_code == 400 and response.json()["title"] == "Invalid input"


def test_cli_relevance(recall, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text(json.dumps(_session("t-rel-a")))
    recall("index", str(SESSIONS), str(JSONL), str(tmp_path / "in"))
    listed = json.loads(recall("relevance", "list", "--json").stdout)
    total = listed["total"]
    assert total > 2
    text = recall("relevance", "list", "--limit", "2").stdout
    assert f"2 of {total} memories" in text and "0 pruned" in text
    dry = recall("relevance", "prune", "--dry-run", "--max", str(total - 2)).stdout
    assert dry.count("would prune ") == 3 and "nothing removed" in dry
    no_max = recall("relevance", "prune", ok=False)
    assert no_max.returncode != 0 and "RECALL_RELEVANCE_MAX_MEMORIES" in no_max.stderr
    done = json.loads(recall("relevance", "prune", "--max", str(total - 2), "--json").stdout)
    assert len(done["pruned"]) == 2
    pruned = json.loads(recall("relevance", "pruned", "--json").stdout)["pruned"]
    assert {p["id"] for p in pruned} == {p["id"] for p in done["pruned"]}
    assert "wrote the relevance of" in recall("relevance", "decay").stdout
    found = json.loads(recall("search", "zeppelin", "--memories", "--memory-rank", "relevance",
                              "--json").stdout)
    assert found["results"] and "relevance" in found["results"][0]["score_parts"]
    monkeypatch.setenv("RECALL_RELEVANCE_MAX_MEMORIES", str(total - 3))
    again = recall("relevance", "prune").stdout
    assert again.count("pruned ") >= 2 and f"-> {total - 3}" in again
