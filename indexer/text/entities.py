"""Rule-based entities in English and Chinese text: dates, URLs, emails, versions, names, numbers."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import date, timedelta

from indexer.text.dates import DAY_MONTH, MONTH_DAY, MONTHS, RELATIVE_DAYS, week_monday

__all__ = ["extract_entities", "resolve_dates"]


def _numbered(groups: str, start: int = 0) -> dict[str, int]:
    """{"mon": 0, "monday": 0, ...} from "mon monday|tue tues tuesday|..."."""
    return {name: i for i, names in enumerate(groups.split("|"), start) for name in names.split()}


def _alternation(words: dict[str, int]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))  # longest first: 大后天 before 后天


_WEEKDAYS = _numbered("mon monday|tue tues tuesday|wed wednesday|thu thur thurs thursday|fri friday"
                      "|sat saturday|sun sunday")  # fmt: skip
_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_ZH_DIGITS = dict(zip("一二两三四五六七八九十", (1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10), strict=True))
_NUMBER_WORDS = _numbered("|a an one|two|three|four|five|six|seven|||ten")
# Beyond the shared day words, an entity may be a day to come or a part of today ("明早开会",
# "tomorrow"): plans, which queries over held conversations leave out.
_ZH_REL = {w: n for w, n in RELATIVE_DAYS.items() if not w.isascii()}
_ZH_REL.update({"明天": 1, "后天": 2, "大后天": 3, "今晚": 0, "今早": 0, "明晚": 1, "明早": 1})
_EN_REL = {w: n for w, n in RELATIVE_DAYS.items() if w.isascii()}
_EN_REL.update({"tonight": 0, "tomorrow": 1})
_WEEK_SHIFT = {"this": 0, "这": 0, "本": 0, "next": 1, "下": 1, "下下": 2, "last": -1, "上": -1,
               "上上": -2}  # fmt: skip

_WEEKDAY = r"(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)(?:day|nesday|rsday|urday|sday)?"
# Month names, "March 29", "29 March", day words and weeks come from indexer/text/dates.py,
# shared with search queries (search/query_dates.py). The rest stays here: an entity is one day,
# the one nearest its session, where a query names spans of days over any recent year; and the
# forms differ in details that results of both depend on: here a year must be spaced off, "29
# March" ends at a word break, "3 月 29 日" may hold spaces, "2026年3月29日" is the ISO form, and
# no digit or dot may touch a date.
_YEAR = r"(?:,?\s+(?P<y>\d{4}))?"
# fmt: off
_DATE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"(?<![\d.])(?P<y>\d{4})[-/.年](?P<m>\d{1,2})[-/.月](?P<d>\d{1,2})[日号]?(?![\d.])")),
    ("zh_md", re.compile(r"(?<![\d.])(?P<m>\d{1,2})\s?月\s?(?P<d>\d{1,2})\s?[日号]")),
    ("zh_part", re.compile(r"(?<![\d.])(?P<m>\d{1,2})\s?月(?P<part>底|末|中旬|中|初|上旬)")),
    ("en_md", re.compile(MONTH_DAY + _YEAR)),
    ("en_dm", re.compile(DAY_MONTH + r"\b" + _YEAR)),
    ("en_rel", re.compile(rf"\b(?P<w>{_alternation(_EN_REL)})\b", re.IGNORECASE)),
    ("en_wd", re.compile(rf"\b(?:(?P<q>next|this|coming|last)\s+)?(?P<wd>{_WEEKDAY})\b")),
    ("en_in", re.compile(r"\bin\s+(?P<n>\d+|an?|one|two|three|four|five|six|seven|ten)\s+(?P<unit>days?|weeks?)\b",
                         re.IGNORECASE)),
    ("zh_rel", re.compile(_alternation(_ZH_REL))),
    ("zh_wd", re.compile(r"(?P<q>上上|下下|上|下|这|本)?个?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])")),
    ("zh_in", re.compile(r"(?P<n>\d+|[一二两三四五六七八九十])\s?(?P<unit>天|周|个星期)[之以]?后")),
]
# fmt: on

_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
)
_URL_TAIL = r"[^\s<>\"'`)\]）】」』，。、；！？]*"
_URL = re.compile(rf"\b(?:https?|ftp)://{_URL_TAIL}|\bwww\.{_URL_TAIL}", re.IGNORECASE)
_DOMAIN = re.compile(
    r"(?<![\w@.:/-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:com|org|net|io|dev|ai|app|cn|co|jp|uk|de"
    rf"|me|sh|xyz|info|edu|gov|tech|site|cloud)(?::\d+)?(?:/{_URL_TAIL})?(?![\w@])",
    re.IGNORECASE,
)
_CURRENCY = r"(?:US\$|HK\$|NT\$|RMB|CNY|USD|[$¥￥€£])"
_UNIT = (
    r"(?:%|％|元|块钱?|人民币|RMB|CNY|USD|HKD|JPY|EUR|日元|美元|港币|欧元|dollars?|yuan|yen|euros?"
    r"|[KMGT]i?B|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?"
    r"|kg|g|km|cm|mm|lbs?|pounds|miles|°C|℃|公斤|斤|公里|米|小时|分钟|秒|天|周|个月|岁|个?人|桌|晚|次)"
)
# fmt: off
_VERSIONS = [
    re.compile(r"(?<![\w.])v\d+(?:\.\d+){1,3}(?:[-+][0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?!\w|\.\w)"),
    re.compile(r"(?<![\w.])\d+\.\d+\.\d+(?:(?:a|b|rc|dev|post)\d*)?(?![\w]|\.\d)"),
    # "Python 3.12", "SQLAlchemy 2.0", "version 4.1": a product word right before a number that
    # is not a quantity ("went from 2.4 s" is not a version)
    re.compile(r"\b(?P<w>[A-Z][A-Za-z0-9+#]*|[Vv]ersion|[a-z][a-z0-9_-]{2,})\s+v?\d+\.\d+(?:\.\d+)?"
               rf"(?!\d|\.\d|\s?(?:[kK万千亿倍]|{_UNIT})(?![A-Za-z]))"),
]
_NOT_PRODUCT = frozenset(["about", "above", "after", "almost", "and", "approx", "around", "at", "before", "below", "between", "by", "cost", "costs", "down", "fell", "from", "is", "it", "just", "nearly", "of", "only", "or", "over", "rated", "roughly", "rose", "scored", "than", "to", "took", "under", "up", "was", "went", "were", "weighs", "with"])
_NUMBERS = [
    re.compile(rf"{_CURRENCY}\s?\d[\d,]*(?:\.\d+)?(?:\s?[kKmM万千亿](?![A-Za-z]))?"
               r"(?:\s?/\s?(?:月|年|天|mo|month|year|day|hour))?"),  # ¥3000, $19/月
    re.compile(rf"(?<![\w.,$¥￥€£])\d[\d,]*(?:\.\d+)?\s?(?:[kK万千亿](?![A-Za-z])\s?)?{_UNIT}(?![A-Za-z])"),
    re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?\s?[万亿](?![A-Za-z])"),  # 1.5 万
    re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])"),  # 28,000: an amount
    re.compile(r"(?<![\w:.])(?:[01]?\d|2[0-3]):[0-5]\d(?:\s?[ap]\.?m\.?)?(?![\w:])", re.IGNORECASE),  # 8:05
]
# fmt: on
_MARKER = re.compile(r"\[REDACTED:[^\]]*\]")
_QUOTED_NAME = re.compile(r"[「『《“]([^「」『』《》“”，。！？\n]{2,20})[」』》”]")
_ID = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{2,}\b")  # OPS-1423, KY-88213: tickets, orders
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’+&.\-_]*[A-Za-z0-9+]|[A-Za-z]")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？:：;；\n]\s*|^\s*[-*•]\s*|\n\s*[-*•\d.]+\s*)$")
# Capitalized for grammar, not because they name anything.
_COMMON_CAPS = frozenset(
    ["a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "because", "but", "by", "can", "could", "did", "do", "does", "done", "for", "from", "good", "great", "had", "has", "have", "he", "hello", "her", "hey", "hi", "his", "how", "i", "i'd", "i'll", "i'm", "i've", "if", "in", "is", "it", "it's", "its", "just", "let", "let's", "maybe", "me", "my", "no", "not", "now", "ok", "okay", "on", "or", "our", "please", "right", "she", "should", "so", "sorry", "sounds", "sure", "thank", "thanks", "that", "that's", "the", "then", "there", "these", "they", "this", "those", "to", "today", "tomorrow", "wait", "was", "we", "we'll", "we're", "well", "were", "what", "when", "where", "which", "while", "who", "why", "will", "with", "would", "wow", "yeah", "yes", "yesterday", "you", "you're", "your", "morning", "evening", "night", "awesome", "cool", "nice", "great", "fine", "done", "hmm", "oh", "ah", "also", "however", "still", "next", "last", "this", "coming", "ask", "tell", "call", "mail", "email", "send", "see", "meet", "visit", "check", "use", "try", "thank", "get", "go", "take", "make", "give", "bring", "invite"]
)


def extract_entities(
    text: str, *, reference_date: str | None = None, names: bool = True
) -> dict[str, tuple[str, ...]]:
    """Entities of text by kind (only kinds found). Dates are YYYY-MM-DD when resolvable (relative
    ones like "下周五", "next Friday", "tomorrow" need reference_date), else their surface text.
    names=False leaves names out and changes nothing else (the cheaper call when they are not
    needed)."""
    ref = _parse_iso(reference_date)
    claimed: list[tuple[int, int, str]] = []
    found: list[tuple[int, str, str]] = []

    def take(kind: str, start: int, end: int, value: str, avoid: tuple[str, ...] = ()) -> None:
        # avoid: the kinds whose spans this one may not overlap (all when empty)
        if any(start < e and s < end and (not avoid or k in avoid) for s, e, k in claimed):
            return
        claimed.append((start, end, kind))
        if value:
            found.append((start, kind, value))

    for m in _MARKER.finditer(text):
        take("redacted", m.start(), m.end(), "")  # a secret's place: nothing inside is an entity
    for m in _EMAIL.finditer(text):
        take("emails", m.start(), m.end(), m.group(0))
    for pattern in (_URL, _DOMAIN):
        for m in pattern.finditer(text):
            url = m.group(0).rstrip(".,;:!?")
            if "[REDACTED" not in url:
                take("urls", m.start(), m.start() + len(url), url)
    for start, end, value in _dates(text, ref):
        take("dates", start, end, value)
    for pattern in _VERSIONS:
        for m in pattern.finditer(text):
            if (m.groupdict().get("w") or "").lower() in _NOT_PRODUCT:
                continue
            take("versions", m.start(), m.end(), m.group(0))
    for pattern in _NUMBERS:
        for m in pattern.finditer(text):
            take("numbers", m.start(), m.end(), " ".join(m.group(0).split()))
    # names come last, so no other kind depends on them; they only avoid links and dates:
    # "Python" is a name inside the version "Python 3.12" too
    links = ("urls", "emails", "dates", "redacted")
    if names:
        for m in _ID.finditer(text):
            take("names", m.start(), m.end(), m.group(0), links)
        for m in _QUOTED_NAME.finditer(text):
            take("names", m.start(1), m.end(1), m.group(1).strip(), links)
        for start, end, name in _names(text):
            take("names", start, end, name, (*links, "names"))
    by_kind: dict[str, list[str]] = {}
    for _, kind, value in sorted(found):  # in order of appearance, each value once
        if value not in by_kind.setdefault(kind, []):
            by_kind[kind].append(value)
    return {kind: tuple(values) for kind, values in by_kind.items()}


def resolve_dates(text: str, reference_date: str | None) -> list[str]:
    """The resolved (YYYY-MM-DD) dates of text, in order of appearance."""
    ref = _parse_iso(reference_date)
    return [value for _, _, value in sorted(_dates(text, ref)) if _parse_iso(value)]


def _dates(text: str, ref: date | None) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for name, pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e, _ in out):
                continue
            if name in ("en_wd", "zh_wd") and _not_a_day(text, m.start(), out):
                continue
            try:
                resolved = _RESOLVERS[name](m, ref)
            except (ValueError, OverflowError):  # 2月30日, 13 Month: not a date after all
                continue
            value = resolved.isoformat() if resolved else " ".join(m.group(0).split())
            out.append((m.start(), m.end(), value))
    return out


def _not_a_day(text: str, start: int, found: list[tuple[int, int, str]]) -> bool:
    """A weekday that names no day of its own: recurring ("每周日", "every Friday") or the label
    of a date just given ("3月15号（周日）")."""
    before = text[max(0, start - 6) : start].rstrip(" （(")
    if before.endswith(("每", "每个")) or before.lower().endswith(("every", "each")):
        return True
    gap = len(text[:start].rstrip(" （("))
    return any(end == gap for _, end, _ in found)


def _parse_iso(value: str | None) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _nearest_year(month: int, day: int, ref: date | None, year: str | None) -> date | None:
    if year:
        return date(int(year), month, day)
    if ref is None:
        date(2000, month, day)  # still validate (2000 is a leap year, so 2月29日 passes)
        return None
    # a date without a year is the occurrence closest to the session: "January 5" said on
    # 2025-12-20 is next month, "December 28" said on 2026-01-03 was last week
    candidates = [
        date(y, month, day)
        for y in (ref.year - 1, ref.year, ref.year + 1)
        if day <= calendar.monthrange(y, month)[1]
    ]
    return min(candidates, key=lambda d: abs((d - ref).days))


def _weekday(ref: date | None, weekday: int, qualifier: str | None) -> date | None:
    if ref is None:
        return None
    # "下周五"/"next Friday": Friday of next week; "这周五"/"this Friday": of this week;
    # a bare "Friday"/"周五"/"by Friday": the first one after the session date
    if qualifier in _WEEK_SHIFT:
        return week_monday(ref, _WEEK_SHIFT[qualifier]) + timedelta(days=weekday)
    return ref + timedelta(days=(weekday - ref.weekday() - 1) % 7 + 1)


def _count(value: str) -> int:
    return int(value) if value.isdigit() else _NUMBER_WORDS.get(value.lower()) or _ZH_DIGITS[value]


def _offset(ref: date | None, days: int) -> date | None:
    return ref + timedelta(days=days) if ref else None


def _month_part(m: re.Match[str], ref: date | None) -> date | None:
    month = int(m["m"])
    first = _nearest_year(month, 1, ref, None)
    if first is None:
        return None
    last = calendar.monthrange(first.year, month)[1]
    return first.replace(day={"底": last, "末": last, "中": 15, "中旬": 15}.get(m["part"], 1))


_Resolver = Callable[[re.Match[str], "date | None"], "date | None"]
# fmt: off
_RESOLVERS: dict[str, _Resolver] = {
    "iso": lambda m, ref: date(int(m["y"]), int(m["m"]), int(m["d"])),
    "zh_md": lambda m, ref: _nearest_year(int(m["m"]), int(m["d"]), ref, None),
    "zh_part": _month_part,
    "en_md": lambda m, ref: _nearest_year(MONTHS[m["mon"].lower()], int(m["d"]), ref, m["y"]),
    "en_dm": lambda m, ref: _nearest_year(MONTHS[m["mon"].lower()], int(m["d"]), ref, m["y"]),
    "en_rel": lambda m, ref: _offset(ref, _EN_REL[m["w"].lower()]),
    "en_wd": lambda m, ref: _weekday(ref, _WEEKDAYS[m["wd"].lower()], (m["q"] or "").lower() or None),
    "en_in": lambda m, ref: _offset(ref, _count(m["n"]) * (7 if m["unit"].startswith("w") else 1)),
    "zh_rel": lambda m, ref: _offset(ref, _ZH_REL[m.group(0)]),
    "zh_wd": lambda m, ref: _weekday(ref, _ZH_WEEKDAYS[m["wd"]], m["q"]),
    "zh_in": lambda m, ref: _offset(ref, _count(m["n"]) * (1 if m["unit"] == "天" else 7)),
}
# fmt: on


def _names(text: str) -> list[tuple[int, int, str]]:
    """Runs of capitalized words ("Alibaba Cloud", "HK Express"), and single ones that are not
    just capitalized for starting a sentence (mid-sentence, CamelCase, or inside Chinese text)."""
    runs: list[list[re.Match[str]]] = [[]]
    for m in _WORD.finditer(text):
        word = m.group(0).lower()
        if not m.group(0)[0].isupper() or "_" in word or word in MONTHS or word in _WEEKDAYS:
            runs.append([])
            continue
        if runs[-1] and text[runs[-1][-1].end() : m.start()] != " ":
            runs.append([])
        runs[-1].append(m)
    out = []
    for words in runs:
        at_start = bool(words) and _starts_sentence(text, words[0].start())
        # "Planning Kyoto…", "Ask Caroline": the first capital belongs to the sentence
        while words and (
            _is_common(words[0][0]) or (at_start and words[0][0].endswith(("ing", "ed")))
        ):
            words, at_start = words[1:], False
        while words and _is_common(words[-1][0]):
            words = words[:-1]
        if not words:
            continue
        start, end = words[0].start(), words[-1].end()
        name = re.sub(r"['’]s$", "", text[start:end])
        if len(words) > 1 or _single_name_ok(name, _starts_sentence(text, start)):
            out.append((start, end, name))
    return out


def _starts_sentence(text: str, start: int) -> bool:
    return _SENTENCE_START.search(text[:start]) is not None


def _is_common(word: str) -> bool:
    return re.sub(r"['’]s$", "", word).lower() in _COMMON_CAPS


def _single_name_ok(word: str, at_sentence_start: bool) -> bool:
    if word.isupper() and not any(ch.isdigit() for ch in word):  # OK, API, RETURNING: not names
        return False
    camel = any(ch.isupper() for ch in word[1:]) and not word.isupper()
    return camel or not at_sentence_start
