"""Rebuild both indexes from the archive into a new generation and switch to it atomically.

    python scripts/reindex.py [--home DIR] [--embedder NAME] [-- --ray [ADDRESS] ...]

Same as `recall reindex`; kept here for cron jobs and maintenance scripts. Options after `--`
are reindex's own (`--ray`, `--ray-workers N`, `--json`).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.cli import main

if __name__ == "__main__":
    args = sys.argv[1:]
    split = args.index("--") if "--" in args else len(args)
    raise SystemExit(main([*args[:split], "reindex", *args[split + 1:]]))
