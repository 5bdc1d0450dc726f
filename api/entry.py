"""The `recall` command (pyproject's console script): a search through the running server of the
data directory is answered by the fast client (api/client/search.py) before click or the service
are imported; every other command, and every search that client leaves, goes to the click CLI
(api/cli), which `python -m api.cli` runs alone."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing is not imported at run time: the fast client does without it
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if "search" in args:
        from api.client.search import answer

        code = answer(args, os.environ, sys.stdout)
        if code is not None:
            return code
    from api.cli.main import main as click_main

    return click_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
