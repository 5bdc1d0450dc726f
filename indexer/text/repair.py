"""Text that cannot be stored as it came: lone UTF-16 surrogates.

JSON may escape half of a surrogate pair alone (`"\\ud83d"`): an agent that cut tool output in
the middle of an emoji writes one. Python decodes it to a string that UTF-8 cannot encode, so
every later write of it fails ("surrogates not allowed"). Each one becomes U+FFFD, the
replacement character, and is counted, so the rest of the message is kept.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["REPLACEMENT", "repair_escapes", "repair_value"]

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
# a `\\uXXXX` escape of a high surrogate, maybe followed by its low half, or a low one alone;
# the backslashes before it are caught too, since an even number of them is no escape at all
_ESCAPE = re.compile(r"(\\+)u([dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
                     r"|(\\+)u([dD][c-fC-F][0-9a-fA-F]{2})")


def repair_escapes(text: str) -> tuple[str, int]:
    """JSON text with each escaped lone surrogate (`\\ud83d` without its other half) written as
    `\\ufffd`, and how many were: counted where they are, before the value is read (a reader may
    copy a message into a title, which would count it twice)."""
    if "\\u" not in text:
        return text, 0
    count = 0

    def lone_low(low: str) -> str:
        nonlocal count
        if not low:
            return ""
        count += 1
        return "\\ufffd"

    def fix(match: re.Match[str]) -> str:
        nonlocal count
        if match.group(1) is not None:
            slashes, low = match.group(1), match.group(3) or ""
            if len(slashes) % 2 == 0:  # not an escape; what follows may be a lone low half
                return slashes + "u" + match.group(2) + lone_low(low)
            if low:
                return match.group(0)  # a whole pair: an emoji
            count += 1
            return slashes[:-1] + "\\ufffd"
        slashes = match.group(4)
        if len(slashes) % 2 == 0:
            return match.group(0)
        count += 1
        return slashes[:-1] + "\\ufffd"

    return _ESCAPE.sub(fix, text), count


def repair_value(value: Any) -> tuple[Any, int]:
    """`value` (JSON: dicts, lists, strings, scalars) with every lone surrogate in its strings
    and keys replaced, and how many were; the value itself when there were none."""
    if isinstance(value, str):
        repaired, count = _SURROGATE.subn(REPLACEMENT, value)
        return (repaired, count) if count else (value, 0)
    if isinstance(value, dict):
        total, out = 0, {}
        for key, item in value.items():
            new_key, n = repair_value(key) if isinstance(key, str) else (key, 0)
            new_item, m = repair_value(item)
            out[new_key] = new_item
            total += n + m
        return (out, total) if total else (value, 0)
    if isinstance(value, list):
        items = [repair_value(item) for item in value]
        total = sum(n for _, n in items)
        return ([item for item, _ in items], total) if total else (value, 0)
    return value, 0
