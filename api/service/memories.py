"""Memories of a session for the service: the stored ones (or extracted now), refined on request."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from api.service.archive import Archive, safe_id
from api.settings import Settings
from indexer.memories.refine import LLMEndpoint, RefineFailed, refine_memories
from indexer.stores.facts import is_linked
from indexer.stores.memories import MemoryStore
from models import FactRef, InvalidInput, Memory
from models.facts import FactStatus
from models.memory import MemoryType, Priority
from search.fact_links import FactLinks, fact_of

if TYPE_CHECKING:
    from indexer.embedding.embedders import Embedder

__all__ = ["MemoriesPayload", "MemoryOut", "SessionMemories"]

log = logging.getLogger(__name__)


class MemoryOut(msgspec.Struct):
    id: str
    type: MemoryType
    text: str
    confidence: float
    source_message_ids: list[str]
    entities: dict[str, list[str]]
    session_date: str
    kind: str | None
    priority: Priority | None
    due_date: str | None
    # for a decision or value that can change: current or superseded, and what replaced it
    status: FactStatus | None = None
    superseded_by: FactRef | None = None
    supersedes: list[FactRef] = msgspec.field(default_factory=list)
    superseded_reason: str | None = None  # why, when it was superseded
    superseded_confidence: float | None = None


class MemoriesPayload(msgspec.Struct, omit_defaults=True):
    session_id: str
    memories: list[MemoryOut]
    refined: bool | None = None  # set when refining was asked for
    refine_error: str | None = None  # why the rule-based memories came back unrefined


class SessionMemories:
    def __init__(self, archive: Archive, settings: Settings,
                 embedder: Callable[[], Embedder]) -> None:
        self.archive = archive
        self.settings = settings
        self._embedder = embedder  # loads the model on first use

    def of(self, session_id: str, types: Sequence[str] | None = None) -> list[Memory]:
        """Typed memories of an archived session: the ones stored when it was indexed
        (rule-based, near-duplicates removed with the embedder)."""
        # the extractor compiles its pattern tables on import: loaded when memories are read
        from indexer.memories.extract import check_memory_types, extract_memories

        wanted = check_memory_types(types)
        session_id = safe_id(session_id)
        self.archive.path(session_id)  # NotFound for a session that is not archived
        stored = MemoryStore(self.archive.data).load(session_id)
        if stored is None or self.archive.open_live(session_id):
            # indexed by a version that did not store memories yet, or a live session still
            # taking messages: its memories are extracted when it is archived
            stored = extract_memories(self.archive.session(session_id), embedder=self._embedder())
        return [m for m in stored if m.type in wanted]

    def extract(self, session_id: str, types: Sequence[str] | None = None, *,
                refine: bool = False) -> MemoriesPayload:
        """The memories as every interface shows them. With `refine`, the configured LLM
        endpoint revises them; if it fails, the rule-based ones come back with `refine_error`
        saying why."""
        memories = self.of(session_id, types)
        refined: bool | None = None
        error: str | None = None
        if refine:
            memories, error = self._refined(session_id, types, memories)
            refined = error is None
        links = FactLinks.load(self.archive.data)
        return MemoriesPayload(session_id, [_out(m, links) for m in memories], refined, error)

    def _refined(self, session_id: str, types: Sequence[str] | None,
                 memories: list[Memory]) -> tuple[list[Memory], str | None]:
        from indexer.memories.extract import check_memory_types

        s = self.settings
        if not s.llm_url:
            raise InvalidInput("refining memories needs an LLM endpoint: set RECALL_LLM_URL "
                               "(see `recall settings`)")
        endpoint = LLMEndpoint(s.llm_url, s.llm_model, s.llm_api_key, s.llm_timeout)
        wanted = check_memory_types(types)
        try:
            refined = refine_memories(self.archive.session(session_id), self.of(session_id),
                                      endpoint)
        except RefineFailed as exc:
            log.warning("memory refinement failed for %s: %s", session_id, exc.detail)
            return memories, exc.detail
        return [m for m in refined if m.type in wanted], None


def _out(m: Memory, links: FactLinks) -> MemoryOut:
    fact = fact_of(m, links) if is_linked(m) else None
    return MemoryOut(id=m.id, type=m.type, text=m.text, confidence=m.confidence,
                     source_message_ids=list(m.source_message_ids),
                     entities={k: list(v) for k, v in m.entities.items()},
                     session_date=m.session_date, kind=m.kind, priority=m.priority,
                     due_date=m.due_date, status=fact.status if fact else None,
                     superseded_by=fact.superseded_by if fact else None,
                     supersedes=list(fact.supersedes) if fact else [],
                     superseded_reason=fact.reason if fact else None,
                     superseded_confidence=fact.confidence if fact else None)
