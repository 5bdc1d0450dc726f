"""The one service object that CLI, HTTP and MCP share: built once, owns searcher and ingestor."""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import msgspec

from api.service.cleanup import cleanup as run_cleanup
from api.service.live import LiveSessionsMixin
from api.service.relevance import MemoryRelevance
from api.service.todos import TodoService
from api.settings import Settings
from indexer import DataDir, Embedder, IndexReport, Ingestor, load_embedder
from indexer.formats import ImportOptions
from indexer.ingest.progress import ProgressFactory, silent_progress
from indexer.maintenance.check import check as check_consistency
from indexer.maintenance.retention import RetentionPolicy, plan_session, trim
from indexer.maintenance.retention import now_iso as retention_now
from indexer.maintenance.retention import plan as plan_retention
from indexer.memories.extract import check_memory_types, extract_memories
from indexer.memories.refine import LLMEndpoint, RefineFailed, refine_memories
from indexer.stores.memories import MemoryStore
from indexer.stores.snapshots import SnapshotStore, snapshot_from_memories
from indexer.stores.state import State
from models import (
    STATUSES,
    ChangeReport,
    IndexUnavailable,
    InvalidInput,
    Memory,
    NotFound,
    RecoveryDecision,
    RecoveryOptions,
    SearchRequest,
    SearchResponse,
    Session,
    Snapshot,
    UnsafeSessionId,
    check_session_id,
    estimate_tokens,
    status_of,
)
from search import Searcher, check_day
from search.digest import build_digest, period_range
from search.recovery.changes import detect_changes
from search.recovery.choose import recover
from search.recovery.compress import compress

__all__ = ["RecallService"]

MAX_PAGE = 500

log = logging.getLogger(__name__)


class RecallService(LiveSessionsMixin):
    def __init__(self, settings: Settings, *, embedder: Embedder | None = None,
                 progress: ProgressFactory = silent_progress) -> None:
        self.settings = settings
        self.data = DataDir(settings.home)
        self._embedder = embedder
        self._lock = threading.Lock()
        self.progress = progress
        self.relevance = MemoryRelevance(self.data, settings, lambda: self.ingestor())
        self.searcher = Searcher(self.data, lambda: self.embedder,
                                 max_query_chars=settings.max_query_chars,
                                 memory_relevance=self.relevance.current)
        self.todos = TodoService(self)  # add, complete, reopen, list, promote (api/todo_service.py)

    @property
    def embedder(self) -> Embedder:
        with self._lock:  # concurrent first requests must not load the model twice
            if self._embedder is None:
                self._embedder = load_embedder(self.settings.embedder, self.settings.model_cache)
        return self._embedder

    def ingestor(self, import_options: ImportOptions | None = None) -> Ingestor:
        return Ingestor(
            self.data, self.embedder,
            max_file_bytes=int(self.settings.max_file_mb * 1_000_000),
            batch_sessions=self.settings.batch_sessions,
            lock_wait=self.settings.lock_wait,
            progress=self.progress,
            import_options=import_options,
        )

    # writes
    def index(self, paths: Sequence[Path],
              import_options: ImportOptions | None = None) -> IndexReport:
        return self.ingestor(import_options).index_paths(paths)

    def ingest_record(self, raw: dict[str, Any]) -> tuple[str, bool]:
        return self.ingestor().ingest_record(raw)

    def delete(self, session_id: str) -> None:
        self.ingestor().delete(self._safe_id(session_id))

    def purge(self) -> dict[str, int]:
        return self.ingestor().purge()

    def reindex(self) -> IndexReport:
        return self.ingestor().reindex()

    def check(self, repair: bool = False) -> dict[str, Any]:
        """Whether archive, state, both indexes and stored memories agree (`recall check`);
        with `repair`, fix what differs from the archive, then check again."""
        report = check_consistency(self.data, self.embedder.name)
        out = report.to_dict()
        if repair and not report.ok:
            whole = {"embedder", "generation"} & {d.kind for d in report.differences}
            if whole:  # another vector space or no usable generation: rebuild everything
                fixed = self.reindex()
            else:
                fixed = self.ingestor().repair(report.affected())
            after = check_consistency(self.data, self.embedder.name).to_dict()
            after["found"] = out["differences"]
            after["repaired"] = {"rebuilt": bool(whole), "sessions": fixed.indexed,
                                 "rejected": [r.path for r in fixed.rejected]}
            return after
        return out

    def retention(self, *, full_days: int | None = None, summary_days: int | None = None,
                  apply: bool = False, today: str | None = None) -> dict[str, Any]:
        """Which sessions the retention policy moves to a lighter tier and what that drops; with
        `apply`, do it. The policy comes from the arguments, else from the settings; with
        neither, retention is off and nothing is planned."""
        if full_days is None and summary_days is None:
            full_days = self.settings.retention_full_days
            summary_days = self.settings.retention_summary_days
        policy = RetentionPolicy(full_days, summary_days)
        as_of = date.fromisoformat(check_day(today)) if today else date.today()
        planned = plan_retention(self.data, policy, as_of)
        out: dict[str, Any] = {
            "enabled": policy.enabled, "dry_run": not apply, "full_days": policy.full_days,
            "summary_days": policy.summary_days, "as_of": as_of.isoformat(),
            "sessions": [p.to_dict() for p in planned],
            "messages_dropped": sum(p.messages for p in planned),
            "characters_dropped": sum(p.characters for p in planned)}
        if apply and planned:
            stamp = retention_now()

            def move(session: Session, memories: list[Memory]) -> Session | None:
                again = plan_session(session, policy, as_of)  # read afresh under the lock
                return trim(session, again.target, memories, stamp) if again else None

            report = self.ingestor().rewrite([p.session_id for p in planned], move)
            out["applied"] = report.indexed
        return out

    def cleanup(self, *, older_than: str | None = None, categories: Sequence[str] = (),
                channels: Sequence[str] = (), keep_snapshots: int | None = None,
                apply: bool = False, today: str | None = None) -> dict[str, Any]:
        """Sessions inactive longer than `older_than` (90d, 12w), optionally only of some
        categories or channels, and snapshots beyond the newest `keep_snapshots` of each
        session: what would go (a dry run), or with `apply`, gone (api/cleanup_service.py)."""
        return run_cleanup(self, older_than=older_than, categories=categories, channels=channels,
                           keep_snapshots=keep_snapshots, apply=apply, today=today)

    # reads
    def search(self, request: SearchRequest) -> SearchResponse:
        response = self.searcher.search(request)
        self.relevance.boost_hits(response)  # the memories it returns were used
        return response

    def session(self, session_id: str, token_budget: int | None = None) -> dict[str, Any]:
        """The archived session, or with a budget: its summary plus the newest messages that fit."""
        path = self._archive_path(self._safe_id(session_id))
        record = json.loads(path.read_text("utf-8"))
        if token_budget is None:
            return record
        if token_budget < 1:
            raise InvalidInput("token budget must be positive")
        budgeted = _within_budget(record, token_budget)
        if budgeted["omittedMessages"] and not record.get("summary") and record.get("status"):
            # a live session has no summary until it is archived: the left-out messages get
            # an extractive one, within half the budget
            half = token_budget // 2
            left_out = _within_budget(record, token_budget - half)["omittedMessages"]
            summary = _live_summary(record["messages"][:left_out], half)
            budgeted = _within_budget(record, token_budget, summary)
        return budgeted

    def list_sessions(self, *, since: str | None = None, until: str | None = None,
                      channel: str | None = None, participant: str | None = None,
                      status: str | None = None, category: str | None = None,
                      limit: int = 50, offset: int = 0) -> dict[str, Any]:
        """Session summaries, newest first; a session ingested from a file counts as archived."""
        if status is not None and status not in STATUSES:
            raise InvalidInput(f"unknown status {status!r}: use one of {', '.join(STATUSES)}")
        if not 1 <= limit <= MAX_PAGE:
            raise InvalidInput(f"limit must be between 1 and {MAX_PAGE}")
        if offset < 0:
            raise InvalidInput("offset must not be negative")
        low = check_day(since) if since else None
        high = check_day(until, end=True) if until else None
        state = State(self.data.state_db)
        try:
            rows = list(state.sessions("indexed"))
        finally:
            state.close()
        summaries = []
        for row in rows:
            if (low and row.date < low) or (high and row.date > high):
                continue
            if channel and (row.channel or "").lower() != channel.lower():
                continue
            meta = {"participants": [], "topics": [], "title": None, "summary": None,
                    "category": None, "status": None}
            meta.update(json.loads(row.meta))
            if participant and participant.lower() not in (p.lower() for p in meta["participants"]):
                continue
            if (status and status_of(meta["status"]) != status) or \
                    (category and (meta["category"] or "").lower() != category.lower()):
                continue
            summaries.append({"session_id": row.session_id, "date": row.date, "channel": row.channel,
                              "participants": meta["participants"], "topics": meta["topics"],
                              "title": meta["title"], "summary": meta["summary"],
                              "message_count": row.message_count, "category": meta["category"],
                              "status": status_of(meta["status"])})
        return {"sessions": summaries[offset : offset + limit], "total": len(summaries),
                "limit": limit, "offset": offset}

    def facets(self) -> dict[str, Any]:
        """The values a search can be filtered by: channels and participants with their session
        counts (most sessions first), and the first and last session dates."""
        state = State(self.data.state_db)
        try:
            rows = list(state.sessions("indexed"))
        finally:
            state.close()
        channels = Counter(r.channel for r in rows if r.channel)
        participants = Counter(p for r in rows for p in json.loads(r.meta).get("participants") or [])
        return {"sessions": len(rows),
                "first_date": min((r.date for r in rows), default=None),
                "last_date": max((r.date for r in rows), default=None),
                "channels": [{"name": n, "sessions": c} for n, c in channels.most_common()],
                "participants": [{"name": n, "sessions": c} for n, c in participants.most_common()]}

    def health(self) -> dict[str, Any]:
        """Raises IndexUnavailable unless both indexes open and agree with the state."""
        gen = self.searcher.generation()
        state = State(self.data.state_db)
        try:
            rows = list(state.sessions())
        finally:
            state.close()
        unfinished = sum(1 for r in rows if r.status != "indexed")
        if unfinished:
            raise IndexUnavailable(f"{unfinished} sessions are half-written; run `recall index` "
                                   "to finish them")
        documents, passages = gen.keyword.num_docs(), gen.vectors.count()
        if bool(rows) != bool(documents) or bool(rows) != bool(passages):
            raise IndexUnavailable("the indexes do not match the archive; run `recall reindex`")
        return {"status": "ok", "sessions": len(rows), "generation": self.data.current_generation()}

    def memories(self, session_id: str, types: Sequence[str] | None = None) -> list[Memory]:
        """Typed memories of an archived session: the ones stored when it was indexed
        (rule-based, near-duplicates removed with the embedder)."""
        wanted = check_memory_types(types)
        session_id = self._safe_id(session_id)
        self._archive_path(session_id)  # NotFound for a session that is not archived
        stored = MemoryStore(self.data).load(session_id)
        if stored is None or self._open_live(session_id):
            # indexed by a version that did not store memories yet, or a live session still
            # taking messages: its memories are extracted when it is archived
            stored = extract_memories(self._archived(session_id), embedder=self.embedder)
        return [m for m in stored if m.type in wanted]

    def memories_payload(self, session_id: str, types: Sequence[str] | None = None, *,
                         refine: bool = False) -> dict[str, Any]:
        """The one JSON shape of extracted memories, for the CLI, HTTP and MCP. With `refine`,
        the configured LLM endpoint revises them; if it fails, the rule-based ones are returned
        with `refine_error` saying why."""
        memories = self.memories(session_id, types)
        payload: dict[str, Any] = {"session_id": session_id}
        if refine:
            memories = self._refined(session_id, types, memories, payload)
        payload["memories"] = [
            {"id": m.id, "type": m.type, "text": m.text, "confidence": m.confidence,
             "source_message_ids": list(m.source_message_ids), "entities": m.entities,
             "session_date": m.session_date, "kind": m.kind, "priority": m.priority,
             "due_date": m.due_date}
            for m in memories]
        return payload

    def _refined(self, session_id: str, types: Sequence[str] | None, memories: list[Memory],
                 payload: dict[str, Any]) -> list[Memory]:
        s = self.settings
        if not s.llm_url:
            raise InvalidInput("refining memories needs an LLM endpoint: set RECALL_LLM_URL "
                               "(see `recall settings`)")
        endpoint = LLMEndpoint(s.llm_url, s.llm_model, s.llm_api_key, s.llm_timeout)
        wanted = check_memory_types(types)
        try:
            refined = refine_memories(self._archived(session_id), self.memories(session_id), endpoint)
        except RefineFailed as exc:
            log.warning("memory refinement failed for %s: %s", session_id, exc.detail)
            payload.update(refined=False, refine_error=exc.detail)
            return memories
        payload["refined"] = True
        return [m for m in refined if m.type in wanted]

    def create_snapshot(self, session_id: str) -> Snapshot:
        """Save the session's current state (its memories) as a new snapshot."""
        session = self._archived(session_id)
        created = datetime.now(UTC).isoformat(timespec="seconds")
        snapshot = snapshot_from_memories(session, self.memories(session_id), created)
        return SnapshotStore(self.data).save_new(snapshot)

    def digest(self, period: str = "week", day: str | None = None) -> dict[str, Any]:
        """Active topics, open tasks, the period's todos (open and done) and one line per day
        for the period around `day`."""
        start, end = period_range(period, datetime.now().date().isoformat() if day is None else day)
        listed = self.list_sessions(since=start, until=end, limit=MAX_PAGE)["sessions"]
        tasks = [m for s in listed for m in self.memories(s["session_id"], ["project"])]
        return build_digest(period, start, end, listed, tasks, self.todos.in_period(start, end))

    def _archived(self, session_id: str) -> Session:
        path = self._archive_path(self._safe_id(session_id))
        return msgspec.json.decode(path.read_bytes(), type=Session)

    def snapshots(self, session_id: str, keep: int | None = None) -> list[Snapshot]:
        """The session's snapshots, oldest first; with `keep`, only the newest N are kept."""
        if keep is not None:
            self.prune_snapshots(session_id, keep)
        return SnapshotStore(self.data).list(self._safe_id(session_id))

    def prune_snapshots(self, session_id: str, keep: int) -> int:
        """Delete all but the newest `keep` snapshots; returns how many were deleted."""
        if keep < 1:
            raise InvalidInput("keep must be at least 1")
        return SnapshotStore(self.data).keep_newest(self._safe_id(session_id), keep)

    def recover(self, session_id: str, context: str | None = None, *,
                options: RecoveryOptions | None = None,
                token_budget: int | None = None) -> RecoveryDecision:
        """Which of the session's snapshots to resume from, how sure, why, and how; with a
        token budget, the selected snapshot comes compressed to fit it."""
        self._recovering(self._safe_id(session_id))
        snapshots = SnapshotStore(self.data).require(self._safe_id(session_id))
        embedder = self.embedder if context and context.strip() else None
        decision = recover(snapshots, context, embedder=embedder, options=options or RecoveryOptions())
        self.relevance.boost_recovery(session_id, decision.selected)
        self._recovered(session_id)  # an open live session is now `recovered`
        if token_budget is not None:
            decision = msgspec.structs.replace(decision, selected=compress(decision.selected, token_budget))
        return decision

    def snapshot(self, session_id: str, snapshot_id: str, token_budget: int | None = None) -> Snapshot:
        """One snapshot, whole or compressed to about `token_budget` tokens."""
        snapshot = self._find_snapshot(self._safe_id(session_id), snapshot_id)
        return snapshot if token_budget is None else compress(snapshot, token_budget)

    def snapshot_changes(self, session_id: str, snapshot_id: str | None = None,
                         against: str | None = None) -> ChangeReport:
        """What changed since a snapshot (default: the newest) up to another snapshot, or by
        default up to the session's current state (its memories now)."""
        session_id = self._safe_id(session_id)
        snapshots = SnapshotStore(self.data).require(session_id)
        before = self._find_snapshot(session_id, snapshot_id) if snapshot_id else snapshots[-1]
        if against:
            after = self._find_snapshot(session_id, against)
        else:
            now = datetime.now(UTC).isoformat(timespec="seconds")
            after = snapshot_from_memories(self._archived(session_id), self.memories(session_id), now)
            after = msgspec.structs.replace(after, id="current")
        return detect_changes(before, after)

    def _find_snapshot(self, session_id: str, snapshot_id: str) -> Snapshot:
        for snapshot in SnapshotStore(self.data).require(session_id):
            if snapshot.id == snapshot_id:
                return snapshot
        raise NotFound(f"session {session_id!r} has no snapshot {snapshot_id!r}")

    def stats(self) -> dict[str, Any]:
        state = State(self.data.state_db)
        try:
            rows = list(state.sessions())
        finally:
            state.close()
        indexed = [r for r in rows if r.status == "indexed"]
        out: dict[str, Any] = {
            "home": str(self.data.root),
            "sessions": len(indexed),
            "messages": sum(r.message_count for r in indexed),
            "unfinished": len(rows) - len(indexed),
            "first_date": min((r.date for r in indexed), default=None),
            "last_date": max((r.date for r in indexed), default=None),
            "channels": dict(Counter(r.channel or "" for r in indexed).most_common()),
            "quarantined": len(list(self.data.quarantine.glob("*.reason.txt")))
            if self.data.quarantine.exists() else 0,
        }
        name = self.data.current_generation()
        if name:
            gen = self.searcher.generation()
            out["index"] = {
                "generation": name,
                "embedder": gen.embedder_name,
                "dim": gen.dim,
                "keyword_documents": gen.keyword.num_docs(),
                "vector_passages": gen.vectors.count(),
                "disk_bytes": _disk_usage(gen.path),
            }
        out["archive_bytes"] = _disk_usage(self.data.archive)
        return out

    def _archive_path(self, session_id: str) -> Path:
        state = State(self.data.state_db)
        try:
            row = state.session(session_id)
        finally:
            state.close()
        path = self.data.archive / row.archive_path if row else None
        if row is None or row.status == "deleting" or path is None or not path.exists():
            raise NotFound(f"no session {session_id!r}")
        return path

    @staticmethod
    def _safe_id(session_id: str) -> str:
        try:
            return check_session_id(session_id)
        except UnsafeSessionId:
            raise NotFound(f"no session {session_id!r}") from None


def _within_budget(record: dict[str, Any], budget: int, summary: str | None = None) -> dict[str, Any]:
    header = {k: v for k, v in record.items() if k != "messages"}
    if summary:
        header["summary"] = summary
    used = estimate_tokens(header.get("summary") or "")
    kept: list[dict[str, Any]] = []
    for message in reversed(record.get("messages", [])):
        cost = estimate_tokens(message.get("content", "")) + 4  # role and framing
        if used + cost > budget:
            break
        kept.append(message)
        used += cost
    kept.reverse()
    header["messages"] = kept
    header["omittedMessages"] = len(record.get("messages", [])) - len(kept)
    header["estimatedTokens"] = used
    return header


def _live_summary(messages: list[dict[str, Any]], budget: int) -> str | None:
    """The first line of the first user message, then of the newest ones, within `budget`."""
    lines = [m.get("content", "").strip().splitlines()[0] for m in messages
             if m.get("role") == "user" and m.get("content", "").strip()]
    kept: list[str] = []
    used = 0
    for line in dict.fromkeys(lines[:1] + lines[:0:-1]):  # the first, then newest first
        cost = estimate_tokens(line)
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return " / ".join(kept) or None


def _disk_usage(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
