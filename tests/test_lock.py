"""The writer lock: one writer at a time, a clear error after the wait, and fair to a waiter."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from indexer.stores.lock import WriterLock
from models import WriterBusy


def test_second_writer_waits_then_fails_naming_the_holder(tmp_path: Path) -> None:
    lock = tmp_path / "writer.lock"
    with WriterLock(lock), pytest.raises(WriterBusy, match=r"pid \d+\); waited 0s"), \
            WriterLock(lock, wait=0.2):
        pass


def test_a_waiter_gets_the_lock_from_a_writer_that_takes_it_again_and_again(tmp_path: Path) -> None:
    """A server taking appends back to back must not starve a reindex waiting for the lock."""
    lock = tmp_path / "writer.lock"
    stop = threading.Event()

    def busy_writer() -> None:
        while not stop.is_set():
            with WriterLock(lock):
                time.sleep(0.02)  # one append; then straight back for the next

    writer = threading.Thread(target=busy_writer)
    writer.start()
    try:
        time.sleep(0.1)
        started = time.monotonic()
        with WriterLock(lock, wait=3.0):
            waited = time.monotonic() - started
    finally:
        stop.set()
        writer.join()
    assert waited < 1.0
