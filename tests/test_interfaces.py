"""The CLI's outputs, the OpenAPI document and the MCP tool list match the recorded baseline.

A change to any of them is either a bug or a decision: re-record with
`python scripts/check_interfaces.py record tests/data/interfaces/baseline.json` and say why.
Every answer they record speaks snake_case.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def test_interfaces_match_the_baseline() -> None:
    proc = subprocess.run(
        [sys.executable, "scripts/check_interfaces.py", "compare", "tests/data/interfaces/baseline.json"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr


# a key of a JSON object recall sends: snake_case, never camelCase (the archive's files keep
# camelCase on disk; nothing recall answers does)
CAMEL = re.compile(r"^[a-z][a-z0-9]*[A-Z]")


def _keys(value: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, where
            yield from _keys(item, where)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item, where)


def _property_names(schema: Any, where: str) -> Iterator[tuple[str, str]]:
    """The names a JSON Schema gives its objects' properties (not its own keywords)."""
    if isinstance(schema, dict):
        for key, item in schema.items():
            if key == "properties" and isinstance(item, dict):
                yield from ((name, where) for name in item)
            yield from _property_names(item, where)
    elif isinstance(schema, list):
        for item in schema:
            yield from _property_names(item, where)


def test_no_answer_of_any_interface_has_a_camel_case_key() -> None:
    recorded = json.loads((ROOT / "tests" / "data" / "interfaces" / "baseline.json").read_text())
    found: list[tuple[str, str]] = []
    for run in recorded["cli"]:
        found += _keys(run["stdout"], "recall " + " ".join(run["argv"]))
    for token, document in recorded["openapi"].items():
        for name, schema in document["components"]["schemas"].items():
            found += _property_names(schema, f"OpenAPI ({token}) {name}")
    for tool in recorded["mcp_tools"]:
        found += _property_names(tool.get("outputSchema") or {}, f"MCP {tool['name']}")
    camel = sorted({(key, where) for key, where in found if CAMEL.match(key)})
    assert camel == [], camel[:20]
    assert len(found) > 1000  # the walk saw the answers
