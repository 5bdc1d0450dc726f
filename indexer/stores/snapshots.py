"""Snapshots on disk (`<home>/snapshots/<sessionId>/<snapshotId>.json`), and a snapshot built
from a session's extracted memories."""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence
from pathlib import Path

import msgspec

from indexer.stores.layout import DataDir, atomic_write
from models import (
    Fact,
    Intent,
    Memory,
    NotFound,
    Session,
    Snapshot,
    Task,
    check_session_id,
    parse_snapshot,
)
from models.files import encode_snapshot
from models.ids import check_snapshot_id
from models.snapshot import FactCategory, snapshot_tokens

__all__ = ["SnapshotStore", "snapshot_from_memories"]

# memory kind -> fact category of the conversation-recovery shape
_FACT_CATEGORY: dict[str, FactCategory] = {
    "decision": "decision", "constraint": "constraint", "preference": "preference",
    "correction": "preference", "requirement": "requirement"}


class SnapshotStore:
    def __init__(self, data: DataDir) -> None:
        self.root = data.root / "snapshots"

    def _folder(self, session_id: str) -> Path:
        return self.root / check_session_id(session_id)

    def save(self, snapshot: Snapshot) -> Path:
        path = self._folder(snapshot.session_id) / f"{check_snapshot_id(snapshot.id)}.json"
        atomic_write(path, encode_snapshot(snapshot))
        return path

    def save_new(self, snapshot: Snapshot) -> Snapshot:
        """Save under a fresh id: a snapshot taken in the same second as another one gets a
        numbered suffix instead of replacing it."""
        folder, base, n = self._folder(snapshot.session_id), snapshot.id, 1
        while (folder / f"{check_snapshot_id(snapshot.id)}.json").exists():
            n += 1
            snapshot = msgspec.structs.replace(snapshot, id=f"{base}-{n}")
        self.save(snapshot)
        return snapshot

    def list(self, session_id: str) -> builtins.list[Snapshot]:
        """The session's snapshots, oldest first."""
        folder = self._folder(session_id)
        if not folder.is_dir():
            return []
        snapshots = [parse_snapshot(json.loads(p.read_text("utf-8"))) for p in folder.glob("*.json")]
        return sorted(snapshots, key=lambda s: (s.created_at, s.id))

    def keep_newest(self, session_id: str, keep: int) -> int:
        """Delete all but the newest `keep` snapshots; returns how many were deleted."""
        snapshots = self.list(session_id)
        doomed = snapshots[: max(0, len(snapshots) - keep)]
        for snapshot in doomed:
            (self._folder(session_id) / f"{snapshot.id}.json").unlink(missing_ok=True)
        return len(doomed)

    def delete_session(self, session_id: str) -> None:
        folder = self._folder(session_id)
        for path in folder.glob("*.json") if folder.is_dir() else ():
            path.unlink()
        if folder.is_dir():
            folder.rmdir()

    def require(self, session_id: str) -> builtins.list[Snapshot]:
        snapshots = self.list(session_id)
        if not snapshots:
            raise NotFound(f"session {session_id!r} has no snapshots; create one with "
                           f"`recall snapshot {session_id}`")
        return snapshots


def snapshot_from_memories(session: Session, memories: Sequence[Memory], created_at: str) -> Snapshot:
    """The session's state as a snapshot: its goal as the intent, memories as facts and tasks."""
    snapshot_id = f"{session.session_id}-snap-{created_at.replace(':', '').replace('+', 'p')[:24]}"
    goal = session.title or (session.topics and " · ".join(session.topics)) or _first_user_line(session)
    intents = (Intent(id=f"{snapshot_id}-i1", description=goal, confidence=0.7, fulfilled=False,
                      created_at=created_at),) if goal else ()
    facts, tasks = [], []
    for n, m in enumerate(memories, start=1):
        if m.type == "project" and m.kind in ("task", "deadline"):
            tasks.append(Task(id=f"{snapshot_id}-t{n}", description=m.text, status="pending",
                              priority=m.priority or "medium", related_intent_ids=(),
                              dependencies=(), created_at=created_at, updated_at=created_at,
                              due_date=m.due_date))
        else:
            category = _FACT_CATEGORY.get(m.kind or "", "context")
            facts.append(Fact(id=f"{snapshot_id}-f{n}", statement=m.text, category=category,
                              confidence=round(m.confidence, 3), active=True, created_at=created_at,
                              source_message_id=m.source_message_ids[0] if m.source_message_ids else None))
    snapshot = Snapshot(id=snapshot_id, session_id=session.session_id, created_at=created_at,
                        description=f"from session {session.session_id} ({session.date})",
                        intents=intents, facts=tuple(facts), tasks=tuple(tasks),
                        context=session.summary or "")
    return msgspec.structs.replace(snapshot, token_count=snapshot_tokens(snapshot))


def _first_user_line(session: Session) -> str:
    for message in session.messages:
        if message.role == "user" and message.content.strip():
            line = message.content.strip().splitlines()[0]
            return line if len(line) <= 160 else line[:159] + "…"
    return ""
