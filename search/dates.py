"""Date filter values: a day (2026-03-29), a month (2026-03) or a year (2026) as an inclusive range."""

from __future__ import annotations

import calendar
import re
from datetime import date

from models import InvalidQuery

__all__ = ["check_day", "date_range"]

_PATTERN = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")


def date_range(value: str) -> tuple[str, str]:
    """The first and last day (YYYY-MM-DD) that value covers."""
    match = _PATTERN.match(value.strip())
    if not match:
        raise InvalidQuery(f"cannot read date {value!r}: use YYYY-MM-DD, YYYY-MM or YYYY")
    year_text, month_text, day_text = match.groups()
    year = int(year_text)
    try:
        if month_text is None:
            return date(year, 1, 1).isoformat(), date(year, 12, 31).isoformat()
        month = int(month_text)
        if day_text is None:
            last = calendar.monthrange(year, month)[1]
            return date(year, month, 1).isoformat(), date(year, month, last).isoformat()
        d = date(year, month, int(day_text))
        return d.isoformat(), d.isoformat()
    except (ValueError, calendar.IllegalMonthError):
        raise InvalidQuery(f"{value!r} is not a real date") from None


def check_day(value: str, *, end: bool = False) -> str:
    """A since/until bound: the start (or end) of the period value names."""
    first, last = date_range(value)
    return last if end else first
