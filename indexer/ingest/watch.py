"""`recall watch`: keep archiving transcripts as they are written, by polling file sizes and times.

Each round lists the files under the watched paths (os.scandir via os.walk) and stats them. A
file is ingested once it has been quiet (size and mtime unchanged, mtime at least `quiet`
seconds old) and differs from what this watcher last ingested. Ingesting goes through the normal
crash-safe path (Ingestor.index_paths), which takes the writer lock for each batch it writes, so
searches and other writers are not blocked in between; the state DB's per-file content hash
makes an unchanged file a no-op, so a restarted watcher picks up where the last one stopped and
a grown JSONL file is read again whole. A file that fails is reported with its path and reason
and tried again only when it changes; the watcher itself carries on.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from indexer.formats import database
from indexer.formats.sources import Rejection
from indexer.ingest.report import IndexReport
from indexer.stores.faults import explain_fault
from models import IndexUnavailable, RecallError, StorageFault, WriterBusy

__all__ = ["Signature", "WatchRound", "Watcher"]

log = logging.getLogger(__name__)

Signature = tuple[int, ...]  # mtime and size of the file (and of a database's log)


@dataclass
class WatchRound:
    """What one polling round did."""

    seen: int = 0  # files found under the watched paths
    waiting: int = 0  # changed, but still being written (not quiet yet)
    ingested: list[Path] = field(default_factory=list)  # files handed to the ingestor
    report: IndexReport | None = None
    failed: list[Rejection] = field(default_factory=list)  # files whose ingest raised
    busy: bool = False  # another writer held the lock: the files are retried next round
    fault: str | None = None  # the machine failed (a full disk, a damaged index): retried too


@dataclass
class _Seen:
    signature: Signature
    since: float  # monotonic time this signature was first seen


class Watcher:
    """Polls `list_files()` and hands quiet, changed files to `ingest(files)` in one batch."""

    def __init__(self, list_files: Callable[[], Iterable[Path]],
                 ingest: Callable[[Sequence[Path]], IndexReport], *, quiet: float = 2.0,
                 interval: float = 1.0, wall_clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic,
                 home: Path | None = None) -> None:
        """home: the data directory, asked whether its disk is full when an ingest fails."""
        self.list_files = list_files
        self.home = home
        self.ingest = ingest
        self.quiet = quiet
        self.interval = interval
        self.wall_clock = wall_clock
        self.monotonic = monotonic
        self.stopping = threading.Event()
        self._seen: dict[Path, _Seen] = {}
        self._done: dict[Path, Signature] = {}  # signature last ingested (or rejected)

    def stop(self) -> None:
        """Ask the loop to end after the current round (signal handlers call this)."""
        self.stopping.set()

    def run(self, on_round: Callable[[WatchRound], None] | None = None) -> None:
        while not self.stopping.is_set():
            result = self.poll()
            if on_round:
                on_round(result)
            self.stopping.wait(self.interval)

    def poll(self) -> WatchRound:
        result = WatchRound()
        now, tick = self.wall_clock(), self.monotonic()
        ready: list[Path] = []
        present: set[Path] = set()
        for path in self.list_files():
            try:
                st = os.stat(path)
            except OSError:  # deleted between listing and stat: the archive keeps what was read
                continue
            present.add(path)
            log_st = _log_signature(path)
            signature = (st.st_mtime_ns, st.st_size, *log_st)
            if self._done.get(path) == signature:
                continue
            seen = self._seen.get(path)
            if seen is None or seen.signature != signature:
                seen = self._seen[path] = _Seen(signature, tick)
            # quiet: unchanged on disk for `quiet` seconds (by mtime, or by our own observation
            # when the file's clock cannot be trusted, e.g. an mtime in the future)
            modified = max((st.st_mtime_ns, *log_st[:1])) / 1e9  # a database's log included
            if now - modified >= self.quiet or tick - seen.since >= self.quiet:
                ready.append(path)
            else:
                result.waiting += 1
        result.seen = len(present)
        for gone in [p for p in self._seen if p not in present]:
            del self._seen[gone]
        for gone in [p for p in self._done if p not in present]:
            del self._done[gone]
        if ready:
            self._ingest(ready, result)
        return result

    def _ingest(self, ready: list[Path], result: WatchRound) -> None:
        signatures = {p: self._seen[p].signature for p in ready}
        try:
            result.report = self.ingest(ready)
        except WriterBusy as exc:
            log.info("writer busy, retrying next round: %s", exc.detail)
            result.busy = True
            return
        except Exception as exc:  # noqa: BLE001 - one bad file must not stop the watcher
            fault = explain_fault(exc, self.home)
            if isinstance(fault, StorageFault | IndexUnavailable):  # not the files' fault
                result.fault = fault.detail
                return
            log.warning("ingesting %d files failed (%s); trying them one by one", len(ready), exc)
            result.report, retry = self._one_by_one(ready, result)
            ready = [p for p in ready if p not in retry]
        failed = {f.path for f in result.failed}
        result.ingested = [p for p in ready if str(p) not in failed]
        for path in ready:
            self._done[path] = signatures[path]
            self._seen.pop(path, None)

    def _one_by_one(self, ready: list[Path], result: WatchRound) -> tuple[IndexReport, set[Path]]:
        total, retry = IndexReport(), set()
        for path in ready:
            try:
                report = self.ingest([path])
            except WriterBusy:
                result.busy = True
                retry.add(path)
                continue
            except RecallError as exc:
                result.failed.append(Rejection(str(path), exc.detail))
                continue
            except Exception as exc:  # noqa: BLE001
                result.failed.append(Rejection(str(path), f"{type(exc).__name__}: {exc}"))
                continue
            _add(total, report)
        return total, retry


def _add(total: IndexReport, report: IndexReport) -> None:
    total.indexed += report.indexed
    total.unchanged += report.unchanged
    total.rejected += report.rejected
    total.seconds += report.seconds
    total.messages += report.messages
    total.files += report.files
    total.snapshots += report.snapshots
    total.redacted.update(report.redacted)


def _log_signature(path: Path) -> tuple[int, ...]:
    """A SQLite database's write-ahead log, where an agent's newest messages wait until they are
    checkpointed into the database file itself."""
    if path.suffix not in database.SUFFIXES:
        return ()
    try:
        st = os.stat(database.write_ahead_log(path))
    except OSError:
        return ()
    return (st.st_mtime_ns, st.st_size)
