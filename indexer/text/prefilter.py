"""Literal prefilters for regular expressions: skip a pattern when none of the substrings that
every one of its matches contains is in the text.

Python's `re` tries every alternative at every position, so a rule of twenty alternatives costs
~5-15 µs per sentence even when nothing matches; `in` tests of its needles on a folded copy of
the sentence cost ~1-4 µs, and most rules find none in most sentences. The substrings are derived from the parsed pattern, never
written by hand, so a rule edited later keeps a correct prefilter: where the analysis cannot
tell (a class like \\w, a repeat that may match nothing, flags inside a group), it claims
nothing and the pattern runs as before. Only ASCII and caseless characters (Chinese, digits,
punctuation) are used as needles; `fold` maps every character that IGNORECASE matches to such a
needle onto that needle, so a folded text holds a needle wherever the pattern could match it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING, Any

# `re._parser` is the parser `re.compile` itself uses (`sre_parse`, deprecated under that name
# since 3.11). Any surprise in its output makes the analysis claim nothing.
if TYPE_CHECKING:  # typeshed describes these modules only under their deprecated names
    import sre_constants as sre
    import sre_parse as _parser
else:
    from re import _constants as sre
    from re import _parser

__all__ = ["Prefiltered", "fold", "required_substrings"]

# Characters whose IGNORECASE match is an ASCII letter but whose str.lower() is not it: the
# dotted and dotless i (U+0130 lowers to "i" + a combining dot) and the long s.
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
_MAX_STRINGS = 64  # past this many alternatives a set of exact strings is given up
_RARE_ENOUGH = 4  # a needle weighs one per Latin character, three per other character


def fold(text: str) -> str:
    """The text as the prefilters see it: lowercased, and the i and s look-alikes made ASCII."""
    if not text.isascii() and ("\u0130" in text or "\u0131" in text or "\u017f" in text):
        text = text.translate(_FOLD)  # slow on non-ASCII text, and these letters are rare
    return text.lower()


@dataclass(frozen=True, slots=True)
class _Info:
    exact: frozenset[str] | None  # every string the node can match (folded), when few
    required: frozenset[str] | None  # one of these is in every match, when known


_UNKNOWN = _Info(None, None)
_EMPTY = _Info(frozenset({""}), None)


def required_substrings(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Folded strings one of which every match of pattern contains, or None when unknown."""
    try:
        info = _sequence(_parser.parse(pattern.pattern, pattern.flags))
    except Exception:  # noqa: BLE001 - a tree this code does not know: claim nothing
        return None
    needles = info.required
    if not needles or "" in needles:
        return None
    # "ab" is redundant beside "a": whatever holds "ab" holds "a"
    return frozenset(n for n in needles if not any(m != n and m in n for m in needles))


class Prefiltered:
    """A compiled pattern and its needles: search(text) is pattern.search(text), but skips the
    pattern when fold(text) holds no needle. Callers trying many patterns on one text pass
    its fold once."""

    __slots__ = ("needles", "pattern")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        needles = required_substrings(pattern)
        self.needles = tuple(sorted(needles)) if needles else None

    def search(self, text: str, folded: str | None = None) -> re.Match[str] | None:
        if self.needles is not None:
            folded = fold(text) if folded is None else folded
            for needle in self.needles:  # a plain loop: any() over a generator costs twice this
                if needle in folded:
                    break
            else:
                return None
        return self.pattern.search(text)


def _needle_char(code: int) -> str | None:
    ch = chr(code)
    if ch.isascii():
        return ch.lower()
    if ch.lower() == ch == ch.upper():  # caseless: IGNORECASE matches it only as itself
        return ch
    return None


def _sequence(items: _parser.SubPattern) -> _Info:
    """Concatenation: runs of exactly known nodes join into strings; any of those runs, and
    any node's own requirement, is a requirement of the whole."""
    run: frozenset[str] = frozenset({""})
    exact: frozenset[str] | None = frozenset({""})
    candidates: list[frozenset[str]] = []
    for op, av in items.data:
        info = _node(op, av)
        if info.required is not None:
            candidates.append(info.required)
        if exact is not None:
            exact = _join(exact, info.exact)
        if info.exact is not None:
            joined = _join(run, info.exact)
            if joined is None:  # too many: keep what the run had, start again from this node
                candidates.append(run)
                joined = info.exact
            run = joined
            continue
        candidates.append(run)
        run = frozenset({""})
    candidates.append(run)
    usable = [c for c in candidates if c and "" not in c]
    return _Info(exact, max(usable, key=_strength, default=None))


def _strength(needles: frozenset[str]) -> tuple[int, int]:
    """Which of two valid needle sets to test: each needle costs a scan of the text, so fewer is
    better once the shortest is long enough to be rare (four Latin letters, or two Chinese
    characters; measured on a synthetic archive, 3 and 5 were slower)."""
    rarity = min(sum(1 if ch.isascii() else 3 for ch in needle) for needle in needles)
    return min(rarity, _RARE_ENOUGH), -len(needles)


def _join(left: frozenset[str] | None, right: frozenset[str] | None) -> frozenset[str] | None:
    if left is None or right is None or len(left) * len(right) > _MAX_STRINGS:
        return None
    return frozenset(a + b for a, b in product(left, right))


def _node(op: object, av: Any) -> _Info:
    """What node (op, av) can match; av's shape depends on op."""
    if op is sre.LITERAL:
        ch = _needle_char(av)
        return _UNKNOWN if ch is None else _Info(frozenset({ch}), frozenset({ch}))
    if op is sre.IN:
        return _charset(av)
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):  # zero width: neighbours stay adjacent
        return _EMPTY
    if op is sre.SUBPATTERN:
        _group, add_flags, del_flags, inner = av
        return _UNKNOWN if add_flags or del_flags else _sequence(inner)
    if op is sre.ATOMIC_GROUP:
        return _sequence(av)
    if op is sre.BRANCH:
        return _branch(av[1])
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, high, inner = av
        return _repeat(low, high, _sequence(inner))
    return _UNKNOWN  # ANY, CATEGORY, NOT_LITERAL, GROUPREF, …


def _charset(items: list[tuple[object, Any]]) -> _Info:
    chars: set[str] = set()
    for op, av in items:
        if op is sre.LITERAL:
            codes = [av]
        elif op is sre.RANGE and av[1] - av[0] < _MAX_STRINGS:
            codes = list(range(av[0], av[1] + 1))
        else:  # NEGATE, CATEGORY, a wide range
            return _UNKNOWN
        for code in codes:
            ch = _needle_char(code)
            if ch is None:
                return _UNKNOWN
            chars.add(ch)
    if not chars or len(chars) > _MAX_STRINGS:
        return _UNKNOWN
    return _Info(frozenset(chars), frozenset(chars))


def _branch(alternatives: list[_parser.SubPattern]) -> _Info:
    infos = [_sequence(alt) for alt in alternatives]
    exact: frozenset[str] | None = frozenset()
    required: frozenset[str] | None = frozenset()
    for info in infos:
        exact = None if exact is None or info.exact is None else exact | info.exact
        required = None if required is None or info.required is None else required | info.required
    if exact is not None and len(exact) > _MAX_STRINGS:
        exact = None
    return _Info(exact, required)


def _repeat(low: int, high: int, inner: _Info) -> _Info:
    if low == 0:  # may match nothing: no requirement
        if high == 1 and inner.exact is not None:
            return _Info(inner.exact | {""}, None)
        return _UNKNOWN
    exact = None
    if low == high and inner.exact is not None:
        exact = frozenset({""})
        for _ in range(low):
            exact = _join(exact, inner.exact)
            if exact is None:
                break
    return _Info(exact, inner.required)
