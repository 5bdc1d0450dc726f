"""What is true now, for `recall facts` and the digest: statements (decisions, values,
preferences) with their supersession status, read through the links (search/fact_links.py) the
writer keeps (indexer/stores/facts.py)."""

from __future__ import annotations

from collections.abc import Collection

import msgspec

from indexer.stores.facts import FactStore
from indexer.stores.layout import DataDir
from models import InvalidInput, Memory, TrackedFact
from search.digest import Digest
from search.fact_links import FactLinks, fact_of, is_about, subject_words

__all__ = ["Facts", "FactsPayload"]


class FactsPayload(msgspec.Struct, frozen=True, omit_defaults=True):
    """`facts`: newest first (all, or only the current ones); with `history`, `chains` instead:
    each chain of statements oldest to newest, chains with the newest change first."""

    when: str
    facts: tuple[TrackedFact, ...] = ()
    chains: tuple[tuple[TrackedFact, ...], ...] = ()
    subject: str | None = None


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
        if when == "history":  # with the links too unsure to mark anything superseded
            chains = _chains(wanted, links)
            if not subject:  # every subject: only those that changed
                chains = [c for c in chains if len(c) > 1]
            chains = chains[:limit]
            return FactsPayload("history", chains=tuple(
                tuple(fact_of(links.memories[i], links, unsure=True) for i in chain)
                for chain in chains), subject=subject)
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


def _about(memories: list[Memory], subject: str | None) -> list[Memory]:
    if not subject or not subject.strip():
        return memories
    wanted = subject_words(subject)
    if not wanted:
        raise InvalidInput(f"the subject {subject!r} has no words to look for")
    return [m for m in memories if is_about(m.text, wanted)]


def _chains(memories: Collection[Memory], links: FactLinks) -> list[list[str]]:
    """The chains these statements belong to (through unsure links too), each oldest first, the
    most recently changed chain first."""
    chains: dict[str, list[str]] = {}
    for memory in memories:
        chain = links.chain(memory.id, unsure=True)
        if chain:
            chains.setdefault(chain[0], chain)

    def newest_day(chain: list[str]) -> str:
        return max(links.memories[i].session_date for i in chain if i in links.memories)

    ordered = sorted(chains.values(), key=lambda c: (newest_day(c), c[-1]), reverse=True)
    return [[i for i in chain if i in links.memories] for chain in ordered]
