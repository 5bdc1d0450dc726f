"""Which memories supersede which: a later statement about the same subject, in the same scope,
that changes its value or reverses its decision. Offline and deterministic (no model beyond the
embedder that already indexes the memories), and explained: every link says why.

The writer keeps its links (indexer/stores/facts.py, chosen among all statements by
indexer/memories/linking.py) and search, memories, recovery, packs and the digest read them
(search/fact_links.py): only a link at least SHOWN sure marks a statement superseded; a less
sure one is kept for a subject's history. Measured by benchmarks/supersession.py on
eval/supersession (links shown): precision 0.88 / recall 0.37 on the tune half, 0.64 / 0.33 on
the test half. Values are read with their type (a clock time, a date, money, a size, a duration, a
distance, a count, a rate, a ratio, a path, a named setting such as "iOS 17" or "MaxConns 40"),
and a pair of memories is judged on:
- **change**: a value of one type both give differs (bare numbers only when the later one says
  it replaces something), or the decision is reversed (allowed / banned) with a replacement cue
  ("instead of", "no longer", "改成", "取代", "恢复禁止"), or such a reversal names the day the
  earlier one was said and a value of it ("取代 2026-03-06 的周五 15:00 前…"), in any language;
- **old value**: when the later one names the value it replaces ("03:30 instead of 2am", "从
  10:00 提前到 8:30", "原来的 ¥18"), the earlier one must hold it; it then needs little else;
- **sameness**: no new value, or "still", "stays", "不变", "还是" without a replacement cue,
  is a restatement, not a supersession;
- **scope**: names of projects or people, or named settings ("iOS" vs "watchOS"), on both sides
  with none in common keep them apart;
- **subject**: their embeddings rise above what each scores against all other memories, by
  less when the old value is named, more for an implicit change (no cue) and most when they
  share few words;
- **order**: the later one was said later (a later session, or later in the same session).

A link is as sure as its strongest evidence: the old value named, a replacement said in words
between statements in mostly the same words, a named setting changed, a replacement said about
statements that share few words, or only a new value. One whose embeddings fall a little short
of the rise its rule needs is kept unsure, below the floor.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.memories.values import (
    VALUE_WORDS,
    bare_values,
    named_old_values,
    statement_values,
    typed_values,
)
from indexer.text.analysis import STOP_WORDS, analyze
from models import Memory

__all__ = ["ISO_DATE", "LINKED_KINDS", "LINKED_TYPES", "SHOWN", "Statement", "Supersession",
           "change_reason", "changed_types", "explicit_cue", "is_negated",
           "least_rise", "supersedes"]

# the memories whose value can change: decisions, constraints, preferences, facts with a value
LINKED_TYPES = frozenset({"project", "user", "reference"})
LINKED_KINDS = frozenset({"decision", "constraint", "preference", "fact", "deadline", "plan",
                          "statement", "number", "version", "config"})
# one subject: most of the shorter statement's words shared, and embeddings that rise this many
# standard deviations above their background: with a replacement cue or one setting changed
# (SAME), with no cue at all (IMPLICIT), with few words shared (CERTAIN), or when the later one
# names the earlier one's value as replaced (NAMED)
# (chosen on the tune half of eval/supersession: benchmarks/supersession.py)
SAME_SUBJECT_OVERLAP = 0.4
SAME_SUBJECT_RISE = 1.8
IMPLICIT_RISE = 2.0
CERTAIN_SUBJECT_RISE = 3.5
NAMED_OLD_RISE = 1.0
# a pair whose embeddings fall short of the rise its rule needs by at most RISE_SLACK still
# links, but unsure: at most UNSURE, SHORT_RISE less per standard deviation short; kept for a
# subject's history, never shown
RISE_SLACK = 1.0
UNSURE, SHORT_RISE = 0.6, 0.2
# how sure a link is, by its strongest evidence: the later statement names the earlier one's
# value (or day) as replaced; says in words that it replaces a value of one subject; sets one
# named setting anew; says so of a subject they share few words about; or only gives a new value
NAMED_OLD, SAID_ALIKE, SETTING, SAID, IMPLICIT = 0.95, 0.9, 0.85, 0.8, 0.7
BARE_NUMBER = 0.1  # less when the changed values are bare numbers ("8 寸" → "6"), no unit
# a link is shown (marks a statement superseded) from this confidence; the others are kept, with
# their reason, for the history of a subject only (chosen on the tune half of eval/supersession:
# no higher floor raised its precision)
SHOWN = 0.7

_EXPLICIT = re.compile(
    r"instead of|no longer|not any ?more|supersed|replac|chang(?:ed|es|e) (?:it )?(?:to|from)|"
    r"mov(?:e|es|ed|ing) (?:back )?(?:to|from)|switch(?:es|ed)? (?:back )?to|"
    r"rais(?:e|es|ed) (?:it )?(?:to|from)|lower(?:s|ed)? (?:it )?(?:to|from)|cut (?:it )?to|"
    r"bump(?:s|ed)? to|now (?:is|are|at)|"
    r"改成|改到|改为|换成|换到|调到|调整为|降到|提到|升到|推翻|取代|作废|不再|恢复|推迟到|提前到|延到|挪到|"
    r"从.{1,12}(?:改|换|调|降|升|挪)",
    re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:no|not|never|ban(?:ned)?|forbid\w*|disallow\w*|stop\w*)\b|"
                       r"禁止|不准|不许|不能|不再|不允许|停止|取消", re.IGNORECASE)
# "still", "不变": a value said again, not replaced
_SAME_CUE = re.compile(r"\b(?:still|unchanged|stays?|remains?|leave (?:it|that)|keeps? \w+ at|"
                       r"didn't move|doesn't change|as before)\b|"
                       r"不变|没变|不动|还是|仍然|依旧|照旧|保持", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Supersession:
    """`later` (a memory id) replaces `earlier`, because of `reason`, with this confidence."""

    later: str
    earlier: str
    confidence: float
    reason: str


def explicit_cue(text: str) -> str | None:
    """The words by which a statement says it replaces an earlier one, if it does."""
    match = _EXPLICIT.search(text)
    return match[0] if match else None


def _subject_words(text: str) -> set[str]:
    """Words that say what a statement is about: not its values, nor the units and dates of
    its values ("days", "april"), which two subjects share as easily as one."""
    return {t for t in analyze(text).body if t not in STOP_WORDS and t not in VALUE_WORDS
            and not any(c.isdigit() for c in t)}


@dataclass(frozen=True, slots=True)
class Statement:
    """A memory read for linking: its subject words, its values, its cues."""

    memory: Memory
    words: frozenset[str]
    values: frozenset[str]
    negated: bool
    cue: str | None
    typed: frozenset[tuple[str, str]] = frozenset()
    old: frozenset[tuple[str, str]] = frozenset()  # values it says it replaces
    steady: bool = False  # says a value stays as it was ("still", "不变")
    new: frozenset[tuple[str, str]] = frozenset()  # its values but the ones it says it replaces
    names: frozenset[str] = frozenset()  # of projects or people
    settings: frozenset[str] = frozenset()  # the named settings it gives ("key:ios")

    @classmethod
    def of(cls, memory: Memory, typed: frozenset[tuple[str, str]] | None = None) -> Statement:
        """`typed`: its typed values when already read."""
        text = memory.text
        typed = typed_values(text) if typed is None else typed
        old = named_old_values(text)
        gone = bare_values(old)
        new = frozenset(v for v in typed if not bare_values(frozenset([v])) & gone)
        return cls(memory, frozenset(_subject_words(text)), statement_values(text),
                   is_negated(text), explicit_cue(text), typed, old,
                   bool(_SAME_CUE.search(text)), new,
                   frozenset(memory.entities.get("names", ())),
                   frozenset(k for k, _ in typed if k.startswith("key:")))


def is_negated(text: str) -> bool:
    """Whether a statement says no to something (banned, not, 禁止): reversed by a yes."""
    return bool(_NEGATION.search(text))


def least_rise(later: Statement) -> float:
    """The least rise at which `later` replaces anything (but by naming the day of the other,
    which needs none): the least _needed_rise can ask of it, less the slack an unsure link
    has. Pairs below it are left out before `supersedes` weighs them."""
    if any(kind != "number" for kind, _ in later.old):
        needed = NAMED_OLD_RISE
    elif later.old or later.cue or any(kind.startswith("key:") for kind, _ in later.new):
        needed = SAME_SUBJECT_RISE
    else:
        needed = IMPLICIT_RISE
    return needed - RISE_SLACK  # a decision reversed needs more: CERTAIN_SUBJECT_RISE


def _by_type(values: frozenset[tuple[str, str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for kind, value in values:
        out.setdefault(kind, set()).add(value)
    return out


def changed_types(later: Statement, earlier: Statement) -> list[str]:
    """The value types both statements give where the later one gives a new value and drops
    an old one; bare numbers only count when the later one says it replaces something."""
    new, old = _by_type(later.new), _by_type(earlier.typed)
    kinds = []
    for kind in new.keys() & old.keys():
        if kind == "number" and later.cue is None:
            continue  # "20" and "40" with no unit could be anything
        if new[kind] - old[kind] and (old[kind] - new[kind] or later.old):
            kinds.append(kind)
    return sorted(kinds)


def _scope_differs(later: Statement, earlier: Statement) -> bool:
    """Names of projects or people, or named settings ("iOS" vs "watchOS"), on both sides and
    none in common: another project's, person's or setting's value."""
    if later.names and earlier.names and not later.names & earlier.names:
        return True
    return bool(later.settings and earlier.settings and not later.settings & earlier.settings)


def _needed_rise(later: Statement, earlier: Statement, kinds: list[str], alike: bool) -> float:
    """How far the embeddings must rise for one subject: less when the later statement names
    the earlier one's value as replaced, or both set one named setting ("MaxConns 20" → 40);
    most when nothing but the embeddings ties them."""
    typed_old = frozenset(v for v in later.old if v[0] != "number")
    if bare_values(typed_old) & bare_values(earlier.typed):
        return NAMED_OLD_RISE
    if not alike:
        return CERTAIN_SUBJECT_RISE
    if later.old or later.cue or any(k.startswith("key:") for k in kinds):
        return SAME_SUBJECT_RISE  # a bare number named as old, a replacement cue, a setting
    return IMPLICIT_RISE


def supersedes(later: Statement, earlier: Statement, relative: float) -> Supersession | None:
    """Whether `later` replaces `earlier` (said before it), and why. `relative` is how far
    their embeddings' cosine rises above what each memory scores against all the others, in
    standard deviations: e5 scores unrelated statements high, so only the rise says much."""
    if later.new <= earlier.typed:
        return None  # nothing new: the same values again
    if _scope_differs(later, earlier):
        return None
    if later.old and not bare_values(later.old) & bare_values(earlier.typed):
        return None  # it names the value it replaces, and that is not this one's
    shared = later.words & earlier.words
    overlap = len(shared) / max(1, min(len(later.words), len(earlier.words)))
    alike = overlap >= SAME_SUBJECT_OVERLAP and len(shared) >= 2
    kinds = changed_types(later, earlier)
    if later.cue is not None and later.negated != earlier.negated \
            and _names_its_day(later, earlier) and _shared_values(later, earlier):
        # "恢复禁止周五上线，取代 2026-03-06 的周五 15:00 前可上线规则": it names the day the
        # other was said and its values, whatever the languages of the two
        reason = f"decision reversed; names the one of {earlier.memory.session_date}"
        return Supersession(later.memory.id, earlier.memory.id, NAMED_OLD,
                            f"{reason}; said in words: “{later.cue}”")
    if kinds:
        if later.steady and later.cue is None:
            return None  # "stays at", "还是": a restatement beside a new value of something else
        short = _needed_rise(later, earlier, kinds, alike) - relative
        if short > RISE_SLACK:
            return None
        reason = change_reason(later, earlier, kinds)
        confidence = _confidence(later, earlier, kinds, alike)
        if short > 0:
            confidence = round(min(confidence, UNSURE) - SHORT_RISE * short, 2)
    elif later.cue is not None and later.negated != earlier.negated and alike \
            and relative >= CERTAIN_SUBJECT_RISE:
        reason, confidence = "decision reversed", SAID_ALIKE
    else:
        return None  # no value of one type changed, and no decision reversed
    if later.cue:
        reason += f"; said in words: “{later.cue}”"
    return Supersession(later.memory.id, earlier.memory.id, confidence, reason)


def change_reason(later: Statement, earlier: Statement, kinds: list[str]) -> str:
    """"clock changed: 10:00 → 10:30": the values of these types, before and after."""
    return (f"{'/'.join(kinds)} changed: "
            f"{', '.join(sorted(v for k, v in earlier.typed if k in kinds)) or '?'} → "
            f"{', '.join(sorted(v for k, v in later.new if k in kinds)) or '?'}")


def _confidence(later: Statement, earlier: Statement, kinds: list[str], alike: bool) -> float:
    """How sure a change of these value types is, by the strongest evidence for it."""
    typed_old = frozenset(v for v in later.old if v[0] != "number")
    if bare_values(typed_old) & bare_values(earlier.typed):
        sure = NAMED_OLD
    elif (later.cue or later.old) and alike:
        sure = SAID_ALIKE
    elif any(k.startswith("key:") for k in kinds):
        sure = SETTING
    elif later.cue or later.old:
        sure = SAID
    else:
        sure = IMPLICIT
    return round(sure - (BARE_NUMBER if kinds == ["number"] else 0.0), 2)


ISO_DATE = re.compile(r"(?<!\d)20\d\d-(\d\d)-(\d\d)(?!\d)")


def _names_its_day(later: Statement, earlier: Statement) -> bool:
    """Whether the later statement names the day the earlier one was said ("2026-03-06",
    "3 月 6 日", "March 6"), in an earlier session."""
    day = earlier.memory.session_date[5:10]
    if not day or earlier.memory.session_date >= later.memory.session_date:
        return False
    named = {f"{m[1]}-{m[2]}" for m in ISO_DATE.finditer(later.memory.text)}
    named |= {v for k, v in later.typed if k == "date"}
    return day in named


def _shared_values(later: Statement, earlier: Statement) -> bool:
    """A value of a type other than a bare number that both give (a time, a weekday, a path)."""
    return any(kind != "number" for kind, _ in later.typed & earlier.typed)
