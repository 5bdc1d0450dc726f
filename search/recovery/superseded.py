"""Recovery that knows what is current: a snapshot's facts that a later statement superseded
count as no longer holding, and the decision names those it restores."""

from __future__ import annotations

import msgspec

from models import RecoveryDecision, Snapshot, TrackedFact
from models.memory import normalize_memory_text
from search.fact_links import FactLinks, fact_of

__all__ = ["with_superseded", "without_superseded"]


def without_superseded(snapshots: list[Snapshot], links: FactLinks,
                       ) -> tuple[list[Snapshot], dict[str, TrackedFact]]:
    """The snapshots with each fact that a later statement superseded marked as no longer
    holding (so recovery prefers snapshots whose facts still stand), and those facts by id."""
    stale: dict[tuple[str, str], TrackedFact] = {}
    for memory_id in links.successor:
        memory = links.memories.get(memory_id)
        if memory is not None:
            stale[(memory.session_id, normalize_memory_text(memory.text))] = fact_of(memory, links)
    marked: dict[str, TrackedFact] = {}
    out = []
    for snapshot in snapshots:
        facts = []
        for fact in snapshot.facts:
            found = stale.get((snapshot.session_id, normalize_memory_text(fact.statement)))
            if found is not None and fact.active:
                marked[fact.id] = found
                fact = msgspec.structs.replace(fact, active=False)
            facts.append(fact)
        out.append(msgspec.structs.replace(snapshot, facts=tuple(facts)))
    return out, marked


def with_superseded(decision: RecoveryDecision,
                    superseded: dict[str, TrackedFact]) -> RecoveryDecision:
    """The decision naming the facts it restores that were superseded later."""
    facts = tuple(superseded[f.id] for f in decision.selected.facts if f.id in superseded)
    if not facts:
        return decision
    first = facts[0]
    assert first.superseded_by is not None
    reason = (f"{len(facts)} fact(s) it restores were superseded later, e.g. “{first.text}” by "
              f"“{first.superseded_by.text}” on {first.superseded_by.date}")
    return msgspec.structs.replace(decision, superseded_facts=facts,
                                   reasons=(*decision.reasons, reason))
