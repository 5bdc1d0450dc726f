"""Find credentials in transcript text and replace each with a [REDACTED:<kind>] marker."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from indexer.text.redact_rules import MARKER_PREFIX, RULES, Find, Token, Value
from indexer.text.redact_rules_base import Anchored

__all__ = ["Redaction", "find_secrets", "redact_text", "redact_value"]

# No rule lets a value start with the marker's "[" (redact_rules.py): redaction is idempotent.
MARKER = MARKER_PREFIX + "{}]"


@dataclass(frozen=True, slots=True)
class Redaction:
    """One finding: text[start:end] is a secret of this kind (the secret itself is not kept)."""

    kind: str
    start: int
    end: int


# A finder yields candidate findings for one kind; a prefilter decides whether to run it at all.
_Finder = Callable[[str], Iterator[Redaction]]


@dataclass(frozen=True, slots=True)
class _Rule:
    kind: str
    find: _Finder
    triggers: tuple[str, ...] = ()  # case-sensitive substrings, any of which must occur
    itriggers: tuple[str, ...] = ()  # lowercase substrings looked up in text.lower()


def _chain(*finders: _Finder) -> _Finder:
    def find(text: str) -> Iterator[Redaction]:
        for f in finders:
            yield from f(text)

    return find


def _regex_finder(
    kind: str,
    pattern: re.Pattern[str],
    check: Callable[[str, re.Match[str]], bool] | None = None,
    matches: Callable[[str], Iterator[re.Match[str]]] | None = None,
) -> _Finder:
    """A finding is the first value group (named v...) that took part, else the whole match;
    with a check, the value is trimmed and must pass it. matches (default: pattern.finditer)
    gives the matches to consider."""
    groups = [name for name in pattern.groupindex if name.startswith("v")]
    each = matches or pattern.finditer

    def find(text: str) -> Iterator[Redaction]:
        for m in each(text):
            name = next((g for g in groups if m.group(g) is not None), None)
            start, end = m.span(name) if name else m.span()
            value = text[start:end]
            if check is not None:
                trimmed = _trim(value, m)
                if not trimmed or not check(trimmed, m):
                    continue
                end = start + len(trimmed)
            yield Redaction(kind, start, end)

    return find


def _trim(value: str, m: re.Match[str]) -> str:
    # Markdown bold (**Password:** x**) and a closing bracket of the surrounding call (f(pw=x))
    # belong to the text around the value, not to the secret.
    if "bold" in m.re.groupindex and value.endswith("**") and value.strip("*"):
        value = value.rstrip("*")
    # An unquoted labelled value (redact_rules_kv.py) ends before a sentence's full stop.
    if "trim" in m.re.groupindex and m.group("trim") is not None:
        value = value.rstrip(".:")
    for open_, close in ("()", "[]", "{}"):
        excess = value.count(close) - value.count(open_)
        end = len(value)
        while excess > 0 and end and value[end - 1] == close:
            end -= 1
            excess -= 1
        value = value[:end]
    return value


def _prefixed(
    kind: str, pattern: re.Pattern[str], check: Callable[[str, re.Match[str]], bool]
) -> _Finder:
    """Whole-token finder: redacts prefix and body; the body (group v) must pass the check."""

    def find(text: str) -> Iterator[Redaction]:
        for m in pattern.finditer(text):
            if check(m.group("v"), m):
                yield Redaction(kind, m.start(), m.end())

    return find


def _spans(spans: Callable[[str], Iterator[tuple[str, int, int]]]) -> _Finder:
    """A catalogue function's (kind, start, end) findings as Redactions."""

    def find(text: str) -> Iterator[Redaction]:
        for kind, start, end in spans(text):
            yield Redaction(kind, start, end)

    return find


_DENSE = 200  # one word per this many characters or more: scan rather than anchor


def _anchored_matches(how: Anchored) -> Callable[[str], Iterator[re.Match[str]]]:
    """Matches of how.pattern tried only at the identifiers holding one of how.words."""

    def matches(text: str) -> Iterator[re.Match[str]]:
        low = text.lower()
        # Scan it all when lowercasing moved offsets (rare letters), or when the words are so
        # dense (hostile input) that one regex scan is cheaper than a match per occurrence.
        if len(low) != len(text) or sum(map(low.count, how.words)) > len(text) // _DENSE:
            yield from how.pattern.finditer(text)
            return
        starts = set()
        for word in how.words:
            at = low.find(word)
            while at >= 0:
                starts.add(_identifier_start(text, at, how.name_chars))
                at = low.find(word, at + len(word))
        end = 0
        for start in sorted(starts):
            if start >= end and (m := how.pattern.match(text, start)) is not None:
                end = m.end()
                yield m

    return matches


def _identifier_start(text: str, at: int, name_chars: str) -> int:
    stop = max(0, at - 64)
    while at > stop and text[at - 1] in name_chars:
        at -= 1
    return at


def _finder(kind: str, how: Find) -> _Finder:
    if isinstance(how, Value):
        return _regex_finder(kind, how.pattern, how.check)
    if isinstance(how, Anchored):
        return _regex_finder(kind, how.pattern, how.check, _anchored_matches(how))
    if isinstance(how, Token):
        return _prefixed(kind, how.pattern, how.check)
    if isinstance(how, tuple):
        return _chain(*(_finder(kind, one) for one in how))
    return _spans(how)


# In the catalogue's order, which is priority.
_RULES: tuple[_Rule, ...] = tuple(
    _Rule(rule.kind, _finder(rule.kind, rule.find), rule.triggers, rule.itriggers)
    for rule in RULES
)


def _merge(accepted: list[Redaction], candidates: list[Redaction]) -> list[Redaction]:
    """Add candidates that overlap neither a higher-priority finding nor each other."""
    out: list[Redaction] = []
    i = 0
    for c in candidates:
        while i < len(accepted) and accepted[i].end <= c.start:
            out.append(accepted[i])
            i += 1
        if i < len(accepted) and accepted[i].start < c.end:
            continue
        if out and out[-1].end > c.start:
            continue
        out.append(c)
    out.extend(accepted[i:])
    return out


# Characters from rarest to commonest in ordinary chat text (letters by English frequency, "."
# among the commonest: nearly every message has one); any other character (CJK, most
# punctuation) counts as rarer than all of them.
_COMMONNESS = "_=:/0123456789-QZXJKVBPYGFWMUCLDRHSNIOATE.qzxjkvbpygfwmucldrhsnioate "


def _gate(needle: str) -> str:
    """The needle's rarest character: a text without it cannot hold the needle."""
    return min(needle, key=_COMMONNESS.find)


def _needle_table() -> tuple[tuple[str, bool, tuple[tuple[str, int], ...]], ...]:
    """Distinct triggers grouped by their rarest character: (gate, folded, ((needle, mask),
    ...)); folded needles are looked up in the lowercased text, and bit i of a mask is
    _RULES[i]."""
    masks: dict[tuple[str, bool], int] = {}
    for i, rule in enumerate(_RULES):
        for needle, folded in [(n, False) for n in rule.triggers] + [
                (n, True) for n in rule.itriggers]:
            masks[needle, folded] = masks.get((needle, folded), 0) | 1 << i
    gates: dict[tuple[str, bool], list[tuple[str, int]]] = {}
    for (needle, folded), mask in masks.items():
        gates.setdefault((_gate(needle), folded), []).append((needle, mask))
    table = [(gate, folded, tuple(group)) for (gate, folded), group in gates.items()]
    return tuple(sorted(table, key=lambda row: not row[0].isascii()))  # ASCII gates first


# Each distinct trigger is tested at most once per text, and only when its rarest character
# occurs: the prefilter's cost stays flat as the catalogue grows (most texts hold no trigger).
# An ASCII text stops before the first non-ASCII gate (Chinese labels).
_NEEDLES = _needle_table()
_ASCII_NEEDLES = tuple(row for row in _NEEDLES if row[0].isascii())


def find_secrets(text: str) -> list[Redaction]:
    """Non-overlapping findings of one pass over text, sorted by position.

    redact_text repeats passes over its own output; this is the first one, with offsets into
    the text given.
    """
    low = text.lower()
    active = 0
    for gate, folded, group in _ASCII_NEEDLES if text.isascii() else _NEEDLES:
        hay = low if folded else text
        if gate in hay:
            for needle, mask in group:
                if needle in hay:
                    active |= mask
    found: list[Redaction] = []
    while active:  # in priority order: lowest set bit first, straight to it
        lowest = active & -active
        candidates = sorted(_RULES[lowest.bit_length() - 1].find(text), key=lambda r: r.start)
        if candidates:
            found = _merge(found, candidates)
        active ^= lowest
    return found


# A pass can uncover a secret it had to skip: a token whose body ran into a higher-priority
# finding overlaps it and is dropped, but matches on its own once that finding is a marker.
# Passes repeat until nothing is found, which is what makes redaction idempotent; each pass
# removes unredacted text, so the loop ends quickly (the cap is a guard, not a tuning knob).
_MAX_PASSES = 8


def redact_text(text: str) -> tuple[str, Counter[str]]:
    """Replace every secret in text with [REDACTED:<kind>]; return the new text and counts by kind."""
    counts: Counter[str] = Counter()
    for _ in range(_MAX_PASSES):
        findings = find_secrets(text)
        if not findings:
            break
        counts.update(r.kind for r in findings)
        parts: list[str] = []
        pos = 0
        for r in findings:
            parts.append(text[pos : r.start])
            parts.append(MARKER.format(r.kind))
            pos = r.end
        parts.append(text[pos:])
        text = "".join(parts)
    return text, counts


def redact_value(value: object) -> tuple[object, Counter[str]]:
    """Redact every string inside nested dicts/lists (keys untouched); returns a new structure."""
    counts: Counter[str] = Counter()

    def walk(v: object) -> object:
        if isinstance(v, str):
            new, c = redact_text(v)
            counts.update(c)
            return new
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, tuple):
            return tuple(walk(x) for x in v)
        return v

    return walk(value), counts
