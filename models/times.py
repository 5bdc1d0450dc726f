"""Times as inputs give them: ISO-8601 strings, or epoch seconds or milliseconds."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

__all__ = ["DATE", "parse_time"]

DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def parse_time(value: Any) -> str | None:
    """An ISO-8601 string as given, or epoch seconds/milliseconds as UTC ISO-8601."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and DATE.match(value.strip()):
        return value.strip()
    return None
