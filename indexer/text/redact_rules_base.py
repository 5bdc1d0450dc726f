"""Building blocks shared by the redactor's rule modules: rule records, label regex builders
and small value checks."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = [
    "DIGIT",
    "LOWER",
    "MARKER_PREFIX",
    "NAME_PARTS",
    "UPPER",
    "Anchored",
    "Find",
    "Rule",
    "Token",
    "Value",
    "hex_body",
    "label",
    "low_diversity",
    "not_after",
    "random_body",
    "token_re",
    "word",
]

# Markers start with "[" and end with "]"; no pattern lets a value start with "[" or a label be
# followed by "]", so redacted text never matches again (idempotence).
MARKER_PREFIX = "[REDACTED:"


@dataclass(frozen=True, slots=True)
class Value:  # the first value group (named v...) that took part, else the whole match
    pattern: re.Pattern[str]
    check: Callable[[str, re.Match[str]], bool] | None = None  # the value, trimmed, must pass it


@dataclass(frozen=True, slots=True)
class Token:  # the whole token, prefix and body, if the body (group v) passes check
    pattern: re.Pattern[str]
    check: Callable[[str, re.Match[str]], bool]


@dataclass(frozen=True, slots=True)
class Anchored:
    """Like Value, but the pattern is only tried where one of the lowercase words occurs (found
    with str.find, far cheaper than a regex scan), from the start of the identifier holding the
    word: the run of name_chars before it."""

    pattern: re.Pattern[str]
    check: Callable[[str, re.Match[str]], bool]
    words: tuple[str, ...]
    name_chars: str = ""


Find = (
    Value | Token | Anchored | tuple[Value | Anchored, ...]
    | Callable[[str], Iterator[tuple[str, int, int]]]
)


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    find: Find  # a tuple is tried in turn; a function yields (kind, start, end)
    triggers: tuple[str, ...] = ()  # case-sensitive substrings, any of which must occur
    itriggers: tuple[str, ...] = ()  # lowercase substrings looked up in text.lower()


DIGIT = re.compile(r"[0-9]")
UPPER = re.compile(r"[A-Z]")
LOWER = re.compile(r"[a-z]")
# The parts of an identifier: words in any case (split at camelCase) and short numbers.
NAME_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def low_diversity(value: str) -> bool:
    # xxxxxxxx, ********, 00000000: placeholders and masks, not secrets
    return len(set(value.lower())) < 4


def random_body(v: str, m: re.Match[str]) -> bool:
    # generated bodies mix digits with letters, or both cases; placeholders (xxxx) do not
    if low_diversity(v):
        return False
    return bool(DIGIT.search(v)) or bool(UPPER.search(v) and LOWER.search(v))


def hex_body(v: str, m: re.Match[str]) -> bool:
    # random hex has both digits and letters; 000... and aaaa... are placeholders
    return not low_diversity(v) and bool(DIGIT.search(v)) and bool(re.search("[a-fA-F]", v))


def not_after(before: str, width: int) -> str:
    """Lookbehind for use right after a literal of this width: the character before the
    literal is not in [before], or is the n/r/t of a JSON escape (raw "...\\npassword: x")."""
    return f"(?:(?<![{before}].{{{width}}})|(?<=\\\\[nrt].{{{width}}}))"


def word(*literals: str, before: str = "A-Za-z0-9") -> str:
    """Alternation of literals, each not preceded by a [before] character.

    The check is a lookbehind placed after the literal: a leading lookbehind would stop the
    regex engine from jumping straight to occurrences of a literal prefix (about 20x slower).
    """
    alts = [
        re.escape(lit) + not_after(before, len(lit))
        for lit in sorted(literals, key=len, reverse=True)
    ]
    return f"(?:{'|'.join(alts)})"


def label(before: str, *words: str) -> str:
    """Case-insensitive alternation of label regexes, each not preceded by a [before] character.

    Built as "[Xx..](?<![before].)(?i:(?<=x)rest|..)": a leading plain character set lets the
    engine skip to candidate positions; a case-insensitive alternation of many words would be
    tried at every position (10x slower on large texts).
    """
    firsts = sorted({w[0].lower() for w in words})
    branches = "|".join(f"(?<={w[0]}){w[1:]}" for w in words)
    return f"[{''.join(c + c.upper() for c in firsts)}]{not_after(before, 1)}(?i:{branches})"


def token_re(prefixes: tuple[str, ...], body: str, before: str = "A-Za-z0-9_") -> re.Pattern[str]:
    """A whole token: one of the prefixes, then group v (the body regex ends the token)."""
    return re.compile(word(*prefixes, before=before) + f"(?P<v>{body})")
