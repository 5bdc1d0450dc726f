"""The query's words in the other language, by the dictionary (indexer/text/dictionary.py): a
keyword query that finds an English session from a Chinese question and the reverse, which the
small multilingual model does only weakly.

Chinese words are found by longest dictionary match in the query's CJK runs (after the question
scaffolding analysis.py removes) and become the stems of their English glosses; English content
words (and two-word phrases: "time zone") become the Chinese words glossed as them. A word with
many translations is ambiguous, so each of its translations weighs less: 1 / n ** power, over the
n (at most MAX_CANDIDATES) that occur in the archive at all. Words the dictionary does not know
(names, identifiers, numbers) stay as they are, at PASSTHROUGH_WEIGHT, when some other word
translates: they read the same in both languages, and raise a hit that holds a translation
(alone they would find the query's own language again).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from indexer.stores.keyword import KeywordHit, KeywordIndex, WeightedTerms
from indexer.text.analysis import QueryTerms, analyze, is_cjk_text
from indexer.text.dictionary import dictionary
from models import SearchFilters

__all__ = ["AMBIGUITY_POWER", "MAX_CANDIDATES", "PASSTHROUGH_WEIGHT", "Translation",
           "search_translated", "translate", "weighted_terms"]

log = logging.getLogger(__name__)

# Chosen on the tune half of eval/ and LoCoMo conversations 26-44 (docs/benchmarks.md, round
# 6): 2 translations a word put more answers in the top 5 than 4 or 8; names kept anywhere
# cost LoCoMo (English only) answers, kept as a boost beside a translation they change nothing
# there.
MAX_CANDIDATES = 2
# The translated list answers only when the archive holds a translation of nearly every word
# the dictionary translates (all of one or two, all but one of three to five): "如何饲养企鹅"
# in an archive that never mentions penguins is not answered by its sessions about raising
# a budget (tests/test_multilingual.py, nonsense finds nothing).
MAY_BE_MISSING = 1 / 3
AMBIGUITY_POWER = 1.0
PASSTHROUGH_WEIGHT = 0.5

# whether a term (or every term of a phrase) occurs in a field of the archive
Occurs = Callable[[str, tuple[str, ...]], bool]


@dataclass(frozen=True, slots=True)
class Translation:
    """One clause of the translated query: the query word it comes from, the field and term (or
    phrase) it searches, and its weight."""

    source: str
    field: str
    tokens: tuple[str, ...]
    weight: float
    kept: bool = False  # a name or identifier kept as it is, not a translation


def translate(terms: QueryTerms, occurs: Occurs | None = None) -> list[Translation]:
    """The translated query of analyzed query terms, each clause once (its highest weight).
    Nothing for a query with a quoted phrase: it asks for those exact words."""
    if terms.phrases:
        return []
    out: list[Translation] = []
    asked = found_words = 0  # words the dictionary translates; those the archive holds
    for run in terms.cjk_strings:
        translations, translatable, held = _from_chinese(run, occurs)
        out += translations
        asked, found_words = asked + translatable, found_words + held
    # a stem of two letters is mostly an acronym cut short ("aws" -> "aw"), not a word
    words = [t for t in terms.body if t.isalpha() and len(t) > 2 and not is_cjk_text(t)]
    translated: set[str] = set()
    for key in [*(f"{a} {b}" for a, b in pairwise(words)), *words]:
        found = _weighed(key, [_chinese_terms(w) for w in dictionary().chinese(key)], occurs)
        if found:
            translated.update(key.split())
            out += found
    asked += sum(1 for w in words if dictionary().chinese(w))
    found_words += sum(1 for w in words if w in translated)
    if found_words < asked - int(asked * MAY_BE_MISSING):
        return []  # the archive lacks what the query is about, in the other language too
    # Names, identifiers and numbers read the same in both languages; they join a query that
    # translates into the archive's words at all (else the list would repeat the keyword one).
    if PASSTHROUGH_WEIGHT and out:
        kept = [t for t in terms.body if not is_cjk_text(t) and t not in translated]
        out += [Translation(t, "body", (t,), PASSTHROUGH_WEIGHT, kept=True) for t in kept]
    best: dict[tuple[str, tuple[str, ...]], Translation] = {}
    for t in out:
        known = best.get((t.field, t.tokens))
        if known is None or t.weight > known.weight:
            best[(t.field, t.tokens)] = t
    return list(best.values())


def weighted_terms(translations: Iterable[Translation]) -> list[WeightedTerms]:
    """The clauses KeywordIndex.search_weighted takes."""
    return [(t.field, t.tokens, t.weight) for t in translations]


def _split(translations: list[Translation]) -> tuple[list[WeightedTerms], list[WeightedTerms]]:
    """The translations, which a hit must hold one of, and the names kept, which only add to
    the score of a hit: alone they would find the query's own language again."""
    return (weighted_terms(t for t in translations if not t.kept),
            weighted_terms(t for t in translations if t.kept))


def _from_chinese(run: str, occurs: Occurs | None) -> tuple[list[Translation], int, int]:
    """A run's translations, with how many of its words the dictionary translates and how many
    of those have a translation the archive holds."""
    words = dictionary().words(run)
    out: list[Translation] = []
    known = held = 0
    for word in words:
        if len(word) == 1 and len(words) > 1:
            continue  # a lone character beside words is mostly grammar ("到", "把")
        senses = [("body", sense.stems) for sense in dictionary().senses(word)]
        translations = _weighed(word, senses, occurs)
        known, held = known + bool(senses), held + bool(translations)
        out += translations
    return out, known, held


def _chinese_terms(word: str) -> tuple[str, tuple[str, ...]]:
    """How a Chinese word is searched: one character in `chars`, else its bigrams in `body` (a
    phrase when there are several)."""
    if len(word) == 1:
        return "chars", (word,)
    return "body", tuple(analyze(word).body)


def _weighed(source: str, options: list[tuple[str, tuple[str, ...]]],
             occurs: Occurs | None) -> list[Translation]:
    kept = [o for o in dict.fromkeys(options) if occurs is None or occurs(*o)][:MAX_CANDIDATES]
    if not kept:
        return []
    weight = 1.0 / len(kept) ** AMBIGUITY_POWER
    return [Translation(source, field, tokens, weight) for field, tokens in kept]


def search_translated(keyword: KeywordIndex, terms: QueryTerms, filters: SearchFilters,
                      limit: int, cache_dir: Path | None = None) -> list[KeywordHit]:
    """The archive's best hits for the translated query, under the request's filters; the
    dictionary's tables are kept in `cache_dir` for the next process."""
    try:
        dictionary(cache_dir)
    except OSError as exc:  # a broken install: search goes on without this list
        log.warning("no cross-lingual keyword list: the dictionary cannot be read (%s)", exc)
        return []
    known: dict[tuple[str, str], bool] = {}

    def occurs(field: str, tokens: tuple[str, ...]) -> bool:
        missing = [t for t in tokens if (field, t) not in known]
        if missing:
            counts, _ = keyword.document_frequencies(missing, field)
            known.update({(field, t): n > 0 for t, n in counts.items()})
        return all(known[(field, t)] for t in tokens)

    clauses, boosts = _split(translate(terms, occurs))
    return keyword.search_weighted(clauses, filters, limit, boosts)
