"""Literal prefilters never drop a match: derived needles, folding, and the memory rules with and
without them over random matches and over real and synthetic text."""

from __future__ import annotations

import ast
import json
import random
import re
import sys
from pathlib import Path
from re import _constants as sre
from re import _parser

import pytest

from indexer.formats.sources import RawSession, discover, load_file, normalize
from indexer.memories import patterns as memory_patterns
from indexer.memories.extract import _sentences, extract_memories
from indexer.text.prefilter import Prefiltered, fold, required_substrings
from models import RecallError

from .helpers import DATA

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import generate_archive

RULES = {name: value for name, value in vars(memory_patterns).items()
         if isinstance(value, Prefiltered)}


# -- the analysis on small patterns ---------------------------------------------------------------
@pytest.mark.parametrize(("pattern", "needles"), [
    (r"\bfoo(?:bar|baz)\b", {"foobar", "foobaz"}),
    (r"a?b", {"b"}),  # the optional part may be missing
    (r"\w+ing\b", {"ing"}),
    (r"[^a]bc", {"bc"}),
    (r"x*|y", None),  # one alternative matches the empty string
    (r"abc|\d+", None),  # one alternative has no literal
    (r"(?i:abc)", None),  # flags inside a group: not analysed
    (r"(?:ab){2}", {"abab"}),
    (r"(?:ab)+c", {"ab"}),
    (r"Don't|我们", {"don't", "我们"}),  # needles are folded; Chinese is caseless
    (r"\bby (?:mon|tue)", {"by mon", "by tue"}),
    (r"ΣΑΣ", None),  # cased non-ASCII letters are never needles
])
def test_required_substrings(pattern: str, needles: set[str] | None) -> None:
    found = required_substrings(re.compile(pattern, re.IGNORECASE))
    assert (None if found is None else set(found)) == needles


def test_a_shorter_needle_makes_a_longer_one_redundant() -> None:
    assert required_substrings(re.compile(r"use|used|we use")) == {"use"}


def test_every_memory_rule_has_a_prefilter() -> None:
    """Not needed for correctness; a rule that lost its needles would silently get slower."""
    assert {name for name, rule in RULES.items() if rule.needles is None} == set()


# -- folding: every character IGNORECASE matches to a needle character folds onto it -----------
def test_fold_maps_every_case_insensitive_match_of_a_needle_character_onto_it() -> None:
    chars = {ch for rule in RULES.values() for needle in rule.needles or () for ch in needle}
    chars |= set("abcdefghijklmnopqrstuvwxyz0123456789")
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    any_of = re.compile("[" + "".join(map(re.escape, sorted(chars))) + "]", re.IGNORECASE)
    matched = set(any_of.findall(everything))
    assert {"İ", "ı", "ſ", "K"} <= matched  # the look-alikes are really in play
    for x in matched:
        for ch in chars:
            if re.fullmatch(re.escape(ch), x, re.IGNORECASE):
                assert fold(x) == ch, (x, ch)
                assert fold(f"a{x}b") == f"a{ch}b"


# -- random matches of every rule ------------------------------------------------------------------
_POOL = "aeiostxyzIS Kı İ ſ 0 7 , . ; : ' - _ ! ? \n 我们你的是了不用前 ，。！？：".replace(" ", "") + " "
_LOOKALIKES = {"i": "Iiİı", "s": "Ssſ", "k": "KkK"}
_CATEGORIES = {sre.CATEGORY_SPACE: " \t\u3000", sre.CATEGORY_NOT_SPACE: "aZ7我,",
               sre.CATEGORY_DIGIT: "0123456789", sre.CATEGORY_NOT_DIGIT: "aZ我 ,",
               sre.CATEGORY_WORD: "aZ7_我", sre.CATEGORY_NOT_WORD: " ,.!'"}


def _sample(items: _parser.SubPattern | list[tuple[object, object]], rng: random.Random) -> str:
    """A random string the parse tree could match (not always: callers check)."""
    out = []
    for op, av in items:
        if op is sre.LITERAL:
            ch = chr(av)  # type: ignore[arg-type]
            variants = _LOOKALIKES.get(ch.lower(), ch + ch.upper() + ch.lower())
            out.append(rng.choice(variants))
        elif op is sre.IN:
            chars = [chr(a) for o, a in av if o is sre.LITERAL]  # type: ignore[union-attr]
            chars += [chr(c) for o, a in av if o is sre.RANGE  # type: ignore[union-attr]
                      for c in range(a[0], min(a[1], a[0] + 50) + 1)]
            chars += [ch for o, a in av if o is sre.CATEGORY  # type: ignore[union-attr]
                      for ch in _CATEGORIES.get(a, "")]
            out.append(rng.choice(chars or _POOL) if rng.random() < 0.9 else rng.choice(_POOL))
        elif op in (sre.ANY, sre.NOT_LITERAL):
            out.append(rng.choice(_POOL))
        elif op is sre.BRANCH:
            out.append(_sample(rng.choice(av[1]), rng))  # type: ignore[index]
        elif op is sre.SUBPATTERN:
            out.append(_sample(av[3], rng))  # type: ignore[index]
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, inner = av  # type: ignore[misc]
            count = rng.randint(low, min(high, low + 3))
            out.extend(_sample(inner, rng) for _ in range(count))
    return "".join(out)


@pytest.mark.parametrize("name", sorted(RULES))
def test_random_matches_of_a_rule_always_pass_its_prefilter(name: str) -> None:
    rule = RULES[name]
    rng = random.Random(name)
    tree = _parser.parse(rule.pattern.pattern, rule.pattern.flags)
    contexts = ["", "", "", " ", "So ", "我们", "x", "Hi, ", "。", " ok"]
    matches = 0
    for _ in range(3000):
        text = rng.choice(contexts) + _sample(tree, rng) + rng.choice(contexts)
        if rule.pattern.search(text):
            matches += 1
            assert rule.search(text), text
            assert rule.search(text, fold(text)), text
    assert matches >= 500  # the sampler really exercised the rule


# -- old and new over text: fixtures, examples, the tests' own sentences, a synthetic archive -----
def _sessions() -> list:
    out = []
    for path in discover([DATA, ROOT / "examples"]):
        try:
            raws = load_file(path, path.read_bytes(), 50_000_000)
            out += [normalize(raw.record, raw.fallback_id)[0] for raw in raws
                    if isinstance(raw, RawSession)]
        except (RecallError, ValueError):  # the deliberately broken fixtures
            pass
    for index in range(150):
        record = generate_archive.session_record(7, index)
        out.append(normalize(json.loads(json.dumps(record)), None)[0])
    return out


def _test_strings() -> list[str]:
    """Every string literal of the memory tests: sentences written to hit the rules."""
    out = []
    for name in ("test_memories.py", "test_memory_search.py", "test_recovery.py"):
        tree = ast.parse((Path(__file__).parent / name).read_text())
        out += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
                and isinstance(n.value, str)]
    return out


@pytest.fixture(scope="module")
def sessions() -> list:
    return _sessions()


def test_rules_agree_with_their_patterns_on_every_sentence(sessions: list) -> None:
    texts = set(_test_strings())
    for s in sessions:
        for message in s.messages:
            texts.update(sentence for sentence, _start in _sentences(message.content))
    assert len(texts) > 5_000
    for text in texts:
        folded = fold(text)
        for name, rule in RULES.items():
            assert bool(rule.search(text, folded)) == bool(rule.pattern.search(text)), (name, text)


def test_extraction_is_the_same_without_prefilters(
    sessions: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_prefilters = [extract_memories(s) for s in sessions]
    monkeypatch.setattr(Prefiltered, "search",
                        lambda self, text, folded=None: self.pattern.search(text))
    without = [extract_memories(s) for s in sessions]
    assert sum(map(len, without)) > 300
    assert with_prefilters == without
