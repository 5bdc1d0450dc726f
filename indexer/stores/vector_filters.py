"""Search filters as a Lance SQL predicate over the vector tables' metadata columns."""

from __future__ import annotations

from indexer.stores.documents import MEMORY_ROLE_PREFIX, day_number
from models import SearchFilters

__all__ = ["lance_where", "sql_string"]


def sql_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def lance_where(filters: SearchFilters) -> str:
    """The filters as a Lance SQL predicate (scope and language choose the tables)."""
    clauses: list[str] = []
    if filters.since:
        clauses.append(f"day >= {day_number(filters.since)}")
    if filters.until:
        clauses.append(f"day <= {day_number(filters.until)}")
    if filters.date_ranges:
        clauses.append("(" + " OR ".join(
            f"(day >= {day_number(low)} AND day <= {day_number(high)})"
            for low, high in filters.date_ranges) + ")")
    if filters.channel:
        clauses.append(f"channel = {sql_string(filters.channel.lower())}")
    if filters.role:
        clauses.append(f"role = {sql_string(filters.role.lower())}")
    if filters.session:
        clauses.append(f"session_id = {sql_string(filters.session)}")
    if filters.participant:
        pattern = "%|" + filters.participant.lower().replace("|", "") + "|%"
        clauses.append(f"participants LIKE {sql_string(pattern)}")
    if filters.scope == "memories" and filters.memory_type:
        clauses.append(f"role = {sql_string(MEMORY_ROLE_PREFIX + filters.memory_type)}")
    return " AND ".join(clauses)
