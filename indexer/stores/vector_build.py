"""The lock an ANN index build holds while it runs without the writer lock.

Building an ANN index over 100k sessions takes a minute or more, too long for a live append to
wait. Lance commits an index built from version N over the appends and deletes committed since
(their rows are searched flat until the next optimize folds them in), but not over a rewrite of
the fragments it read: a compaction commits first, and the build fails with a commit conflict.
So a builder takes this lock (while it holds the writer lock, so no compaction is under way),
and writers leave compaction to a later write while it is held (VectorIndex.compact).
"""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import IO, Self

from indexer.stores.lock import lock_held

__all__ = ["BUILD_LOCK", "AnnBuild", "ann_build_running"]

BUILD_LOCK = "ann-build.lock"


class AnnBuild:
    """The exclusive lock of one vector index's ANN builds (a flock: let go if the builder
    dies). take() never waits: another build under way has the same tables to do."""

    def __init__(self, vectors: Path) -> None:
        self.path = vectors / BUILD_LOCK
        self._handle: IO[str] | None = None

    def take(self) -> bool:
        handle = open(self.path, "a")  # noqa: SIM115  kept open while the lock is held
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._handle = handle
        return True

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing lets go of the lock
            self._handle = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def ann_build_running(vectors: Path) -> bool:
    """Whether a build holds the lock of the vector index at `vectors` now."""
    return lock_held(vectors / BUILD_LOCK, fcntl.LOCK_SH)
