"""Dates named in a query: parsed to day ranges, and used to rank the sessions held then."""

from __future__ import annotations

from datetime import date

import pytest

from api import RecallService
from models import SearchFilters, SearchRequest
from search.query_dates import YEARS_BACK, query_dates

TODAY = date(2026, 11, 29)  # a Sunday


@pytest.mark.parametrize(("query", "first"), [
    ("记得3月29日我们讨论了什么吗", ("2026-03-29", "2026-03-29")),
    ("1月20号那次聊旅行", ("2026-01-20", "2026-01-20")),
    ("2月初我们给寿宴定了几点开席", ("2026-02-01", "2026-02-10")),
    ("2023年5月的预算", ("2023-05-01", "2023-05-31")),
    ("What did we decide in mid-February?", ("2026-02-10", "2026-02-20")),
    ("what happened on the night of March 20", ("2026-03-20", "2026-03-20")),
    ("In early March, what did Helen change", ("2026-03-01", "2026-03-10")),
    ("the trip on 8 May 2023", ("2023-05-08", "2023-05-08")),
    ("logs from 2026-03-29", ("2026-03-29", "2026-03-29")),
    ("what did we do last week", ("2026-11-16", "2026-11-22")),
    ("上周说的那个方案", ("2026-11-16", "2026-11-22")),
    ("昨天的会议", ("2026-11-28", "2026-11-28")),
    ("last month's invoices", ("2026-10-01", "2026-10-31")),
])
def test_dates_in_queries(query: str, first: tuple[str, str]) -> None:
    assert query_dates(query, TODAY)[0] == first


def test_a_date_without_a_year_is_any_recent_year_that_has_happened() -> None:
    ranges = query_dates("on December 25", TODAY)
    assert ranges[0] == ("2025-12-25", "2025-12-25")  # this year's has not come yet
    assert len(ranges) == YEARS_BACK and all(r[0].endswith("-12-25") for r in ranges)


@pytest.mark.parametrize("query", ["may I ask something", "the 13月5日 typo", "February 30",
                                   "version 2.3.1", "march forward", "no dates here"])
def test_no_dates(query: str) -> None:
    assert query_dates(query, TODAY) == []


def _session(sid: str, day: str, text: str) -> dict:
    return {"sessionId": sid, "date": day, "channel": "webchat", "messages": [
        {"id": "m1", "role": "user", "content": text},
        {"id": "m2", "role": "assistant", "content": "好的，记下了。 Noted."}]}


def test_the_session_held_that_day_ranks_first(writable: RecallService) -> None:
    writable.ingest_record(_session("t-day-a", "2026-03-29", "我们讨论了数据库备份的方案。 The database backup plan."))
    writable.ingest_record(_session("t-day-b", "2026-03-12",
                                    "我们讨论了数据库备份的方案，还有监控。 The database backup plan, and monitoring."))
    for query in ("记得3月29日我们讨论了数据库备份吗", "database backup on March 29"):
        top = writable.search(SearchRequest(query=query)).results[0]
        assert top.session_id == "t-day-a", query
    # an explicit filter wins over what the query says
    filtered = writable.search(SearchRequest(query="3月29日 数据库备份",
                                             filters=SearchFilters(since="2026-03-10", until="2026-03-15")))
    assert [r.session_id for r in filtered.results] == ["t-day-b"]
    # a date alone, with words the archive does not hold, still finds that day's sessions
    only_day = [(r.session_id, r.date) for r in writable.search(SearchRequest(query="记得3月29日吗")).results]
    assert only_day[0][1] == "2026-03-29" and ("t-day-a", "2026-03-29") in only_day
    assert "t-day-b" not in [sid for sid, _ in only_day]
