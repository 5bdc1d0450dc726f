"""Memory relevance for the service: boosts when memories are used, listing, decay written down
and pruning past the maximum count; the same typed results for the CLI, HTTP and MCP.

The math is search/relevance.py, the state indexer/stores/relevance.py; see docs/memory-relevance.md.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import msgspec

from api.service.limits import MAX_LISTED
from api.settings import Settings
from indexer.stores.layout import DataDir
from indexer.stores.lock import WriterLock
from indexer.stores.memories import MemoryStore
from indexer.stores.relevance import RelevanceRow, RelevanceStore
from indexer.stores.state import State
from models import InvalidInput, Memory, NotFound, SearchResponse, Snapshot
from models.memory import normalize_memory_text
from search.relevance import RelevancePolicy, Scored, lowest_first, to_prune

if TYPE_CHECKING:
    from indexer.ingest.ingestor import Ingestor

__all__ = ["DecayReport", "MemoryRelevance", "MemoryRelevanceOut", "PruneReport",
           "PrunedList", "PrunedMemoryOut", "RelevanceList", "RelevancePolicyOut"]

log = logging.getLogger(__name__)

# a boost waits at most this long for the relevance file; then it is skipped (and logged)
BOOST_TIMEOUT = 2.0


class RelevancePolicyOut(msgspec.Struct):
    decay_rate: float
    floor: float
    boost: float
    max_memories: int | None


class MemoryRelevanceOut(msgspec.Struct):
    id: str
    session_id: str
    type: str
    text: str
    confidence: float
    relevance: float  # now, after decay
    access_count: int  # times a search returned it or a recovery used it
    last_accessed: str | None


class RelevanceList(msgspec.Struct):
    as_of: str
    policy: RelevancePolicyOut
    total: int
    limit: int
    offset: int
    pruned_total: int
    memories: list[MemoryRelevanceOut]


class PruneReport(msgspec.Struct):
    dry_run: bool
    as_of: str
    max_memories: int
    memories_before: int
    memories_after: int
    pruned: list[MemoryRelevanceOut]  # least relevant first; with dry_run, what would go


class DecayReport(msgspec.Struct):
    as_of: str
    policy: RelevancePolicyOut
    updated: int
    dropped: int


class PrunedMemoryOut(msgspec.Struct):
    id: str
    session_id: str
    type: str
    text: str
    relevance: float  # when it was pruned
    pruned_at: str


class PrunedList(msgspec.Struct):
    pruned: list[PrunedMemoryOut]


class MemoryRelevance:
    def __init__(self, data: DataDir, settings: Settings, ingestor: Callable[[], Ingestor],
                 clock: Callable[[], float] = time.time) -> None:
        self.data = data
        self.settings = settings
        self._ingestor = ingestor
        self.clock = clock  # epoch seconds; tests and the simulation move it

    @property
    def policy(self) -> RelevancePolicy:
        s = self.settings
        return RelevancePolicy(s.relevance_decay_rate, s.relevance_floor, s.relevance_boost,
                               s.relevance_max_memories)

    # used by search and recovery: never let relevance bookkeeping fail them
    def current(self, memory_ids: list[str]) -> dict[str, float]:
        """memory id -> relevance now, for the ids that have a row (memory_rank=relevance)."""
        policy, now = self.policy, self.clock()
        try:
            with RelevanceStore(self.data, timeout=BOOST_TIMEOUT) as store:
                rows = store.rows(memory_ids)
        except sqlite3.Error as exc:
            log.warning("could not read memory relevance: %s", exc)
            return {}
        return {i: policy.at(r.relevance, r.updated_at, now) for i, r in rows.items()}

    def boost(self, memory_ids: Iterable[str]) -> list[RelevanceRow]:
        """Raise these memories' relevance (one transaction); a failure is logged, not raised."""
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return []
        policy, now = self.policy, self.clock()

        def raised(memory_id: str, row: RelevanceRow | None) -> RelevanceRow:
            if row is None:  # indexed before relevance was kept: counts as new
                return RelevanceRow(memory_id, memory_id.rsplit(":mem:", 1)[0], 1.0, now, 1, now)
            value = policy.boosted(policy.at(row.relevance, row.updated_at, now))
            return RelevanceRow(memory_id, row.session_id, value, now, row.access_count + 1, now)

        try:
            with RelevanceStore(self.data, timeout=BOOST_TIMEOUT) as store:
                return store.update(ids, raised)
        except (sqlite3.Error, OSError) as exc:
            log.warning("could not record the use of %d memories: %s", len(ids), exc)
            return []

    def boost_hits(self, response: SearchResponse) -> None:
        """The memories a search returned were used."""
        self.boost(m.id for r in response.results for m in r.messages if m.memory_type and m.id)

    def boost_recovery(self, session_id: str, snapshot: Snapshot) -> None:
        """The memories a recovery resumes from were used: those of the session whose text is a
        fact, task or intent of the chosen snapshot."""
        try:
            memories = MemoryStore(self.data).load(session_id) or []
        except InvalidInput:
            return
        used = {normalize_memory_text(t) for t in (
            *(f.statement for f in snapshot.facts), *(t.description for t in snapshot.tasks),
            *(i.description for i in snapshot.intents))}
        self.boost(m.id for m in memories if normalize_memory_text(m.text) in used)

    # listing, decay, pruning
    def listing(self, *, limit: int = 50, offset: int = 0,
                session_id: str | None = None) -> RelevanceList:
        """Memories with their relevance now, most relevant first."""
        if not 1 <= limit <= MAX_LISTED:
            raise InvalidInput(f"limit must be between 1 and {MAX_LISTED}")
        if offset < 0:
            raise InvalidInput("offset must not be negative")
        now = self.clock()
        entries = [entry for entry, _ in reversed(self._entries(now, session_id))]
        with RelevanceStore(self.data) as store:
            pruned = len(store.pruned([session_id] if session_id else None))
        return RelevanceList(as_of=_iso(now), policy=self._policy_out(), total=len(entries),
                             limit=limit, offset=offset, pruned_total=pruned,
                             memories=entries[offset : offset + limit])

    def pruned(self, session_id: str | None = None) -> PrunedList:
        """The memories pruning removed (tombstones), newest first."""
        with RelevanceStore(self.data) as store:
            found = store.pruned([session_id] if session_id else None)
        return PrunedList([PrunedMemoryOut(p.memory_id, p.session_id, p.type, p.text,
                                           round(p.relevance, 4), _iso(p.pruned_at))
                           for p in found])

    def decay(self) -> DecayReport:
        """Write every memory's decayed relevance down (the values read do not change: decay is
        computed from elapsed time anyway); give rows to memories without one and drop rows of
        memories that no longer exist."""
        policy = self.policy
        with WriterLock(self.data.lock_file, self.settings.lock_wait):
            now = self.clock()
            memories = {m.id: m for m in self._memories(None)}
            with RelevanceStore(self.data) as store:
                stale = set(store.rows()) - set(memories)
                store.forget_memories(stale)

                def decayed(memory_id: str, row: RelevanceRow | None) -> RelevanceRow:
                    m = memories[memory_id]
                    if row is None:
                        return RelevanceRow(m.id, m.session_id, policy.initial(m.confidence), now, 0, None)
                    value = policy.at(row.relevance, row.updated_at, now)
                    return RelevanceRow(m.id, m.session_id, value, now, row.access_count,
                                        row.last_accessed)

                written = store.update(list(memories), decayed)
        return DecayReport(_iso(now), self._policy_out(), len(written), len(stale))

    def prune(self, *, dry_run: bool = False, max_memories: int | None = None) -> PruneReport:
        """Remove the least relevant memories past the maximum count, and list every one removed
        (with dry_run: list them, remove nothing)."""
        limit = self.settings.relevance_max_memories if max_memories is None else max_memories
        if limit is None:
            raise InvalidInput("no maximum memory count: set RECALL_RELEVANCE_MAX_MEMORIES or "
                               "give a maximum (`recall relevance prune --max N`)")
        if limit < 0:
            raise InvalidInput("the maximum memory count must not be negative")
        now = self.clock()
        entries = self._entries(now, None)
        by_id = {entry.id: entry for entry, _ in entries}
        chosen = to_prune([scored for _, scored in entries], limit)
        victims = [by_id[s.memory_id] for s in chosen]
        if victims and not dry_run:
            removed = self._ingestor().prune_memories({e.id: e.relevance for e in victims}, now)
            done = {p.memory_id for p in removed}
            victims = [e for e in victims if e.id in done]
        return PruneReport(dry_run=dry_run, as_of=_iso(now), max_memories=limit,
                           memories_before=len(entries),
                           memories_after=len(entries) - len(victims), pruned=victims)

    def _entries(self, now: float,
                 session_id: str | None) -> list[tuple[MemoryRelevanceOut, Scored]]:
        """Every memory with its relevance now, least relevant first."""
        policy = self.policy
        memories = self._memories(session_id)
        with RelevanceStore(self.data) as store:
            rows = store.rows([m.id for m in memories])
        out: dict[str, tuple[MemoryRelevanceOut, Scored]] = {}
        for m in memories:
            row = rows.get(m.id)
            value = policy.at(row.relevance, row.updated_at, now) if row else policy.initial(m.confidence)
            last = row.last_accessed if row else None
            entry = MemoryRelevanceOut(id=m.id, session_id=m.session_id, type=m.type, text=m.text,
                                       confidence=m.confidence, relevance=round(value, 6),
                                       access_count=row.access_count if row else 0,
                                       last_accessed=_iso(last) if last else None)
            out[m.id] = (entry, Scored(m.id, value, last))
        return [out[s.memory_id] for s in lowest_first(scored for _, scored in out.values())]

    def _memories(self, session_id: str | None) -> list[Memory]:
        """The stored memories of every indexed session (or of one)."""
        state = State(self.data.state_db)
        try:
            if session_id is not None:
                row = state.session(session_id)
                if row is None or row.status != "indexed":
                    raise NotFound(f"no session {session_id!r}")
                ids = [session_id]
            else:
                ids = [r.session_id for r in state.sessions("indexed")]
        finally:
            state.close()
        store = MemoryStore(self.data)
        return [m for sid in ids for m in store.load(sid) or []]

    def _policy_out(self) -> RelevancePolicyOut:
        p = self.policy
        return RelevancePolicyOut(p.rate, p.floor, p.boost, p.max_memories)


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")
