"""Find credentials in transcript text and replace each with a [REDACTED:<kind>] marker."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from indexer.text.redact_rules import MARKER_PREFIX, RULES, Find, Token, Value

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
    kind: str, pattern: re.Pattern[str], check: Callable[[str, re.Match[str]], bool] | None = None
) -> _Finder:
    """A finding is the first value group (named v...) that took part, else the whole match;
    with a check, the value is trimmed and must pass it."""
    groups = [name for name in pattern.groupindex if name.startswith("v")]

    def find(text: str) -> Iterator[Redaction]:
        for m in pattern.finditer(text):
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


def _finder(kind: str, how: Find) -> _Finder:
    if isinstance(how, Value):
        return _regex_finder(kind, how.pattern, how.check)
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


def find_secrets(text: str) -> list[Redaction]:
    """Non-overlapping findings of one pass over text, sorted by position.

    redact_text repeats passes over its own output; this is the first one, with offsets into
    the text given.
    """
    low: str | None = None  # lowercased only when a case-insensitive trigger is needed
    active = []
    for rule in _RULES:
        if _holds_any(text, rule.triggers):
            active.append(rule)
        elif rule.itriggers:
            if low is None:
                low = text.lower()
            if _holds_any(low, rule.itriggers):
                active.append(rule)
    found: list[Redaction] = []
    for rule in active:  # in priority order
        candidates = sorted(rule.find(text), key=lambda r: r.start)
        if candidates:
            found = _merge(found, candidates)
    return found


def _holds_any(text: str, needles: tuple[str, ...]) -> bool:
    for needle in needles:  # a plain loop: any() over a generator costs twice as much here
        if needle in text:
            return True
    return False


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
