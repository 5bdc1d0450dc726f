"""Ingest: validate, redact, archive, then index in both stores, crash-safely and incrementally."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.embedding.embedders import Embedder
from indexer.formats import ImportOptions
from indexer.formats.sources import discover
from indexer.ingest.ann_build import start_ann_build
from indexer.ingest.batches import still_to_write
from indexer.ingest.compute import BatchComputer, LocalComputer
from indexer.ingest.delete import delete_session, delete_unchanged
from indexer.ingest.facts import deferring_relink, relink_unlocked, settle_facts
from indexer.ingest.generations import Generations, open_generation
from indexer.ingest.prepare import FilePreparer, prepare_record, prepare_rewrites
from indexer.ingest.progress import ProgressFactory, silent_progress
from indexer.ingest.repair import Repairs
from indexer.ingest.report import IndexReport
from indexer.ingest.write import BatchWriter, batched, stored_session
from indexer.stores.generation import Generation
from indexer.stores.layout import DataDir
from indexer.stores.lock import WriterLock
from indexer.stores.relevance import PrunedMemory, remove_memories
from indexer.stores.replaced import ReplacedVersions, keeps_messages, kept_messages
from indexer.stores.state import State
from models import IndexUnavailable, Memory, Session, WouldReplace

__all__ = ["IngestOutcome", "Ingestor", "WriteSession"]


@dataclass(frozen=True, slots=True)
class IngestOutcome:
    session_id: str
    changed: bool
    replaced: bool = False  # the stored version's messages were replaced (and kept)


def would_replace(stored: Session, new: Session) -> WouldReplace:
    kept = kept_messages(stored, new)
    return WouldReplace(
        f"session {new.session_id!r} holds {len(stored.messages)} messages; this record keeps "
        f"the first {kept} of them unchanged (role, text, speaker and time) and has "
        f"{len(new.messages)}. Messages sent after the stored ones are added; replacing or "
        "changing stored ones needs an admin token and replace=true (POST "
        "/v1/sessions?replace=true), and keeps the replaced version for `recall restore`.")


class Ingestor:
    """The write operations on one data directory, each under the writer lock."""

    def __init__(
        self,
        data: DataDir,
        embedder: Embedder,
        *,
        max_file_bytes: int = 50_000_000,
        batch_sessions: int = 32,
        lock_wait: float = 30.0,
        progress: ProgressFactory = silent_progress,
        import_options: ImportOptions | None = None,
        keep_replaced_days: float = 30.0,
    ) -> None:
        self.data = data.ensure()
        self.keep_replaced_days = keep_replaced_days
        self.embedder = embedder
        self.max_file_bytes = max_file_bytes
        self.batch_sessions = batch_sessions
        self.lock_wait = lock_wait
        self.progress = progress
        self.import_options = import_options or ImportOptions()
        self.writer = BatchWriter(self.data, embedder)
        self.repairs = Repairs(self.data, self.writer, batch_sessions)

    # public operations, each under the writer lock
    def index_paths(self, paths: Sequence[Path],
                    computer: BatchComputer | None = None) -> IndexReport:
        """Ingest the session files under these paths; `computer` computes the batches
        (default: this process; indexer/distributed/ for a Ray cluster).

        Files are read, redacted and computed without the writer lock; it is taken for each
        computed batch only (indexer/ingest/batches.py), so another writer (a live append, an
        HTTP ingest) waits at most one batch, not the whole run. The last step's relink and
        ANN build run without it too (indexer/ingest/facts.py, indexer/ingest/ann_build.py)."""
        self._generations().rebuild_if_outdated()
        started = time.monotonic()
        report = IndexReport()
        self.reconcile()  # what a crashed writer left is finished before files are judged
        reading = State(self.data.state_db)
        try:
            # held to the end: a writer between two batches, or before the last step, leaves
            # the relink (it reads every statement) to this run's last step
            with deferring_relink(self.data):
                self._write_files(paths, reading, report, computer)
                with self._lock(), self.write_session(reconcile=False, settle=False) as (
                        state, gen):
                    ReplacedVersions(self.data).expire(self.keep_replaced_days)
                    if report.indexed:
                        gen.vectors.compact(rebuilding=gen.vectors.due_indexes())
                        gen.mark_changed()
                    settle_facts(self.data, state, self.embedder, relink=False)
                # The ANN build (minutes at 100k sessions, mostly Lance's own threads) and the
                # relink (mostly Python) run side by side, neither under the writer lock: the
                # build takes it only to start, before the relink does.
                pending = (start_ann_build(self.data, self.embedder, self._lock)
                           if report.indexed else None)
                with ThreadPoolExecutor(1, thread_name_prefix="ann-build") as beside:
                    ann = beside.submit(pending.run) if pending is not None else None
                    relink_unlocked(self.data, self._lock)
                    if ann is not None:
                        ann.result()
        finally:
            reading.close()
        report.seconds = time.monotonic() - started
        return report

    def ingest_record(self, raw: dict[str, Any], replace: bool = False) -> IngestOutcome:
        """Ingest one session record (e.g. from the HTTP API). A record that would replace
        the stored session's messages (fewer of them, or changed ones) is refused with
        WouldReplace unless `replace` is given; the replaced version is kept either way
        (indexer/stores/replaced.py). A stored message whose speaker or time the record changes
        counts as changed."""
        prepared = prepare_record(raw)
        session_id = prepared.session.session_id
        with self._writing() as (state, gen):
            row = state.session(session_id)
            if row and row.status == "indexed" and row.content_hash == prepared.content_hash:
                return IngestOutcome(session_id, changed=False)
            stored = stored_session(self.data.archive / row.archive_path) if row else None
            if stored and not replace and not keeps_messages(stored[0], prepared.session):
                raise would_replace(stored[0], prepared.session)
            report = IndexReport()
            self.writer.flush([prepared], state, gen, report, keep_replaced=True, times=True)
            if row:  # the old version's vector rows are deleted: rewrite them out
                gen.vectors.compact()
            ReplacedVersions(self.data).expire(self.keep_replaced_days)
        return IngestOutcome(session_id, changed=True, replaced=bool(report.replaced))

    def delete(self, session_id: str) -> None:
        with self._writing() as (state, gen):
            delete_session(self.data, state, gen, session_id)
            ReplacedVersions(self.data).drop(session_id)

    def delete_many(self, expected: dict[str, str]) -> list[str]:
        """Delete sessions in one write, each only if its content hash is still the one given
        (it did not change since it was chosen); returns the ids deleted."""
        with self._writing() as (state, gen):
            deleted = delete_unchanged(self.data, state, gen, expected)
            versions = ReplacedVersions(self.data)
            for session_id in deleted:
                versions.drop(session_id)
            return deleted

    def purge(self) -> dict[str, int]:
        """Copy the live generation into a fresh one and remove every older one, and rewrite
        the state database, so that text already deleted is in no index or database file
        (`recall delete --purge`, indexer/maintenance/purge.py). Searches keep answering meanwhile."""
        generations = self._generations()
        with self._rebuild_lock(), self._lock():
            with self.write_session() as (state, gen):
                name, copied = generations.purge(state, gen)
            # unlike a reindex, the previous generation goes now: it still holds the text
            generations.drop_old(keep={name})
        return copied

    def reindex(self, computer: BatchComputer | None = None) -> IndexReport:
        """Rebuild both indexes from the archive into a new generation, then switch to it."""
        return self._generations().reindex(computer)

    def rewrite(self, session_ids: Sequence[str],
                transform: Callable[[Session, list[Memory]], Session | None]) -> IndexReport:
        """Replace archived sessions by transform(session, its memories) through the normal
        crash-safe path (retention uses it); None leaves a session as it is. Each session is
        read under the writer lock, so a concurrent ingest cannot be overwritten by a stale copy."""
        started = time.monotonic()
        report = IndexReport()
        with self._writing() as (state, gen):
            changed = prepare_rewrites(self.data, state, self.embedder, session_ids, transform,
                                       report)
            self.writer.write_all(changed, state, gen, report, self.batch_sessions)
            if report.indexed:
                gen.vectors.compact()
        report.seconds = time.monotonic() - started
        return report

    def prune_memories(self, relevance: dict[str, float], now: float) -> list[PrunedMemory]:
        """Remove these memories (id -> relevance when chosen) from the memory store and both
        indexes for good, leaving tombstones (indexer/stores/relevance.py)."""
        with self._writing() as (_, gen):
            return remove_memories(self.data, gen, relevance, now)

    def reconcile(self) -> int:
        """Finish what a crashed writer left: returns how many sessions were repaired."""
        with self._writing(reconcile=False) as (state, gen):
            return self.repairs.reconcile(state, gen)

    def repair(self, session_ids: Iterable[str]) -> IndexReport:
        """Make the given sessions agree with the archive (`recall check --repair`): an archived
        one is re-indexed from its archive file through the crash-safe path; one with no archive
        record is dropped from both indexes, the state and the memory store."""
        started = time.monotonic()
        report = IndexReport()
        with self._writing() as (state, gen):
            self.repairs.repair(session_ids, state, gen, report)
        report.seconds = time.monotonic() - started
        return report

    def open_generation(self) -> Generation:
        return open_generation(self.data, self.embedder)

    def write_session(self, reconcile: bool = True, settle: bool = True) -> WriteSession:
        """State and the live generation for a writer that holds the lock."""
        return WriteSession(self.data, self.embedder, self.repairs if reconcile else None,
                            settle)

    # internals
    def _write_files(self, paths: Sequence[Path], reading: State, report: IndexReport,
                     computer: BatchComputer | None) -> None:
        """Read the files without the writer lock (`reading`: the state to judge them by) and
        write them batch by batch, each under the lock."""
        files = list(discover(paths, report.skipped_files))
        report.files = len(files)
        bar = self.progress(len(files), "indexing")
        preparer = FilePreparer(self.data, self.max_file_bytes, self.import_options)
        batches = batched(preparer.prepare_files(files, reading, report, bar),
                          self.batch_sessions)
        for batch, computed in (computer or LocalComputer(self.embedder)).compute(
                self.data, batches):
            with self._lock(), self.write_session(reconcile=False, settle=False) as (state, gen):
                kept, still = still_to_write(self.data, preparer, batch, computed, state, report)
                self.writer.flush(kept, state, gen, report, still, keep_replaced=True)
        bar.close()

    @contextmanager
    def _writing(self, reconcile: bool = True) -> Iterator[tuple[State, Generation]]:
        with self._lock(), self.write_session(reconcile) as (state, gen):
            yield state, gen

    def _lock(self) -> WriterLock:
        return WriterLock(self.data.lock_file, self.lock_wait)

    def _rebuild_lock(self) -> WriterLock:
        return WriterLock(self.data.rebuild_lock_file, self.lock_wait, "reindex or purge")

    def _generations(self) -> Generations:
        # built for each operation: progress can be changed on a built Ingestor (recall watch)
        return Generations(self.data, self.embedder, self.writer,
                           batch_sessions=self.batch_sessions, progress=self.progress,
                           lock=self._lock, rebuild_lock=self._rebuild_lock)


class WriteSession:
    """Opens state and the live generation for a writer and closes both, reconciling first
    unless no `repairs` are given, and settling the facts at the end unless `settle` is False
    (a batch of a longer write: the fact store stays marked stale until its last one)."""

    def __init__(self, data: DataDir, embedder: Embedder, repairs: Repairs | None,
                 settle: bool = True) -> None:
        self.data = data
        self.embedder = embedder
        self.repairs = repairs
        self.settle = settle

    def __enter__(self) -> tuple[State, Generation]:
        self.state = State(self.data.state_db)
        try:
            self.gen = open_generation(self.data, self.embedder)
        except IndexUnavailable:
            self.state.close()
            raise
        if self.repairs is not None:
            self.repairs.reconcile(self.state, self.gen)
        return self.state, self.gen

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        try:
            self.gen.close()
            # statements a write changed are linked again, once per write
            if exc_type is None and self.settle:
                settle_facts(self.data, self.state, self.embedder)
        finally:
            self.state.close()
