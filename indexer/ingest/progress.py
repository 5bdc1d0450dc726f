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

    def note(self, text: str) -> None:
        """Say something beside the count (a rate)."""

    def close(self) -> None: ...


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


class _LogLines:
    """One log line every few seconds, for logs and CI where a bar would be noise."""

    def __init__(self, total: int, desc: str, unit: str, every: float = 5.0) -> None:
        self.total, self.desc, self.unit, self.every = total, desc, unit, every
        self.done = 0
        self.text = ""
        self._last = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.done += n
        if time.monotonic() - self._last >= self.every:
            self._last = time.monotonic()
            of = f"/{self.total}" if self.total else ""  # 0: the total is not known
            log.info("%s: %d%s %ss%s", self.desc, self.done, of, self.unit,
                     f", {self.text}" if self.text else "")

    def note(self, text: str) -> None:
        self.text = text

    def close(self) -> None:
        pass


def silent_progress(total: int, desc: str, unit: str = "file") -> Progress:
    return _Silent()


def make_progress(total: int, desc: str, unit: str = "file") -> Progress:
    """A bar counting `unit`s (file, session, document, vector)."""
    if sys.stderr.isatty():
        return _Bar(total, desc, unit)
    return _LogLines(total, desc, unit)


class _Bar:
    def __init__(self, total: int, desc: str, unit: str) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total or None, desc=desc, unit=unit, file=sys.stderr, leave=False)

    def update(self, n: int = 1) -> None:
        self.bar.update(n)

    def note(self, text: str) -> None:
        self.bar.set_postfix_str(text, refresh=False)

    def close(self) -> None:
        self.bar.close()


class ProgressFactory(Protocol):
    def __call__(self, total: int, desc: str, unit: str = "file") -> Progress: ...
