"""Which statement each later one replaces, among all of them: the candidates for a later
statement nearest first, the first the rules of indexer/memories/supersession.py link, and each
chain linked statement to statement (January → February → March, never March → January once
February replaced January). Deterministic whatever order the memories come in.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from indexer.memories.supersession import (
    ISO_DATE,
    LINKED_KINDS,
    LINKED_TYPES,
    MIN_RISE,
    SHOWN,
    Statement,
    Supersession,
    change_reason,
    changed_types,
    supersedes,
)
from models import Memory

if TYPE_CHECKING:  # numpy is loaded when links are computed, not when they are read
    import numpy as np

__all__ = ["link_memories"]


def _order(memory: Memory, position: dict[str, int]) -> tuple[str, str, int]:
    return (memory.session_date, memory.session_id, position.get(memory.id, 0))


def link_memories(memories: Sequence[Memory], vectors: np.ndarray,
                  position: dict[str, int] | None = None) -> list[Supersession]:
    """The supersession links among these memories (vectors: their normalized embeddings, row
    by row). Each later memory links to the earlier one it replaces most surely (of equally
    sure ones, the nearest), or to what already replaced that (_direct). `position` orders
    memories of one session (their source message index)."""
    position = position or {}
    chosen = [i for i, m in enumerate(memories)
              if m.type in LINKED_TYPES and (m.kind or "") in LINKED_KINDS]
    chosen.sort(key=lambda i: _order(memories[i], position))
    if len(chosen) < 2:
        return []
    from indexer.memories.rise import RiseRows

    statements = [Statement.of(memories[i]) for i in chosen]
    kinds = _Kinds(statements)
    # a store's statements are all linked and in this order already: no copy of the vectors
    rise = RiseRows(vectors if chosen == list(range(len(memories))) else vectors[chosen])
    links: dict[str, Supersession] = {}  # by the earlier memory
    by_id = {s.memory.id: s for s in statements}
    # only the rows of statements that can replace anything are computed (most state no
    # value of a type and no cue): the rises are quadratic, the rest of linking is not
    active = [b for b, later in enumerate(statements) if _may_replace(later)]
    for start in range(0, len(active), rise.block):
        rows = active[start:start + rise.block]
        block = rise.rows_at(rows, rows[-1] + 1)  # each against every statement up to it
        for r, b in enumerate(rows):
            later = statements[b]
            best: Supersession | None = None
            for a in _candidates(later, block[r, :b], kinds):  # nearest first
                earlier = statements[a]
                if _one_message(later.memory, earlier.memory, position):
                    continue  # two memories of one statement
                link = supersedes(later, earlier, float(block[r, a]))
                if link is not None and (best is None or link.confidence > best.confidence):
                    best = link  # the surest, and of equally sure ones the nearest
            if best is not None and (link := _direct(best, links, by_id, position)):
                links[link.earlier] = link
    return list(links.values())


def _direct(link: Supersession, links: dict[str, Supersession], by_id: dict[str, Statement],
            position: dict[str, int]) -> Supersession | None:
    """The link to the statement that directly precedes: when what `link` replaces was already
    replaced (January's value by February's), the later one replaces that (March's replaces
    February's, not January's); None when it only says that again. A sure link does not
    follow a link too unsure to be shown."""
    earlier, sure, seen = link.earlier, link.confidence, {link.earlier}
    while earlier in links and (link.confidence < SHOWN or links[earlier].confidence >= SHOWN):
        sure = min(sure, links[earlier].confidence)
        earlier = links[earlier].later
        if earlier in seen:
            break
        seen.add(earlier)
    if earlier == link.earlier:
        return link
    later, between = by_id[link.later], by_id[earlier]
    if later.new <= between.typed or _one_message(later.memory, between.memory, position):
        return None  # says again what already replaced it
    direct = supersedes(later, between, float("inf"))
    if direct is not None:
        return Supersession(link.later, earlier, min(sure, direct.confidence), direct.reason)
    kinds = changed_types(later, between)  # it named an older value than this one's
    reason = change_reason(later, between, kinds) if kinds else link.reason
    cue = f"; said in words: “{later.cue}”" if later.cue and kinds else ""
    return Supersession(link.later, earlier, sure, f"{reason}{cue}")


def _may_replace(later: Statement) -> bool:
    """Whether `later` has any candidates at all (see _candidates): a cue, or a value of a type."""
    return later.cue is not None or bool(later.new)


class _Kinds:
    """Which statements give a value of each type, and which are negated: the conditions
    `supersedes` needs before anything else, tested for all earlier statements at once."""

    def __init__(self, statements: Sequence[Statement]) -> None:
        import numpy as np

        at: dict[str, list[int]] = {}
        for a, statement in enumerate(statements):
            for kind in {kind for kind, _ in statement.typed}:
                at.setdefault(kind, []).append(a)
        self.at = {kind: np.asarray(rows, dtype=np.intp) for kind, rows in at.items()}
        self.negated = np.asarray([s.negated for s in statements], dtype=bool)

    def giving(self, kinds: set[str], before: int) -> np.ndarray:
        """A mask of the statements before `before` that give a value of one of these types."""
        import numpy as np

        mask = np.zeros(before, dtype=bool)
        for kind in kinds:
            rows = self.at.get(kind)
            if rows is not None:
                mask[rows[:np.searchsorted(rows, before)]] = True
        return mask


def _candidates(later: Statement, rises: np.ndarray, kinds: _Kinds) -> list[int]:
    """The earlier statements `later` could replace, nearest first. Without words that say it
    replaces something, only a change of a value of one type can link, and only where the
    embeddings rise far enough for any rule; with them, one that names the day of the other
    needs no rise. Left out beforehand, as `supersedes` would: with a cue, an earlier
    statement that gives no value of a type the later one gives (no value changed, no day's
    values shared) and is no decision reversed where the embeddings rise."""
    import numpy as np

    before = len(rises)
    if later.cue is None:
        new_types = {kind for kind, _ in later.new}
        if not new_types:
            return []
        mask = (rises >= MIN_RISE) & kinds.giving(new_types, before)
    else:
        mask = kinds.giving({kind for kind, _ in later.typed}, before)
        mask |= (kinds.negated[:before] != later.negated) & (rises >= MIN_RISE)
        if not (ISO_DATE.search(later.memory.text) or any(k == "date" for k, _ in later.typed)):
            mask &= rises >= MIN_RISE
    return [int(a) for a in np.flatnonzero(mask)[::-1]]


def _one_message(a: Memory, b: Memory, position: dict[str, int]) -> bool:
    return a.session_id == b.session_id and position.get(a.id, 0) == position.get(b.id, 0)
