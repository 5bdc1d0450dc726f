"""The supersession links at one moment (who superseded whom), read from the facts store
(indexer/stores/facts.py), and a statement marked with them: current or superseded, by what."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Protocol

from indexer.memories.supersession import Supersession
from indexer.stores.facts import FactStore
from indexer.stores.layout import DataDir
from indexer.text.analysis import STOP_WORDS, analyze
from models import FactRef, Memory, TrackedFact

__all__ = ["FactLinks", "FactReader", "fact_of", "is_about", "subject_words"]

# a subject matches a statement holding at least this share of its words (and two of them
# when it has more than one)
SUBJECT_MATCH = 2 / 3


class FactReader(Protocol):
    """What reads the links and the statements they join: the facts store, open."""

    def links(self) -> list[Supersession]: ...

    def memories(self, memory_ids: Collection[str]) -> dict[str, Memory]: ...


def _ref(memory: Memory) -> FactRef:
    return FactRef(memory.id, memory.session_id, memory.session_date, memory.text)


class FactLinks:
    """The links at one moment: who superseded whom, and the statements they join."""

    def __init__(self, links: Iterable[Supersession], memories: dict[str, Memory]) -> None:
        self.successor = {link.earlier: link for link in links}
        self.predecessors: dict[str, list[str]] = {}
        for link in self.successor.values():
            self.predecessors.setdefault(link.later, []).append(link.earlier)
        self.memories = memories

    @classmethod
    def load(cls, data: DataDir) -> FactLinks:
        with FactStore(data) as store:
            links = store.links()
            ids = {i for link in links for i in (link.later, link.earlier)}
            return cls(links, store.memories(ids))

    def is_superseded(self, memory_id: str) -> bool:
        return memory_id in self.successor

    def newest(self, memory_id: str) -> str:
        """The end of the chain this statement starts from: what stands now."""
        seen = {memory_id}
        while memory_id in self.successor:
            memory_id = self.successor[memory_id].later
            if memory_id in seen:  # links run forward in time; never loop on bad data
                break
            seen.add(memory_id)
        return memory_id

    def chain(self, memory_id: str) -> list[str]:
        """Every statement linked to this one, directly or not, oldest first: one subject's
        history (a later statement may replace several earlier ones)."""
        seen, todo = {memory_id}, [memory_id]
        while todo:
            current = todo.pop()
            near = list(self.predecessors.get(current, ()))
            if current in self.successor:
                near.append(self.successor[current].later)
            for other in near:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        known = [i for i in seen if i in self.memories]
        return sorted(known, key=lambda i: (self.memories[i].session_date, i))

    def ref(self, memory_id: str) -> FactRef | None:
        memory = self.memories.get(memory_id)
        return _ref(memory) if memory else None


def fact_of(memory: Memory, links: FactLinks) -> TrackedFact:
    link = links.successor.get(memory.id)
    later = links.ref(link.later) if link else None
    earlier = tuple(r for i in links.predecessors.get(memory.id, ()) if (r := links.ref(i)))
    return TrackedFact(memory.id, memory.session_id, memory.type, memory.text, memory.session_date,
                "superseded" if link else "current", memory.kind, later, earlier,
                link.reason if link else None, link.confidence if link else None)


def subject_words(text: str) -> set[str]:
    return {t for t in analyze(text).body if t not in STOP_WORDS}


def is_about(text: str, words: set[str]) -> bool:
    """Whether a statement is about a subject given by its words."""
    shared = len(words & subject_words(text))
    return bool(words) and shared >= min(2, len(words)) and shared >= SUBJECT_MATCH * len(words)
