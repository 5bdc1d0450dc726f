"""Progress on long work: a bar when a person watches (stderr is a terminal), else log lines."""

from __future__ import annotations

import logging
import sys
import time
from typing import Protocol

__all__ = ["Progress", "ProgressFactory", "make_progress", "silent_progress"]

log = logging.getLogger("recall.progress")


class Progress(Protocol):
    def update(self, n: int = 1) -> None: ...

    def close(self) -> None: ...


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


class _LogLines:
    """One log line every few seconds, for logs and CI where a bar would be noise."""

    def __init__(self, total: int, desc: str, unit: str, every: float = 5.0) -> None:
        self.total, self.desc, self.unit, self.every = total, desc, unit, every
        self.done = 0
        self._last = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.done += n
        if time.monotonic() - self._last >= self.every:
            self._last = time.monotonic()
            log.info("%s: %d/%d %ss", self.desc, self.done, self.total, self.unit)

    def close(self) -> None:
        pass


def silent_progress(total: int, desc: str, unit: str = "file") -> Progress:
    return _Silent()


def make_progress(total: int, desc: str, unit: str = "file") -> Progress:
    """A bar counting `unit`s (file, session, document, vector)."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False)
    return _LogLines(total, desc, unit)


class ProgressFactory(Protocol):
    def __call__(self, total: int, desc: str, unit: str = "file") -> Progress: ...
