"""Dates named inside a query ("on March 29", "记得3月29日吗", "mid-February", "上周") as day ranges.

A person asking about a day means the conversation held that day, not one that mentions the
date, so search gives sessions in these ranges an extra ranking of their own. A date without a
year may be any recent year: one range per year, back to YEARS_BACK before today. Relative
words ("yesterday", "last week", "上个月") count from today.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from indexer.text.dates import DAY_MONTH, MONTH, MONTH_DAY, MONTHS, RELATIVE_DAYS, week_monday

__all__ = ["DayRange", "query_dates"]

DayRange = tuple[str, str]  # inclusive YYYY-MM-DD bounds
YEARS_BACK = 15

# Month names, "March 29", "29 March", day words and weeks come from indexer/text/dates.py,
# shared with memory entities (indexer/text/entities.py). The rest stays here: a query names
# spans of days ("2026-03" and "3月" a month, "mid-February" and "2月初" a third of one, "last
# week"), an entity one day near its session; and the forms differ in details that results of
# both depend on: here a year may follow a day unspaced, "29 March" needs no word break after
# the month, "3月29日" takes no spaces, "2026-03-29" needs only word breaks around it.
_PART_EN = r"(?P<part>early|mid|late|end of|beginning of|start of)[\s-]*(?:of\s+)?"
_YEAR = r"(?:,?\s*(?P<y>\d{4}))?"

_ISO = re.compile(r"\b(\d{4})[-/.](\d{1,2})(?:[-/.](\d{1,2}))?\b")
_EN_MONTH_DAY = re.compile(MONTH_DAY + _YEAR, re.IGNORECASE)
_EN_DAY_MONTH = re.compile(DAY_MONTH + r"\.?" + _YEAR, re.IGNORECASE)
_EN_MONTH = re.compile(rf"\b(?:{_PART_EN})?(?P<mon>{MONTH})\.?(?:\s+(?P<y>\d{{4}}))?\b",
                       re.IGNORECASE)
_ZH_DAY = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(\d{1,2})[日号]")
_ZH_MONTH = re.compile(r"(?:(\d{4})年)?(\d{1,2})月(初|上旬|中旬|中|下旬|底|末)?(?![\d日号])")
# "may" and "march" are also verbs: as a bare month it needs "in"/"of"/a part/a year around it
_AMBIGUOUS = {"may", "march", "mar", "jan", "jun", "oct", "dec", "sep", "aug"}

# Days ahead ("tomorrow", "明天") are left to entities: a query asks about held conversations.
_RELATIVE: dict[str, tuple[str, int]] = {
    **{word: ("day", days) for word, days in RELATIVE_DAYS.items()},
    "this week": ("week", 0), "last week": ("week", -1), "本周": ("week", 0), "这周": ("week", 0),
    "上周": ("week", -1), "上个星期": ("week", -1), "上星期": ("week", -1),
    "this month": ("month", 0), "last month": ("month", -1), "本月": ("month", 0),
    "这个月": ("month", 0), "上个月": ("month", -1), "上月": ("month", -1),
}
_RELATIVE_RX = re.compile("|".join(sorted(map(re.escape, _RELATIVE), key=len, reverse=True)), re.IGNORECASE)


def query_dates(query: str, today: date | None = None) -> list[DayRange]:
    """Day ranges the query names, in order of appearance, without duplicates."""
    today = today or date.today()
    found: list[tuple[int, list[DayRange]]] = []
    taken: list[tuple[int, int]] = []

    def claim(match: re.Match[str], ranges: list[DayRange]) -> None:
        span = match.span()
        if not any(a < span[1] and span[0] < b for a, b in taken):
            taken.append(span)  # an impossible date ("February 30") still uses up its words
            if ranges:
                found.append((span[0], ranges))

    for m in _ISO.finditer(query):
        claim(m, _span(today, _int(m[1]), int(m[2]), _int(m[3]), None))
    for m in _ZH_DAY.finditer(query):
        claim(m, _span(today, _int(m[1]), int(m[2]), int(m[3]), None))
    for m in _EN_MONTH_DAY.finditer(query):
        claim(m, _span(today, _int(m["y"]), MONTHS[m["mon"].lower()], int(m["d"]), None))
    for m in _EN_DAY_MONTH.finditer(query):
        claim(m, _span(today, _int(m["y"]), MONTHS[m["mon"].lower()], int(m["d"]), None))
    for m in _ZH_MONTH.finditer(query):
        claim(m, _span(today, _int(m[1]), int(m[2]), None, _ZH_PART.get(m[3] or "")))
    for m in _EN_MONTH.finditer(query):
        part, month, year = m["part"], m["mon"].lower(), m["y"]
        before = query[: m.start()].lower().rstrip()
        if month in _AMBIGUOUS and not (part or year or before.endswith(("in", "of", "since"))):
            continue
        claim(m, _span(today, _int(year), MONTHS[month], None, _EN_PART.get((part or "").lower())))
    for m in _RELATIVE_RX.finditer(query):
        claim(m, [_relative(today, *_RELATIVE[m[0].lower()])])
    out: list[DayRange] = []
    for _, ranges in sorted(found):
        out += [r for r in ranges if r not in out]
    return out


_ZH_PART = {"初": "early", "上旬": "early", "中旬": "mid", "中": "mid", "下旬": "late", "底": "late",
            "末": "late"}
_EN_PART = {"early": "early", "beginning of": "early", "start of": "early", "mid": "mid",
            "late": "late", "end of": "late"}
_PART_DAYS = {"early": (1, 10), "mid": (10, 20), "late": (20, 31)}


def _int(text: str | None) -> int | None:
    return int(text) if text else None


def _span(today: date, year: int | None, month: int, day: int | None,
          part: str | None) -> list[DayRange]:
    if not 1 <= month <= 12:
        return []
    years = [year] if year else range(today.year, today.year - YEARS_BACK - 1, -1)
    out = []
    for y in years:
        last = calendar.monthrange(y, month)[1]
        if day is not None:
            if not 1 <= day <= last:
                return []
            first = end = date(y, month, day)
        else:
            low, high = _PART_DAYS.get(part or "", (1, 31))
            first, end = date(y, month, low), date(y, month, min(high, last))
        if year or first <= today:  # a year-less date means one that has happened
            out.append((first.isoformat(), end.isoformat()))
    return out


def _relative(today: date, unit: str, offset: int) -> DayRange:
    if unit == "day":
        d = today + timedelta(days=offset)
        return d.isoformat(), d.isoformat()
    if unit == "week":
        start = week_monday(today, offset)
        return start.isoformat(), (start + timedelta(days=6)).isoformat()
    month_index = today.year * 12 + today.month - 1 + offset
    year, month = divmod(month_index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, 1).isoformat(), date(year, month + 1, last).isoformat()
