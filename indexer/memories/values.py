"""The values a statement gives, read with their type: a clock time, a date, money, a size, a
duration, a distance, a count, a rate, a ratio, a path, a weekday, a named setting such as
"iOS 17" or "MaxConns 40", and the old values it names as replaced ("03:30 instead of 2am").
The supersession linker (supersession.py) compares them; a change only counts between values of
one type."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from indexer.text.analysis import STOP_WORDS

__all__ = ["VALUE_WORDS", "bare_values", "named_old_values", "statement_values", "typed_values"]

_CLOCK = re.compile(r"(?<![\d.])([01]?\d|2[0-3])\s*[:：]\s*([0-5]\d)(?!\d|\.\d)")
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
    values.update(_weekdays(text))
    return frozenset(values)


# "last Friday", "this past Monday", "上周五": the day something happened, not a day things are
# set for ("deploys on Fridays", "周五上线")
_PAST_DAY = re.compile(r"(?:\blast|\bpast|\bprevious|上个?|上个星期|上星期)\s*$", re.IGNORECASE)


def _weekdays(text: str) -> set[str]:
    return {_WEEKDAYS[m[0].lower()] for m in _WEEKDAY.finditer(text)
            if not _PAST_DAY.search(text[max(0, m.start() - 12):m.start()])}


def _hour_word(match: re.Match[str]) -> str:
    hour = int(match[1]) % 12 + (12 if match[2].lower().startswith("p") else 0)
    return f"{hour:02d}:00"


def _cn_hour(match: re.Match[str]) -> str:
    hour = int(match[2])
    if match[1] in ("下午", "晚上") and hour < 12:
        hour += 12
    return f"{hour:02d}:{'30' if match[3] else '00'}"


_DATE_ZH = re.compile(r"(?<!\d)(1[0-2]|[1-9])\s*月\s*([12]\d|3[01]|[1-9])\s*[日号]?")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DATE_EN = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+"
                      r"([12]\d|3[01]|[1-9])(?:\s*[-–]\s*([12]\d|3[01]|[1-9]))?(?![\d:])",
                      re.IGNORECASE)
_MONEY = re.compile(r"([$¥€£])\s?(\d[\d,]*(?:\.\d+)?k?)|(\d[\d,]*(?:\.\d+)?k?)\s?(元|块|yen|usd|eur)\b",
                    re.IGNORECASE)
# a number with its unit: the unit says what kind of quantity it is
_UNITS = {
    "size": ("kb", "mb", "gb", "tb"),
    "bandwidth": ("mbps", "gbps", "M"),
    "duration": ("days", "day", "天", "weeks", "week", "周", "months", "month", "个月", "hours",
                 "hour", "小时", "minutes", "minute", "mins", "min", "分钟", "seconds", "秒",
                 "nights", "night", "晚"),
    "distance": ("km", "公里", "m", "米"),
    "count": ("条", "个", "人", "位", "次", "items", "item", "people", "guests", "instances",
              "instance", "users", "engineers"),
    "rate": ("/min", "per minute", "/分钟", "/minute"),
    "percent": ("%",),
}
_UNIT_TYPE = {unit: kind for kind, units in _UNITS.items() for unit in units}
_QUANTITY = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s?(?:requests?\s)?("
    + "|".join(sorted(map(re.escape, _UNIT_TYPE), key=len, reverse=True))
    + r")(?![A-Za-z])", re.IGNORECASE)
# a named setting or product with its number: "iOS 17", "MaxConns 40", "rust-version = 1.80"
_KEYED = re.compile(r"(?<![\w.-])([A-Za-z][\w-]*[A-Za-z])\s*(?:[:=]\s*[\"']?|\s)\s*v?"
                    r"(\d+(?:\.\d+)*)(?![\d%.])")
_NOT_KEYS = STOP_WORDS | set(_MONTHS) | {"now", "max", "min", "than", "until", "every", "per",
                                         "around", "under", "over", "raise", "raised", "set",
                                         "keep", "keeps", "try", "only", "also", "top", "up"}
_FILE_PATH = re.compile(r"(?:[a-z]+://)?(?:[\w.-]*/)+[\w.-]+", re.IGNORECASE | re.ASCII)
_GLUED = re.compile(r"\b([A-Za-z]{2,})(\d+)\b")  # "WPA3", "CAX21": a model or a mode
_RATIO = re.compile(r"(?<![\w.])0\.\d+(?![\d.])")
# words of values, not of subjects: two subjects share "days" or "april" as easily as one
VALUE_WORDS = frozenset({*_MONTHS, "januari", "februari", "march", "april", "june", "juli",
                          "august", "septemb", "octob", "novemb", "decemb", *_WEEKDAYS,
                          *(u.lower() for u in _UNIT_TYPE), "day", "week", "month", "hour",
                          "minut", "night", "am", "pm"})
_DOTTED = re.compile(r"(?<![\w.])[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+(?![\w.])", re.IGNORECASE)
# what follows these names the old value: "instead of 2am", "from 0.05 to", "原来的 ¥18"
_OLD_VALUE = re.compile(r"(?:instead of|rather than|\bfrom|\bwas|\bno more|\bno longer|"
                        r"原来的?|之前的?|从|不再用?|以前的?)\s*([^,;，；。起]{1,24}?)"
                        r"(?=\s*(?:to\b|改|换|调|降|升|提前|推迟|挪|到|→|$|[,;，；。)）]))",
                        re.IGNORECASE)


def typed_values(text: str) -> frozenset[tuple[str, str]]:
    """The values of a statement with their type: (clock, 10:30), (money, ¥15), (size, 205mb),
    (key:ios, 17), (path, bank.events), (number, 20) for a number nothing else explains."""
    values: set[tuple[str, str]] = set()
    rest = text

    def taker(kind: Any, show: Any) -> Callable[[re.Match[str]], str]:
        def take(match: re.Match[str]) -> str:
            value = show(match)
            if value is None:
                return match[0]  # not a value of this type: left for the readers after it
            values.add((kind(match) if callable(kind) else kind, value))
            return " "
        return take

    for kind, pattern, show in _READERS:
        rest = pattern.sub(taker(kind, show), rest)
    values.update(("weekday", day) for day in _weekdays(text))
    return frozenset(values)


def _money(match: re.Match[str]) -> str:
    amount = (match[2] or match[3]).replace(",", "").lower()
    currency = {"元": "¥", "块": "¥", "yen": "¥", "usd": "$", "eur": "€"}.get(
        (match[4] or "").lower(), match[1] or "")
    return f"{currency}{amount}"


def _unit_kind(match: re.Match[str]) -> str:
    unit = match[2]
    return _UNIT_TYPE.get(unit, _UNIT_TYPE.get(unit.lower(), "number"))


def _quantity(match: re.Match[str]) -> str:
    unit = match[2] if match[2] == "M" else match[2].lower()
    return f"{float(match[1]):g} {unit}"


def _date_en(match: re.Match[str]) -> str:
    return f"{_MONTHS.index(match[1][:3].lower()) + 1:02d}-{int(match[2]):02d}"


def _keyed_kind(match: re.Match[str]) -> str:
    return f"key:{match[1].lower()}"


def _keyed(match: re.Match[str]) -> str | None:
    return None if match[1].lower() in _NOT_KEYS else match[2]


_Reader = tuple[str | Callable[[re.Match[str]], str], re.Pattern[str],
                Callable[[re.Match[str]], str | None]]
_READERS: tuple[_Reader, ...] = (
    ("money", _MONEY, _money),
    ("path", _FILE_PATH, lambda m: m[0].rstrip(".").lower()),
    ("path", _DOTTED, lambda m: m[0].lower()),
    ("clock", _CLOCK, lambda m: f"{int(m[1]):02d}:{m[2]}"),
    ("clock", _HOUR_WORD, _hour_word),
    ("clock", _CN_HOUR, _cn_hour),
    ("date", _DATE_ZH, lambda m: f"{int(m[1]):02d}-{int(m[2]):02d}"),
    ("date", _DATE_EN, _date_en),
    (_unit_kind, _QUANTITY, _quantity),
    (_keyed_kind, _KEYED, _keyed),
    (_keyed_kind, _GLUED, _keyed),
    ("ratio", _RATIO, lambda m: m[0]),
    ("number", _NUMBER, lambda m: m[0].replace(",", "").replace(" ", "")),
)


_LEADING_NUMBER = re.compile(r"[$¥€£]?(\d+(?:\.\d+)?)(?:\s?[^\d\s]*)")


def bare_values(values: frozenset[tuple[str, str]]) -> set[str]:
    """The values without their unit or currency: "instead of 90" names "90 days"."""
    return {m[1] if (m := _LEADING_NUMBER.fullmatch(v)) else v for _, v in values}


def named_old_values(text: str) -> frozenset[tuple[str, str]]:
    """The old values a statement names as replaced: "03:30 instead of 2am" names 02:00."""
    return frozenset(v for m in _OLD_VALUE.finditer(text) for v in typed_values(m[1]))
