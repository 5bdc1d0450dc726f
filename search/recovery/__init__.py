"""Snapshot recovery: choose the snapshot to resume from, compress it, report changes."""

from search.recovery.changes import detect_changes
from search.recovery.choose import recover
from search.recovery.compress import compress

__all__ = ["compress", "detect_changes", "recover"]
