"""One writer at a time: an advisory file lock held for the whole write."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import IO, Self

from models import WriterBusy

__all__ = ["WriterLock", "lock_held", "writer_active"]


class WriterLock:
    """Exclusive lock on a file; waits up to `wait` seconds, then fails with who holds it.

    Fair between processes: a waiter first takes a turnstile (`<lock>.queue`), held only while
    it waits for the lock itself. A writer that writes again and again (a server taking
    appends) then queues behind a waiting reindex instead of taking the lock back in the
    moment between two of its writes, which a waiter that polls would rarely see."""

    def __init__(self, path: Path, wait: float = 30.0, what: str = "recall writer") -> None:
        self.path = path
        self.wait = wait
        self.what = what  # who holds it, for the message when it stays taken
        self._handle: IO[str] | None = None

    def __enter__(self) -> Self:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.wait
        with open(self.path.with_name(self.path.name + ".queue"), "a+") as turnstile:
            _take(turnstile, deadline, self)
            handle = open(self.path, "a+")
            try:
                _take(handle, deadline, self)
            except WriterBusy:
                handle.close()
                raise
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._handle = handle
        return self

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def _take(handle: IO[str], deadline: float, lock: WriterLock) -> None:
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = lock.path.read_text().strip() if lock.path.exists() else ""
                raise WriterBusy(
                    f"another {lock.what} is running (pid {holder or 'unknown'}); waited "
                    f"{lock.wait:.0f}s. Try again when it has finished."
                ) from None
            time.sleep(0.05)


def writer_active(path: Path) -> bool:
    """Whether a writer holds the lock at `path` now (without waiting for it, or stopping one
    from taking it: a shared lock is tried and let go at once)."""
    return lock_held(path, fcntl.LOCK_SH)


def lock_held(path: Path, mode: int) -> bool:
    """Whether a lock at `path` keeps a `mode` (fcntl.LOCK_SH or LOCK_EX) lock from being taken
    now; one taken is let go at once."""
    try:
        handle = open(path)  # noqa: SIM115  closed below, on every path
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(handle, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        handle.close()  # closing releases a lock taken
    return False
