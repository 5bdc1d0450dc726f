"""Rebuild both indexes from the archive into a new generation and switch to it atomically.

    python scripts/reindex.py [--home DIR] [--embedder NAME]

Same as `recall reindex`; kept here for cron jobs and maintenance scripts.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.cli import main

if __name__ == "__main__":
    raise SystemExit(main([*sys.argv[1:], "reindex"]))
