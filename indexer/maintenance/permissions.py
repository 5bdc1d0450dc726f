"""Who may read the data directory: its owner only.

Conversations, tokens' hashes and the audit log are private: the data directory is made 0700
(DataDir.ensure), and `recall` itself creates everything with umask 077 (api/cli/main.py), so
its files are 0600. `recall check` reports a data directory another user of the machine could
enter (made by hand, or opened with chmod) with what in it is open too, and `recall check
--repair` makes the directory and everything in it owner-only.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from indexer.stores.layout import DataDir

__all__ = ["open_to_others", "tighten"]

_OTHERS = stat.S_IRWXG | stat.S_IRWXO


def open_to_others(data: DataDir) -> list[Path]:
    """What another user of the machine could read or enter: nothing while the data directory
    itself is owner-only, else the directory and every path in it that is open too."""
    if not data.root.exists() or not _open(data.root):
        return []
    return [data.root, *_open_inside(data.root)]


def tighten(data: DataDir) -> int:
    """Make the data directory and everything in it owner-only; returns how many paths were
    changed."""
    changed = 0
    for path in ([data.root] if _open(data.root) else []) + _open_inside(data.root):
        os.chmod(path, stat.S_IMODE(path.lstat().st_mode) & ~_OTHERS)
        changed += 1
    return changed


def _open_inside(root: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = Path(folder) / name
            if not path.is_symlink() and _open(path):
                found.append(path)
    return found


def _open(path: Path) -> bool:
    try:
        return bool(path.lstat().st_mode & _OTHERS)
    except FileNotFoundError:  # removed while walking (a writer at work)
        return False
