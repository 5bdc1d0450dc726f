"""What the memory-extraction tests share: a session from (role, content) pairs, a fixture
file read as `recall index` reads it, and the memories of one type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from indexer.formats.sources import normalize
from models import Session, parse_session
from models.memory import Memory


def session(*messages: tuple[str, str], date: str = "2026-04-01", **fields: Any) -> Session:
    """A session from (role, content) pairs; ids are <sid>-m<N>."""
    return parse_session(
        {
            "sessionId": "s-test",
            "date": date,
            **fields,
            "messages": [{"role": role, "content": content} for role, content in messages],
        }
    )


def load(path: Path) -> Session:
    return normalize(json.loads(path.read_text()), path.stem)[0]  # redacted, as `recall index` does


def only(memories: list[Memory], memory_type: str) -> list[Memory]:
    return [m for m in memories if m.type == memory_type]
