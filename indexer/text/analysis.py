"""Text analysis shared by indexing, querying, highlighting and the hash embedder.

Tantivy gets pre-analyzed, space-joined tokens (its `whitespace` tokenizer then only splits),
so index and query sides are analyzed by exactly the same Python code:
- English (and other Latin/Greek/Cyrillic) words: lowercased, Snowball-stemmed.
- Identifiers (`snake_case_name`, `v2.3.1`, `os.path.join`, `ERR_CONNECTION_REFUSED`):
  kept whole in `body`, their pieces go to `parts`, so both spellings are findable.
- Chinese, Japanese, Korean runs: overlapping character bigrams in `body` (phrase positions
  keep "升级" adjacent to "级和"), single characters in `chars` for one-character queries.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

import Stemmer

from models.tokens import CJK_CHAR, CJK_RANGES

__all__ = [
    "Analyzed",
    "QueryTerms",
    "analyze",
    "analyze_query",
    "highlighted",
    "is_cjk_text",
    "match_spans",
    "stem_words",
]


_WORD_CHAR = "0-9a-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"
# A word, or an identifier: words joined by _ . - / : @ without spaces.
_TOKEN = re.compile(
    rf"(?P<cjk>[{CJK_RANGES}]+)|(?P<word>[{_WORD_CHAR}]+(?:[._\-/:@][{_WORD_CHAR}]+)*)", re.IGNORECASE
)
_JOINER = re.compile(r"[._\-/:@]")
# the word alternative of _TOKEN alone (for findall), and what continues a word or identifier
_WORD_TOKEN = re.compile(rf"[{_WORD_CHAR}]+(?:[._\-/:@][{_WORD_CHAR}]+)*", re.IGNORECASE)
_WORD_CHAR_RE = re.compile(rf"[{_WORD_CHAR}]", re.IGNORECASE)
_JOINERS = frozenset("._-/:@")
_QUOTED = re.compile(r"[\"“”「」『』]([^\"“”「」『』]+)[\"“”「」『』]")

_STEMMER = Stemmer.Stemmer("english")
_STEMMER.maxCacheSize = 100_000

# Query-side only: words that carry no topic. The index keeps them, so quoted phrases still work.
STOP_WORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "s", "t", "d", "ll", "m", "re", "ve", "said", "say", "says", "tell", "told", "remember", "recall", "mentioned", "mention", "ever"]
)
# Chinese question scaffolding ("我之前说过…", "记得…吗"), removed before bigrams are formed;
# longest first so that "我之前说过" goes before "之前".
_CJK_STOP_PHRASES = sorted(
    ["我之前说过", "之前说过", "我之前提过", "我说过", "我提过", "你还记得", "还记得", "记得", "说过", "提过", "之前", "以前", "我们", "你们", "什么", "怎么", "怎样", "为什么", "哪个", "哪些", "哪里", "是不是", "有没有", "一下", "来着", "的时候", "关于", "告诉", "吗", "呢", "吧", "啊", "呀", "了", "的", "么"],
    key=len,
    reverse=True,
)
_CJK_STOP = re.compile("|".join(map(re.escape, _CJK_STOP_PHRASES)))


@dataclass(slots=True)
class Analyzed:
    body: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    chars: list[str] = field(default_factory=list)


@dataclass(slots=True)
class QueryTerms:
    body: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    chars: list[str] = field(default_factory=list)
    phrases: list[list[str]] = field(default_factory=list)
    cjk_strings: list[str] = field(default_factory=list)  # for highlighting
    # highlighting's verdict on each distinct word met so far, shared by a result page's snippets
    word_decisions: dict[str, bool] = field(default_factory=dict, repr=False, compare=False)

    def is_empty(self) -> bool:
        return not (self.body or self.parts or self.chars or self.phrases)


def _normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def stem_words(words: list[str]) -> list[str]:
    """The stems of many words in one call: the dictionary's glosses (indexer/text/dictionary.py)."""
    return list(_STEMMER.stemWords(words))


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def analyze(text: str) -> Analyzed:
    """Index-side analysis of one text."""
    out = Analyzed()
    for cjk, word in _TOKEN.findall(_normalize(text)):  # (run, "") or ("", word)
        if cjk:
            out.body.extend(_bigrams(cjk))
            out.chars.extend(cjk)
            continue
        term, parts = _word_terms(word)
        out.body.append(term)
        if parts:
            out.parts.extend(parts)
    return out


@lru_cache(maxsize=200_000)
def _word_terms(word: str) -> tuple[str, tuple[str, ...]]:
    """The body term of one word and the stems of its parts (an identifier's pieces). Cached:
    ingest analyzes every message and memory, and most words come back again and again."""
    word = word.lower()
    if _JOINER.search(word):
        return word, tuple(_stem(p) for p in _JOINER.split(word) if p)
    return _stem(word), ()


def analyze_query(query: str) -> QueryTerms:
    """Query-side analysis: topic words only, plus quoted phrases kept whole."""
    terms = QueryTerms()
    normalized = _normalize(query)
    for quoted in _QUOTED.findall(normalized):
        phrase = analyze(quoted).body
        if phrase:
            terms.phrases.append(phrase)
    for match in _TOKEN.finditer(normalized):
        cjk = match.group("cjk")
        if cjk:
            for run in _CJK_STOP.split(cjk):
                if not run:
                    continue
                terms.cjk_strings.append(run)
                if len(run) == 1:
                    terms.chars.append(run)
                else:
                    terms.body.extend(_bigrams(run))
            continue
        word = match.group("word").lower()
        if _JOINER.search(word):
            terms.body.append(word)
            terms.parts.extend(_stem(p) for p in _JOINER.split(word) if p and p not in STOP_WORDS)
        elif word not in STOP_WORDS:
            stem = _stem(word)
            terms.body.append(stem)
            terms.parts.append(stem)
    terms.body = _dedupe(terms.body)
    terms.parts = _dedupe(terms.parts)
    terms.chars = _dedupe(terms.chars)
    return terms


# Words a question carries that say little on their own ("what do I like to go with?"): they are
# searched, but beside the query's other words not highlighted, where they would mark a word in
# half of every message and hide the words that matter.
LIGHT_WORDS = frozenset(_stem(w) for w in (
    "like", "go", "get", "got", "make", "use", "want", "need", "know", "think", "thing", "one",
    "also", "well", "really", "much", "many", "lot", "way", "still", "yet", "even", "back",
    "take", "come", "see", "look", "let", "put", "give", "keep", "try"))


def highlighted(terms: QueryTerms) -> set[str]:
    """The terms a snippet highlights: every term, less the light words when others remain."""
    wanted = set(terms.body) | set(terms.parts) | {t for p in terms.phrases for t in p}
    weighty = {t for t in wanted if t not in LIGHT_WORDS}
    return weighty if weighty else wanted


def match_spans(text: str, terms: QueryTerms) -> list[tuple[int, int]]:
    """Character spans of text that match the query's terms, for highlighting: every occurrence
    of a CJK query string, and every word or identifier whose stem (or a piece's) is wanted."""
    wanted = highlighted(terms)
    cjk_wanted = [s for s in terms.cjk_strings if s] + [t for t in wanted if is_cjk_text(t)]
    spans: list[tuple[int, int]] = []
    for needle in cjk_wanted:  # CJK strings only ever occur inside CJK runs
        start = text.find(needle)
        while start != -1:
            spans.append((start, start + len(needle)))
            start = text.find(needle, start + 1)
    # Decide each distinct word once per query (findall runs in C), then find the few that
    # match as whole tokens: a Python loop over every token cost most of a keyword search.
    decided = terms.word_decisions
    for word in set(_WORD_TOKEN.findall(text)):
        hit = decided.get(word)
        if hit is None:
            hit = decided[word] = _word_matches(word, wanted)
        if hit:
            spans += _whole_token_spans(text, word)
    return _merge(spans)


def _whole_token_spans(text: str, word: str) -> list[tuple[int, int]]:
    """Where word occurs as _TOKEN would take it: not inside a longer word or identifier."""
    spans = []
    start = text.find(word)
    while start != -1:
        end = start + len(word)
        if not _continues(text, start - 1, -1) and not _continues(text, end, 1):
            spans.append((start, end))
        start = text.find(word, start + 1)
    return spans


def _continues(text: str, at: int, step: int) -> bool:
    # a word character, or a joiner followed (in the direction of step) by one
    if not 0 <= at < len(text):
        return False
    if _WORD_CHAR_RE.match(text, at):
        return True
    beyond = at + step
    return (text[at] in _JOINERS and 0 <= beyond < len(text)
            and _WORD_CHAR_RE.match(text, beyond) is not None)


def _word_matches(raw: str, wanted: set[str]) -> bool:
    word = _normalize(raw).lower()
    return (word in wanted or _stem(word) in wanted
            or any(_stem(p) in wanted for p in _JOINER.split(word)))


_ASCII_LETTER = re.compile(r"[A-Za-z]")


def is_cjk_text(text: str) -> bool:
    """True when most letters of text are CJK (drives language-aware fusion)."""
    cjk = len(CJK_CHAR.findall(text))
    latin = len(_ASCII_LETTER.findall(text))  # a regex: ~10x faster than a loop over characters
    return cjk > 0 and cjk >= latin / 4



def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
