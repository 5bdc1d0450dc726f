"""Which statement each later one replaces, among all of them: the candidates for a later
statement nearest first, the first the rules of indexer/memories/supersession.py link, and each
chain linked statement to statement (January → February → March, never March → January once
February replaced January). Deterministic whatever order the memories come in.

Only a statement that gives a value of a type can replace anything, and most pairs cannot link
whatever their embeddings: the rules ask for a value of one type on both sides, or else a
decision reversed between statements whose embeddings rise very far (CERTAIN_SUBJECT_RISE).
So linking reads every statement once, keeping only those that give a value (with their
vectors), weighs each pair of those that could link, and finds the far-rising reversals in a
second pass over the vectors alone: its memory follows the statements that give values, not
the archive (444 MB at peak where holding every statement took 2.3 GB, at 100k sessions).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

from indexer.memories.supersession import (
    CERTAIN_SUBJECT_RISE,
    ISO_DATE,
    LINKED_KINDS,
    LINKED_TYPES,
    SHOWN,
    Statement,
    Supersession,
    change_reason,
    changed_types,
    is_negated,
    least_rise,
    supersedes,
)
from indexer.memories.values import typed_values
from models import Memory

if TYPE_CHECKING:  # numpy is loaded when links are computed, not when they are read
    import numpy as np

    from indexer.memories.rise import RiseRows, RiseStats

__all__ = ["StatementRows", "link_memories", "link_statements"]

# one candidate of a later statement: the earlier one's number and their rise
Candidate = tuple[int, float]


class StatementRows(Protocol):
    """The statements to link, numbered in the order they were said (by session date, session,
    place in the session)."""

    def in_order(self) -> Iterator[tuple[Memory, int, np.ndarray]]:
        """Each statement in that order: its memory, its place in its session, its vector."""

    def vector_parts(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Every vector again, in parts in any order: (their numbers, their vectors)."""

    def memories(self, numbers: list[int]) -> dict[int, tuple[Memory, int]]:
        """These statements' memories and places, by number."""


def link_memories(memories: Sequence[Memory], vectors: np.ndarray,
                  position: dict[str, int] | None = None) -> list[Supersession]:
    """The supersession links among these memories (vectors: their normalized embeddings, row
    by row). `position` orders memories of one session (their source message index)."""
    return link_statements(_Listed(memories, vectors, position or {}))


def link_statements(rows: StatementRows) -> list[Supersession]:
    """Each later statement links to the earlier one it replaces most surely (of equally sure
    ones, the nearest), or to what already replaced that (_direct)."""
    import numpy as np

    from indexer.memories.rise import RiseRows, RiseStats

    held, stats = _Held(), None
    for number, (memory, place, vector) in enumerate(rows.in_order()):
        if stats is None:
            stats = RiseStats(len(vector))
        held.read(number, memory, place, vector, stats)
    later_ones = [n for n in held.numbers if held.statements[n].new]
    if stats is None or held.count < 2 or not later_ones:
        return []  # nothing can replace anything
    held.done(stats)
    kept = np.asarray(held.vectors, dtype=np.float32)
    rise = RiseRows(kept, *stats.of(kept))
    best: dict[int, Supersession] = {}
    reversals = _reversals(rows, held, rise, stats, later_ones)
    for columns, group in held.groups(later_ones):
        step = rise.block_for(len(columns))
        for start in range(0, len(group), step):
            block_rows = group[start:start + step]
            cells = columns[:np.searchsorted(columns, block_rows[-1])]  # those said before
            block = rise.rows_at(held.slot[block_rows], held.slot[cells])
            for r, b in enumerate(block_rows):
                before = int(np.searchsorted(cells, b))
                nearby = _candidates(held.statements[b], cells[:before], block[r, :before])
                found = _best(held, b, sorted(nearby + reversals.get(b, []), reverse=True))
                if found is not None:
                    best[b] = found
    by_id = {s.memory.id: s for s in held.statements.values()}
    links: dict[str, Supersession] = {}  # by the earlier memory
    for b in sorted(best):  # each chain in the order its statements were said
        if link := _direct(best[b], links, by_id, held.position):
            links[link.earlier] = link
    return list(links.values())


class _Held:
    """What linking keeps of the statements read in order: every one's number and whether it
    says no; the statements that give a value of a type, with their vectors."""

    def __init__(self) -> None:
        self.count = 0
        self.negated: list[bool] = []
        self.statements: dict[int, Statement] = {}  # by number
        self.numbers: list[int] = []  # of the statements held, ascending
        self.vectors: list[np.ndarray] = []  # theirs, in that order
        self.position: dict[str, int] = {}  # memory id -> place in its session
        self.at: dict[str, list[int]] = {}  # value type -> the numbers of those giving one
        self._part: list[np.ndarray] = []  # vectors not yet added to the statistics
        self.slot: np.ndarray  # number -> row of `vectors` (-1: not held), once all are read

    def read(self, number: int, memory: Memory, place: int, vector: np.ndarray,
             stats: RiseStats) -> None:
        self._part.append(vector)
        if len(self._part) == stats.BLOCK:
            self._add_part(stats)
        self.count += 1
        self.negated.append(is_negated(memory.text))
        typed = typed_values(memory.text)
        if not typed:
            return  # replaces nothing, and is replaced only by a decision reversed
        statement = Statement.of(memory, typed)
        self.statements[number] = statement
        self.numbers.append(number)
        self.vectors.append(vector)
        self.position[memory.id] = place
        for kind in {kind for kind, _ in typed}:
            self.at.setdefault(kind, []).append(number)

    def _add_part(self, stats: RiseStats) -> None:
        import numpy as np

        stats.add(np.asarray(self._part, dtype=np.float32))
        self._part = []

    def done(self, stats: RiseStats) -> None:
        """Every statement read: the last vectors added to the statistics."""
        import numpy as np

        if self._part:
            self._add_part(stats)
        self.slot = np.full(self.count, -1, dtype=np.intp)
        self.slot[self.numbers] = np.arange(len(self.numbers))

    def add(self, number: int, memory: Memory, place: int) -> None:
        """One more statement, read again for a decision it may reverse."""
        self.statements[number] = Statement.of(memory)
        self.position[memory.id] = place

    def giving(self, kinds: frozenset[str]) -> np.ndarray:
        """The numbers of the statements that give a value of one of these types, ascending."""
        import numpy as np

        parts = [np.asarray(self.at[kind], dtype=np.intp) for kind in kinds if kind in self.at]
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.intp)

    def groups(self, later_ones: list[int]) -> Iterator[tuple[np.ndarray, list[int]]]:
        """The later statements in groups that weigh the same earlier ones, with those: the
        statements giving a value of a type the later one gives anew (a change), or with
        words that say it replaces something, of any type it gives (a day named, a value
        said again with another)."""
        groups: dict[frozenset[str], list[int]] = {}
        for b in later_ones:
            later = self.statements[b]
            kinds = frozenset(kind for kind, _ in (later.typed if later.cue else later.new))
            groups.setdefault(kinds, []).append(b)
        for kinds, rows in groups.items():
            yield self.giving(kinds), rows


def _reversals(rows: StatementRows, held: _Held, rise: RiseRows, stats: RiseStats,
               later_ones: list[int]) -> dict[int, list[Candidate]]:
    """For each later statement with words that say it replaces something, the earlier ones
    it may reverse beyond those of its group: said with the other polarity, giving no value of
    its types, their embeddings rising at least CERTAIN_SUBJECT_RISE (the only rule that can
    link them). Found in one pass over every vector; those not held are read again."""
    import numpy as np

    from indexer.memories.rise import RiseRows

    said = [b for b in later_ones if held.statements[b].cue is not None]
    if not said:
        return {}
    negated = np.asarray(held.negated, dtype=bool)
    slots = held.slot[said]
    kinds = {b: frozenset(kind for kind, _ in held.statements[b].typed) for b in said}
    outside: dict[frozenset[str], np.ndarray] = {}  # by types given: those giving none of them
    for types in set(kinds.values()):
        outside[types] = np.ones(held.count, dtype=bool)
        outside[types][held.giving(types)] = False
    width = rise.block_for(len(said))  # columns at a time: a bounded block of rises
    found: dict[int, list[Candidate]] = {}
    for part_numbers, part_vectors in rows.vector_parts():
        for start in range(0, len(part_numbers), width):
            numbers, vectors = part_numbers[start:start + width], part_vectors[start:start + width]
            mean, spread = stats.of(vectors)
            mine = held.slot[numbers] >= 0  # held: their statistics as computed for the pairs
            mean[mine] = rise.mean[held.slot[numbers[mine]]]
            spread[mine] = rise.spread[held.slot[numbers[mine]]]
            cells = RiseRows(vectors, mean, spread).against(
                rise.vectors[slots], rise.mean[slots], rise.spread[slots], len(vectors))
            for r, b in enumerate(said):
                mask = (numbers < b) & (cells[r] >= CERTAIN_SUBJECT_RISE)
                mask &= outside[kinds[b]][numbers] & (negated[numbers] != held.statements[b].negated)
                found.setdefault(b, []).extend(
                    (int(a), float(z)) for a, z in zip(numbers[mask], cells[r][mask], strict=True))
    missing = sorted({a for pairs in found.values() for a, _ in pairs} - held.statements.keys())
    for number, (memory, place) in rows.memories(missing).items():
        held.add(number, memory, place)
    return found


def _best(held: _Held, b: int, candidates: list[Candidate]) -> Supersession | None:
    """The surest link of statement `b` to one of its candidates (nearest first), and of
    equally sure ones the nearest."""
    later = held.statements[b]
    best: Supersession | None = None
    for a, rise in candidates:
        earlier = held.statements[a]
        if _one_message(later.memory, earlier.memory, held.position):
            continue  # two memories of one statement
        link = supersedes(later, earlier, rise)
        if link is not None and (best is None or link.confidence > best.confidence):
            best = link
    return best


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


def _candidates(later: Statement, columns: np.ndarray, rises: np.ndarray) -> list[Candidate]:
    """Which of the earlier statements numbered `columns` (of its group, _Held.groups) `later`
    could replace, by `supersedes`' own conditions: where their embeddings rise enough for
    any rule (least_rise), but a statement that says it replaces one of the day it names."""
    import numpy as np

    mask = rises >= least_rise(later)
    if later.cue is not None and (ISO_DATE.search(later.memory.text)
                                  or any(k == "date" for k, _ in later.typed)):
        mask[:] = True
    at = np.flatnonzero(mask)
    return [(int(a), float(z)) for a, z in zip(columns[at], rises[at], strict=True)]


def _one_message(a: Memory, b: Memory, position: dict[str, int]) -> bool:
    return a.session_id == b.session_id and position.get(a.id, 0) == position.get(b.id, 0)


class _Listed:
    """Memories in a list, with their vectors, as StatementRows: those that can be superseded,
    in the order they were said."""

    def __init__(self, memories: Sequence[Memory], vectors: np.ndarray,
                 position: dict[str, int]) -> None:
        chosen = [i for i, m in enumerate(memories)
                  if m.type in LINKED_TYPES and (m.kind or "") in LINKED_KINDS]
        chosen.sort(key=lambda i: (memories[i].session_date, memories[i].session_id,
                                   position.get(memories[i].id, 0)))
        self.memories_in_order = [memories[i] for i in chosen]
        self.vectors = vectors[chosen] if chosen else vectors[:0]
        self.position = position

    def in_order(self) -> Iterator[tuple[Memory, int, np.ndarray]]:
        import numpy as np

        for memory, vector in zip(self.memories_in_order, self.vectors, strict=True):
            yield memory, self.position.get(memory.id, 0), np.asarray(vector, dtype=np.float32)

    def vector_parts(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        import numpy as np

        yield np.arange(len(self.vectors)), np.asarray(self.vectors, dtype=np.float32)

    def memories(self, numbers: list[int]) -> dict[int, tuple[Memory, int]]:
        return {n: (self.memories_in_order[n], self.position.get(self.memories_in_order[n].id, 0))
                for n in numbers}
