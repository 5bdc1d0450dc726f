"""The date grammar that memory entities and search queries share: months, day words, weeks."""

from __future__ import annotations

from datetime import date, timedelta

__all__ = ["DAY_MONTH", "MONTH", "MONTHS", "MONTH_DAY", "RELATIVE_DAYS", "week_monday"]

# English month names and abbreviations, lowercase, to their number.
MONTHS: dict[str, int] = {
    name: number
    for number, names in enumerate(
        ["jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july",
         "aug august", "sep sept september", "oct october", "nov november", "dec december"],
        start=1,
    )
    for name in names.split()
}

# Any month name, capitalized ("Sept", "September"), longest first so that all of "March" is
# taken, not "Mar". Entities match it as written (a capital starts a month name in prose); queries,
# typed in any case, match it case-insensitively.
MONTH = "(?:" + "|".join(sorted((n.capitalize() for n in MONTHS), key=len, reverse=True)) + ")"

# "March 29", "Mar. 29th" and "29 March", "29th of March", in groups mon and d. Each caller adds
# what may follow: a year, in ways that differ (see query_dates.py and entities.py).
MONTH_DAY = rf"\b(?P<mon>{MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"
DAY_MONTH = rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{MONTH})"

# Words that name a day by its distance, in days, from the day they are said.
RELATIVE_DAYS: dict[str, int] = {
    "today": 0, "yesterday": -1, "前天": -2, "昨天": -1, "今天": 0,
}  # fmt: skip


def week_monday(day: date, weeks: int = 0) -> date:
    """The Monday that starts the week of ``day``, moved by ``weeks`` (-1: last week's)."""
    return day - timedelta(days=day.weekday()) + timedelta(weeks=weeks)
