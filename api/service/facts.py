"""What is true now: statements (decisions, values, preferences) with their supersession status,
read from the links the writer keeps (indexer/stores/facts.py), for `recall facts`, memories,
search hits, recovery and packs."""

from __future__ import annotations

from collections.abc import Collection, Iterable

import msgspec

from indexer.memories.supersession import Supersession
from indexer.stores.facts import FactStore
from indexer.stores.layout import DataDir
from indexer.text.analysis import STOP_WORDS, analyze
from models import FactRef, InvalidInput, Memory, TrackedFact
from search.digest import Digest

__all__ = ["FactLinks", "Facts", "FactsPayload", "fact_of", "is_about", "subject_words"]

# a subject matches a statement holding at least this share of its words (and two of them
# when it has more than one)
SUBJECT_MATCH = 2 / 3


class FactsPayload(msgspec.Struct, frozen=True, omit_defaults=True):
    """`facts`: newest first (all, or only the current ones); with `history`, `chains` instead:
    each chain of statements oldest to newest, chains with the newest change first."""

    when: str
    facts: tuple[TrackedFact, ...] = ()
    chains: tuple[tuple[TrackedFact, ...], ...] = ()
    subject: str | None = None


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


class Facts:
    def __init__(self, data: DataDir) -> None:
        self.data = data

    def links(self) -> FactLinks:
        return FactLinks.load(self.data)

    def list(self, subject: str | None = None, when: str | None = None,
             limit: int = 50) -> FactsPayload:
        """Statements about a subject (all when none is given): every one marked current or
        superseded (`when` None), only the current ones ("current"), or their chains oldest to
        newest ("history")."""
        if when not in (None, "current", "history"):
            raise InvalidInput(f"when must be current or history, not {when!r}")
        if not 1 <= limit <= 1000:
            raise InvalidInput("limit must be between 1 and 1000")
        with FactStore(self.data) as store:
            statements = [s.memory for s in store.statements()]
            links = FactLinks(store.links(), {m.id: m for m in statements})
        wanted = _about(statements, subject)
        if when == "history":
            chains = _chains(wanted, links)
            if not subject:  # every subject: only those that changed
                chains = [c for c in chains if len(c) > 1]
            chains = chains[:limit]
            return FactsPayload("history", chains=tuple(
                tuple(fact_of(links.memories[i], links) for i in chain) for chain in chains),
                subject=subject)
        # what replaced a statement about the subject is about it too, in whatever words
        wanted = list({m.id: m for m in [*wanted, *(links.memories[links.newest(m.id)]
                                                      for m in wanted)]}.values())
        if when == "current":
            wanted = [m for m in wanted if not links.is_superseded(m.id)]
        newest_first = sorted(wanted, key=lambda m: (m.session_date, m.id), reverse=True)
        return FactsPayload(when or "all", tuple(fact_of(m, links) for m in newest_first[:limit]),
                            subject=subject)


    def mark_digest(self, digest: Digest) -> Digest:
        """The digest with its open tasks that were changed later marked, and the statements
        superseded by one said within the period."""
        links = self.links()
        tasks = [msgspec.structs.replace(t, superseded_by=links.ref(links.newest(t.memory_id)))
                 if links.is_superseded(t.memory_id) else t for t in digest.open_tasks]
        changes = [fact_of(links.memories[earlier], links)
                   for earlier, link in links.successor.items()
                   if earlier in links.memories and link.later in links.memories
                   and digest.start <= links.memories[link.later].session_date <= digest.end]
        changes.sort(key=lambda f: (f.superseded_by.date if f.superseded_by else "", f.id),
                     reverse=True)
        return msgspec.structs.replace(digest, open_tasks=tasks, changes=changes)


def subject_words(text: str) -> set[str]:
    return {t for t in analyze(text).body if t not in STOP_WORDS}


def is_about(text: str, words: set[str]) -> bool:
    """Whether a statement is about a subject given by its words."""
    shared = len(words & subject_words(text))
    return bool(words) and shared >= min(2, len(words)) and shared >= SUBJECT_MATCH * len(words)


def _about(memories: list[Memory], subject: str | None) -> list[Memory]:
    if not subject or not subject.strip():
        return memories
    wanted = subject_words(subject)
    if not wanted:
        raise InvalidInput(f"the subject {subject!r} has no words to look for")
    return [m for m in memories if is_about(m.text, wanted)]


def _chains(memories: Collection[Memory], links: FactLinks) -> list[list[str]]:
    """The chains these statements belong to, each oldest first, the most recently changed
    chain first."""
    chains: dict[str, list[str]] = {}
    for memory in memories:
        chain = links.chain(memory.id)
        if chain:
            chains.setdefault(chain[0], chain)

    def newest_day(chain: list[str]) -> str:
        return max(links.memories[i].session_date for i in chain if i in links.memories)

    ordered = sorted(chains.values(), key=lambda c: (newest_day(c), c[-1]), reverse=True)
    return [[i for i in chain if i in links.memories] for chain in ordered]
