"""The supersession links at one moment (who superseded whom), read from the facts store
(indexer/stores/facts.py), and a statement marked with them: current or superseded, by what.

Only a link at least SHOWN sure marks a statement superseded, for every reader (search, facts,
memories, recovery, packs, the digest); the less sure ones are kept apart (`unsure`) and shown,
with their reason and confidence, only in a subject's history (`recall facts --history`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Protocol

from indexer.memories.supersession import SHOWN, Supersession
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

    def __init__(self, links: Iterable[Supersession], memories: dict[str, Memory],
                 floor: float = SHOWN) -> None:
        self.successor: dict[str, Supersession] = {}
        self.unsure: dict[str, Supersession] = {}  # below the floor: history only
        for link in links:
            (self.successor if link.confidence >= floor else self.unsure)[link.earlier] = link
        self.predecessors = _predecessors(self.successor)
        self.unsure_predecessors = _predecessors(self.unsure)
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

    def chain(self, memory_id: str, unsure: bool = False) -> list[str]:
        """Every statement linked to this one, directly or not, oldest first: one subject's
        history (a later statement may replace several earlier ones); through the unsure links
        too when asked."""
        seen, todo = {memory_id}, [memory_id]
        while todo:
            current = todo.pop()
            near = list(self.predecessors.get(current, ()))
            if current in self.successor:
                near.append(self.successor[current].later)
            if unsure:
                near += self.unsure_predecessors.get(current, ())
                if current in self.unsure:
                    near.append(self.unsure[current].later)
            for other in near:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        known = [i for i in seen if i in self.memories]
        return sorted(known, key=lambda i: (self.memories[i].session_date, i))

    def ref(self, memory_id: str) -> FactRef | None:
        memory = self.memories.get(memory_id)
        return _ref(memory) if memory else None


def _predecessors(successor: dict[str, Supersession]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for link in successor.values():
        out.setdefault(link.later, []).append(link.earlier)
    return out


def fact_of(memory: Memory, links: FactLinks, unsure: bool = False) -> TrackedFact:
    """The statement marked current or superseded; with `unsure`, a link below the floor is
    told too (`maybe_superseded_by`, its reason and confidence) while it stays current."""
    link = links.successor.get(memory.id)
    later = links.ref(link.later) if link else None
    earlier = tuple(r for i in links.predecessors.get(memory.id, ()) if (r := links.ref(i)))
    maybe = links.unsure.get(memory.id) if unsure and link is None else None
    told = link or maybe
    return TrackedFact(memory.id, memory.session_id, memory.type, memory.text, memory.session_date,
                       "superseded" if link else "current", memory.kind, later, earlier,
                       told.reason if told else None, told.confidence if told else None,
                       links.ref(maybe.later) if maybe else None)


def subject_words(text: str) -> set[str]:
    return {t for t in analyze(text).body if t not in STOP_WORDS}


def is_about(text: str, words: set[str]) -> bool:
    """Whether a statement is about a subject given by its words."""
    shared = len(words & subject_words(text))
    return bool(words) and shared >= min(2, len(words)) and shared >= SUBJECT_MATCH * len(words)
