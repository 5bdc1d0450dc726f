"""Which memories supersede which: a later statement about the same subject, in the same scope,
that changes its value or reverses its decision. Offline and deterministic (no model beyond the
embedder that already indexes the memories), and explained: every link says why.

A first version, measured and not yet used by search (benchmarks/supersession.py; the figures
are in docs/benchmarks.md). A pair of memories is judged on four things:
- **subject**: the two statements are about the same thing: their embeddings rise well above
  what each scores against all other memories, and they share most of their words, or the later
  one says it replaces something (then the rise alone must be higher);
- **scope**: names of projects or people on both sides with none in common keep them apart;
- **change**: the values differ (a time, an amount, a version, a path, a place), or the decision
  is reversed (allowed / banned), or the later one says in words that it replaces the old one
  ("instead of", "no longer", "改成", "取代", "恢复禁止"), which makes the link certain;
- **order**: the later one was said later (a later session, or later in the same session).

A restatement of the same value is not a supersession. Of the later memories that supersede one
earlier memory, the first one said is its successor: a chain A → B → C links B to A and C to B.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from indexer.text.analysis import STOP_WORDS, analyze
from models import Memory

__all__ = ["LINKED_KINDS", "LINKED_TYPES", "Statement", "Supersession", "explicit_cue",
           "link_memories", "relative_similarity", "statement_values", "supersedes"]

# the memories whose value can change: decisions, constraints, preferences, facts with a value
LINKED_TYPES = frozenset({"project", "user", "reference"})
LINKED_KINDS = frozenset({"decision", "constraint", "preference", "fact", "deadline", "plan",
                          "statement", "number", "version", "config"})
# one subject: most of the shorter statement's words shared, and embeddings that rise this many
# standard deviations above their background; an explicit replacement needs less of the words
# (chosen on the tune half of eval/supersession: benchmarks/supersession.py)
SAME_SUBJECT_OVERLAP = 0.4
SAME_SUBJECT_RISE = 1.8
CERTAIN_SUBJECT_RISE = 3.5

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
_CLOCK = re.compile(r"(?<![\d.])([01]?\d|2[0-3])\s*[:：]\s*([0-5]\d)(?![\d.])")
_HOUR_WORD = re.compile(r"(?<![\d.])(1[0-2]|[1-9])\s*(am|pm|a\.m\.|p\.m\.)", re.IGNORECASE)
_CN_HOUR = re.compile(r"(凌晨|早上|上午|中午|下午|晚上)?\s*(\d{1,2})\s*点(半)?")
_NUMBER = re.compile(r"(?<![\w.])[$¥€£]?\s?\d[\d,]*(?:\.\d+)?")
_PATH = re.compile(r"(?:[a-z]+://)?(?:[\w.-]*/)+[\w.-]+", re.IGNORECASE)
_WEEKDAYS = {
    "monday": "mon", "tuesday": "tue", "wednesday": "wed", "thursday": "thu", "friday": "fri",
    "saturday": "sat", "sunday": "sun", "周一": "mon", "周二": "tue", "周三": "wed",
    "周四": "thu", "周五": "fri", "周六": "sat", "周日": "sun", "星期一": "mon", "星期二": "tue",
    "星期三": "wed", "星期四": "thu", "星期五": "fri", "星期六": "sat", "星期日": "sun",
}
_WEEKDAY = re.compile("|".join(sorted(map(re.escape, _WEEKDAYS), key=len, reverse=True)),
                      re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Supersession:
    """`later` (a memory id) replaces `earlier`, because of `reason`, with this confidence."""

    later: str
    earlier: str
    confidence: float
    reason: str


def statement_values(text: str) -> frozenset[str]:
    """The values a statement gives: clock times, numbers and amounts, paths, weekdays."""
    values: set[str] = set()
    rest = text
    for pattern, show in ((_CLOCK, lambda m: f"{int(m[1]):02d}:{m[2]}"),
                          (_HOUR_WORD, _hour_word), (_CN_HOUR, _cn_hour),
                          (_PATH, lambda m: m[0].rstrip(".").lower())):
        for match in pattern.finditer(rest):
            values.add(show(match))
        rest = pattern.sub(" ", rest)
    for match in _NUMBER.finditer(rest):
        values.add(match[0].replace(",", "").replace(" ", ""))
    values.update(_WEEKDAYS[m[0].lower()] for m in _WEEKDAY.finditer(text))
    return frozenset(values)


def _hour_word(match: re.Match[str]) -> str:
    hour = int(match[1]) % 12 + (12 if match[2].lower().startswith("p") else 0)
    return f"{hour:02d}:00"


def _cn_hour(match: re.Match[str]) -> str:
    hour = int(match[2])
    if match[1] in ("下午", "晚上") and hour < 12:
        hour += 12
    return f"{hour:02d}:{'30' if match[3] else '00'}"


def explicit_cue(text: str) -> str | None:
    """The words by which a statement says it replaces an earlier one, if it does."""
    match = _EXPLICIT.search(text)
    return match[0] if match else None


def _subject_words(text: str) -> set[str]:
    return {t for t in analyze(text).body if t not in STOP_WORDS and not any(c.isdigit() for c in t)}


@dataclass(frozen=True, slots=True)
class Statement:
    """A memory read for linking: its subject words, its values, its cues."""

    memory: Memory
    words: frozenset[str]
    values: frozenset[str]
    negated: bool
    cue: str | None

    @classmethod
    def of(cls, memory: Memory) -> Statement:
        return cls(memory, frozenset(_subject_words(memory.text)), statement_values(memory.text),
                   bool(_NEGATION.search(memory.text)), explicit_cue(memory.text))


def supersedes(later: Statement, earlier: Statement, relative: float) -> Supersession | None:
    """Whether `later` replaces `earlier` (said before it), and why. `relative` is how far
    their embeddings' cosine rises above what each memory scores against all the others, in
    standard deviations: e5 scores unrelated statements high, so only the rise says much."""
    shared = later.words & earlier.words
    overlap = len(shared) / max(1, min(len(later.words), len(earlier.words)))
    new, old = later.values, earlier.values
    names_a = set(later.memory.entities.get("names", ()))
    names_b = set(earlier.memory.entities.get("names", ()))
    if names_a and names_b and not names_a & names_b:
        return None  # another project's or person's value
    names_old_value = bool(new & old) and bool(new - old) and later.cue is not None
    same_subject = ((overlap >= SAME_SUBJECT_OVERLAP and len(shared) >= 2
                     and relative >= SAME_SUBJECT_RISE)
                    or (names_old_value and relative >= SAME_SUBJECT_RISE)
                    or (later.cue is not None and relative >= CERTAIN_SUBJECT_RISE))
    if not same_subject:
        return None
    if new and old and new != old:
        reason = (f"value changed: {', '.join(sorted(old - new)) or '?'} → "
                  f"{', '.join(sorted(new - old)) or '?'}")
        confidence = 0.9 if later.cue else 0.7
    elif later.cue is not None and later.negated != earlier.negated:
        reason, confidence = "decision reversed", 0.9
    else:
        return None  # the same value again, or nothing that changed
    if later.cue:
        reason += f"; said in words: “{later.cue}”"
    return Supersession(later.memory.id, earlier.memory.id, confidence, reason)


def _order(memory: Memory, position: dict[str, int]) -> tuple[str, str, int]:
    return (memory.session_date, memory.session_id, position.get(memory.id, 0))


def link_memories(memories: Sequence[Memory], vectors: np.ndarray,
                  position: dict[str, int] | None = None) -> list[Supersession]:
    """The supersession links among these memories (vectors: their normalized embeddings, row
    by row). Each earlier memory gets at most one successor: the first later memory that
    supersedes it. `position` orders memories of one session (their source message index)."""
    position = position or {}
    chosen = [i for i, m in enumerate(memories)
              if m.type in LINKED_TYPES and (m.kind or "") in LINKED_KINDS]
    chosen.sort(key=lambda i: _order(memories[i], position))
    if len(chosen) < 2:
        return []
    statements = [Statement.of(memories[i]) for i in chosen]
    rise = relative_similarity(vectors[chosen])
    links: list[Supersession] = []
    for a, earlier in enumerate(statements):
        for b in range(a + 1, len(statements)):
            later = statements[b]
            if later.memory.session_id == earlier.memory.session_id and \
                    position.get(later.memory.id, 0) == position.get(earlier.memory.id, 0):
                continue  # one message: two memories of one statement
            link = supersedes(later, earlier, float(rise[b, a]))
            if link is not None:
                links.append(link)
                break  # the first later statement that replaces it is its successor
    return links


def relative_similarity(vectors: np.ndarray) -> np.ndarray:
    """Each pair's cosine in standard deviations above the mean of both rows (the diagonal
    left out): the rise over what each memory scores against everything else."""
    sims = vectors @ vectors.T
    n = len(sims)
    off = ~np.eye(n, dtype=bool)
    mean = (sims.sum(axis=1) - sims.diagonal()) / (n - 1)
    spread = np.sqrt(np.maximum(((sims - mean[:, None]) ** 2 * off).sum(axis=1) / (n - 1), 1e-12))
    z = (sims - mean[:, None]) / spread[:, None]
    return (z + z.T) / 2
