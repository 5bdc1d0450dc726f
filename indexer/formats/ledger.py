"""What became of every record a reader read: the ledger of one input file.

A record is the unit an agent writes: a JSON line, an entry of a conversation's list, a node of
a ChatGPT mapping, a row or bubble of a database, a block of an aider history. Each ends in
exactly one fate:

- **imported**: it became a message of a session (or the session's title or summary);
- **merged**: it is another copy or a continuation of a record already imported (a line written
  again as its tool calls finished, an assistant reply written block by block);
- **left out**, with a named reason (a sidechain line, a UI echo, injected context, an unknown
  type, a torn line, ...).

So records read = imported + merged + left out, and `recall import --explain FILE` prints each
record's fate. Besides fates, a ledger counts pieces of records left out (a thinking block
inside a reply that was imported) and characters repaired (a lone surrogate made U+FFFD).

Readers name each record by where it is (`line 12`, `messages[3]`, `node 5b2e…`) and set its
fate when they know it; a later fate replaces an earlier one (a message found empty once
rendered is left out after all). A record read and never given a fate is a reader's bug, and
shows as left out for "no fate (a reader bug)" rather than vanishing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["EMPTY", "IMPORTED", "LEFT_OUT", "MERGED", "UNACCOUNTED", "Fate", "FileRead", "Ledger",
           "LedgerTotals"]

IMPORTED, MERGED, LEFT_OUT = "imported", "merged", "left out"
UNACCOUNTED = "no fate (a reader bug)"


@dataclass(frozen=True, slots=True)
class Fate:
    where: str  # the record's place in its file: "line 12", "messages[3]", "bubble 9f…"
    fate: str  # imported, merged or left out
    reason: str = ""  # why it was left out, or what it merged into / became


@dataclass(frozen=True, slots=True)
class LedgerTotals:
    """A ledger's counts (what `recall index` and `import` report per file)."""

    records: int
    imported: int
    merged: int
    left_out: dict[str, int]  # by reason
    parts_left_out: dict[str, int]  # pieces of kept records: thinking blocks, unknown blocks
    repaired: dict[str, int]  # characters and values made readable

    def adds_up(self) -> bool:
        return self.records == self.imported + self.merged + sum(self.left_out.values())

    def __add__(self, other: LedgerTotals) -> LedgerTotals:
        return LedgerTotals(self.records + other.records, self.imported + other.imported,
                            self.merged + other.merged,
                            _sum(self.left_out, other.left_out),
                            _sum(self.parts_left_out, other.parts_left_out),
                            _sum(self.repaired, other.repaired))


EMPTY = LedgerTotals(0, 0, 0, {}, {}, {})


@dataclass
class FileRead:
    """One input file read by an import or a dry run: the sessions and messages it gave, what
    became of each of its records, and how its reading ended."""

    path: str
    outcome: str  # "read" (its sessions written or found unchanged), "empty", "rejected"
    sessions: int = 0
    messages: int = 0
    ledger: LedgerTotals = EMPTY
    reason: str | None = None  # why it was rejected or had nothing to import


class Ledger:
    def __init__(self) -> None:
        self._fates: dict[str, Fate] = {}  # in the order records were read
        self.parts_left_out: Counter[str] = Counter()
        self.repaired: Counter[str] = Counter()
        self.empty_reason: str | None = None  # why a readable file had nothing to import

    def read(self, where: str) -> None:
        """A record was read; its fate comes later (until then it has none)."""
        self._fates.setdefault(where, Fate(where, LEFT_OUT, UNACCOUNTED))

    def imported(self, where: str, as_what: str = "") -> None:
        self._fates[where] = Fate(where, IMPORTED, as_what)

    def merged(self, where: str, into: str = "") -> None:
        self._fates[where] = Fate(where, MERGED, into)

    def left_out(self, where: str, reason: str) -> None:
        self._fates[where] = Fate(where, LEFT_OUT, reason)

    def newest(self, found: Sequence[tuple[str, str]], as_what: str, later: str) -> str | None:
        """The last of values read in turn, each with where it was (a name given again, a
        summary compacted again): imported as `as_what`, the earlier ones merged into it."""
        if not found:
            return None
        last, last_where = found[-1]
        for _, where in found[:-1]:
            self.merged(where, f"the later {later} on {last_where}")
        self.imported(last_where, as_what)
        return last

    def part_left_out(self, reason: str, count: int = 1) -> None:
        """A piece of a record (a block, a thought) left out while the record itself was kept."""
        self.parts_left_out[reason] += count

    def repair(self, reason: str, count: int = 1) -> None:
        if count:
            self.repaired[reason] += count

    def absorb(self, other: Ledger, prefix: str = "") -> None:
        """Take in another ledger's fates and counts (a session's, into its file's), each place
        prefixed (`conversation 3: `) so that places stay distinct."""
        for fate in other.fates():
            where = prefix + fate.where
            self._fates[where] = Fate(where, fate.fate, fate.reason)
        self.parts_left_out.update(other.parts_left_out)
        self.repaired.update(other.repaired)

    def fate(self, where: str) -> Fate | None:
        return self._fates.get(where)

    def fates(self) -> list[Fate]:
        return list(self._fates.values())

    def left_out_reasons(self) -> Counter[str]:
        return Counter(f.reason for f in self._fates.values() if f.fate == LEFT_OUT)

    def totals(self) -> LedgerTotals:
        kinds = Counter(f.fate for f in self._fates.values())
        return LedgerTotals(len(self._fates), kinds[IMPORTED], kinds[MERGED],
                            dict(sorted(self.left_out_reasons().items())),
                            dict(sorted(self.parts_left_out.items())),
                            dict(sorted(self.repaired.items())))

    def describe(self, shown: int = 4) -> str:
        """The commonest reasons records were left out, for a "nothing to import" message."""
        reasons = self.left_out_reasons()
        if not reasons:
            return "the file is empty" if not self._fates else "no record held conversation"
        return ", ".join(f"{count}× {reason}" for reason, count in reasons.most_common(shown))


def _sum(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    total = Counter(a)
    total.update(b)
    return dict(sorted(total.items()))
