"""Snapshots on disk, snapshots from memories, and the period digest."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from indexer.stores.layout import DataDir
from indexer.stores.snapshots import SnapshotStore, snapshot_from_memories
from models import InvalidQuery, Memory, NotFound, UnsafeSessionId, parse_session, parse_snapshot
from search.digest import Topic, build_digest, period_range


def _snapshot(sid: str, snap: str, created: str, tasks: int = 0) -> dict:
    return {"id": snap, "sessionId": sid, "createdAt": created, "description": "d",
            "tasks": [{"id": f"{snap}-t{i}", "description": f"task {i}", "status": "pending",
                       "priority": "high"} for i in range(tasks)]}


def test_store_saves_lists_and_keeps_newest(tmp_path: Path) -> None:
    store = SnapshotStore(DataDir(tmp_path))
    for n, day in enumerate(["2026-03-01", "2026-03-03", "2026-03-02"]):
        store.save(parse_snapshot(_snapshot("s1", f"snap-{n}", f"{day}T10:00:00+08:00", tasks=n)))
    assert [s.id for s in store.list("s1")] == ["snap-0", "snap-2", "snap-1"]
    assert store.keep_newest("s1", 1) == 2
    assert [s.id for s in store.list("s1")] == ["snap-1"]
    assert store.list("other") == []
    with pytest.raises(NotFound, match="no snapshots"):
        store.require("other")
    with pytest.raises(UnsafeSessionId):
        store.list("../etc")


def test_snapshot_from_memories_maps_types(tmp_path: Path) -> None:
    session = parse_session({"sessionId": "s2", "date": "2026-03-29", "title": "Ledger app",
                             "summary": "Chose Postgres.", "messages": [{"role": "user", "content": "hi"}]})
    memories = [
        Memory(id="s2:mem:1", session_id="s2", type="project", text="用Postgres数据库", confidence=0.9,
               kind="decision", source_message_ids=("s2-m1",)),
        Memory(id="s2:mem:2", session_id="s2", type="project", text="migrate by Friday", confidence=0.8,
               kind="task", priority="high", due_date="2026-04-03"),
        Memory(id="s2:mem:3", session_id="s2", type="feedback", text="不要用Markdown表格", confidence=0.9,
               kind="correction"),
    ]
    snap = snapshot_from_memories(session, memories, "2026-03-29T18:00:00+08:00")
    assert snap.session_id == "s2" and snap.intents[0].description == "Ledger app"
    assert {f.category for f in snap.facts} == {"decision", "preference"}
    assert snap.tasks[0].due_date == "2026-04-03" and snap.tasks[0].priority == "high"
    assert snap.context == "Chose Postgres." and snap.token_count > 0
    store = SnapshotStore(DataDir(tmp_path))
    store.save(snap)
    assert store.list("s2")[0] == snap


def test_longest_session_id_has_snapshots(tmp_path: Path) -> None:
    """A snapshot's id is its session's id plus a suffix: an id at the limit must still make
    snapshots whose file names the file system takes (found by tests/test_schema_fuzz.py)."""
    session = parse_session({"sessionId": "s" * 200, "date": "2026-03-29",
                             "messages": [{"role": "user", "content": "hi"}]})
    store = SnapshotStore(DataDir(tmp_path))
    first = store.save_new(snapshot_from_memories(session, [], "2026-03-29T18:00:00+08:00"))
    second = store.save_new(snapshot_from_memories(session, [], "2026-03-29T18:00:00+08:00"))
    assert second.id == first.id + "-2"
    assert [s.id for s in store.list("s" * 200)] == [first.id, second.id]


@pytest.mark.parametrize(("period", "day", "expected"), [
    ("day", "2026-03-29", ("2026-03-29", "2026-03-29")),
    ("week", "2026-03-29", ("2026-03-23", "2026-03-29")),  # a Sunday: Monday-Sunday week
    ("month", "2026-02-10", ("2026-02-01", "2026-02-28")),
])
def test_period_range(period: str, day: str, expected: tuple[str, str]) -> None:
    assert period_range(period, day) == expected


def test_period_range_rejects_bad_input() -> None:
    with pytest.raises(InvalidQuery, match="period"):
        period_range("year", "2026-01-01")
    with pytest.raises(InvalidQuery, match="cannot read date"):
        period_range("week", "soon")


def test_digest_topics_tasks_activity() -> None:
    sessions = [SimpleNamespace(**s) for s in (
        {"session_id": "a", "date": "2026-03-24", "topics": ["OpenClaw", "记忆系统"], "title": None,
         "summary": "upgrade", "message_count": 4},
        {"session_id": "b", "date": "2026-03-24", "topics": ["OpenClaw"], "title": "Backup", "summary": None,
         "message_count": 2},
        {"session_id": "c", "date": "2026-03-26", "topics": [], "title": None, "summary": None, "message_count": 1},
    )]
    tasks = [Memory(id="x", session_id="a", type="project", text="写周报", confidence=0.8, kind="task",
                    due_date="2026-03-27", priority="high"),
             Memory(id="y", session_id="a", type="user", text="likes tea", confidence=0.8)]
    digest = build_digest("week", "2026-03-23", "2026-03-29", sessions, tasks)
    assert digest.topics[0] == Topic(topic="OpenClaw", sessions=2)
    assert [t.text for t in digest.open_tasks] == ["写周报"]
    assert [a.date for a in digest.activity] == ["2026-03-26", "2026-03-24"]
    assert digest.activity[1].sessions == 2 and "Backup" in digest.activity[1].line
    assert digest.sessions == 3 and digest.messages == 7
