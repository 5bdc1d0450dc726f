"""The CLI's outputs, the OpenAPI document and the MCP tool list match the recorded baseline.

A change to any of them is either a bug or a decision: re-record with
`python scripts/check_interfaces.py record tests/data/interfaces/baseline.json` and say why.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_interfaces_match_the_baseline() -> None:
    proc = subprocess.run(
        [sys.executable, "scripts/check_interfaces.py", "compare", "tests/data/interfaces/baseline.json"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
