"""One writer at a time: an advisory file lock held for the whole write."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from models import WriterBusy

__all__ = ["WriterLock"]


class WriterLock:
    """Exclusive lock on a file; waits up to `wait` seconds, then fails with who holds it."""

    def __init__(self, path: Path, wait: float = 30.0) -> None:
        self.path = path
        self.wait = wait
        self._handle = None

    def __enter__(self) -> WriterLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+")
        deadline = time.monotonic() + self.wait
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    handle.seek(0)
                    holder = handle.read().strip() or "another process"
                    handle.close()
                    raise WriterBusy(
                        f"another recall writer is running (pid {holder}); waited {self.wait:.0f}s. "
                        "Try again when it has finished."
                    ) from None
                time.sleep(0.2)
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
