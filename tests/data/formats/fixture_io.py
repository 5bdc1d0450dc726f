"""What the fixture generators share: the folder they write into and how they write JSON."""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent


def dump(item: object) -> str:
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


def write_lines(path: Path, items: list[object], torn: str | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(dump(i) + "\n" for i in items)
    path.write_text(text + (torn or ""), "utf-8")
