"""Ingest: validate, redact, archive, then index in both stores, crash-safely and incrementally.

Order for every batch of sessions (see state.py):
  1. state: mark `pending`      2. archive files (atomic)      3. embed passages
  4. Tantivy: delete + add + commit      5. LanceDB: delete + add      6. state: `indexed`
A crash anywhere leaves `pending` rows that the next writer re-indexes from the archive, and
deletes by session id make every step safe to repeat: no session ends up in one store only,
none is duplicated.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import msgspec

from indexer.embedding.embedders import Embedder, PassageCache
from indexer.formats import ImportOptions
from indexer.formats.sources import (
    RawSnapshot,
    Rejection,
    discover,
    file_hash,
    load_file,
    normalize,
    quarantine,
)
from indexer.ingest.progress import ProgressFactory, silent_progress
from indexer.ingest.report import IndexReport
from indexer.maintenance.purge import copy_generation
from indexer.memories.extract import extract_memories, extract_memories_batch
from indexer.stores.documents import memory_documents, session_documents, split_passages
from indexer.stores.generation import COPYABLE_SCHEMAS, SCHEMA_VERSION, Generation
from indexer.stores.layout import DataDir, atomic_write_many
from indexer.stores.lock import WriterLock
from indexer.stores.memories import MemoryStore
from indexer.stores.relevance import PrunedMemory, RelevanceStore, remove_memories, without_pruned
from indexer.stores.snapshots import SnapshotStore
from indexer.stores.state import SessionRow, State
from indexer.stores.todos import TodoStore
from indexer.text.redact import redact_value
from models import (
    IndexUnavailable,
    InvalidSession,
    Memory,
    NotFound,
    RecallError,
    Session,
    parse_snapshot,
)

__all__ = ["Ingestor"]

log = logging.getLogger(__name__)

# Every add and delete makes a LanceDB version and a small fragment; a long ingest compacts them
# every so many rows, so searches meanwhile do not walk thousands of fragments.
COMPACT_EVERY_ROWS = 200_000


@dataclass(frozen=True, slots=True)
class _Prepared:
    session: Session
    archive_bytes: bytes
    content_hash: str
    source: str | None  # input path, for the incremental skip
    source_hash: str | None


class Ingestor:
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
    ) -> None:
        self.data = data.ensure()
        self.embedder = embedder
        self.max_file_bytes = max_file_bytes
        self.batch_sessions = batch_sessions
        self.lock_wait = lock_wait
        self.progress = progress
        self.import_options = import_options or ImportOptions()
        self._rows_since_compact = 0

    # public operations, each under the writer lock
    def index_paths(self, paths: Sequence[Path]) -> IndexReport:
        self._rebuild_if_outdated()
        started = time.monotonic()
        report = IndexReport()
        with WriterLock(self.data.lock_file, self.lock_wait), self._session() as (state, gen):
            files = list(discover(paths))
            report.files = len(files)
            bar = self.progress(len(files), "indexing")
            batch: list[_Prepared] = []
            claimed: dict[str, tuple[str, str]] = {}  # session id -> (path, hash) this run
            for path in files:
                for prepared in self._prepare_file(path, state, report, claimed):
                    batch.append(prepared)
                    if len(batch) >= self.batch_sessions:
                        self._flush(batch, state, gen, report)
                        batch = []
                bar.update(1)
            self._flush(batch, state, gen, report)
            bar.close()
            if report.indexed:
                gen.vectors.optimize()
                gen.mark_changed()
        report.seconds = time.monotonic() - started
        return report

    def ingest_record(self, raw: dict[str, Any]) -> tuple[str, bool]:
        """Ingest one session record (e.g. from the HTTP API). Returns (id, changed)."""
        session, archive_bytes, _ = normalize(raw, None)
        with WriterLock(self.data.lock_file, self.lock_wait), self._session() as (state, gen):
            prepared = _Prepared(session, archive_bytes, _sha(archive_bytes), None, None)
            row = state.session(session.session_id)
            if row and row.status == "indexed" and row.content_hash == prepared.content_hash:
                return session.session_id, False
            self._flush([prepared], state, gen, IndexReport())
            if row:  # the old version's vector rows are deleted: rewrite them out
                gen.vectors.compact()
        return session.session_id, True

    def delete(self, session_id: str) -> None:
        with WriterLock(self.data.lock_file, self.lock_wait), self._session() as (state, gen):
            if state.session(session_id) is None:
                raise NotFound(f"no session {session_id!r}")
            state.set_status([session_id], "deleting")
            self._finish_deletes([session_id], state, gen)

    def delete_many(self, expected: dict[str, str]) -> list[str]:
        """Delete sessions in one write, each only if its content hash is still the one given
        (it did not change since it was chosen); returns the ids deleted."""
        with WriterLock(self.data.lock_file, self.lock_wait), self._session() as (state, gen):
            doomed = [sid for sid, content_hash in expected.items()
                      if (row := state.session(sid)) is not None and row.status == "indexed"
                      and row.content_hash == content_hash]
            state.set_status(doomed, "deleting")
            self._finish_deletes(doomed, state, gen)
        return doomed

    def purge(self) -> dict[str, int]:
        """Copy the live generation into a fresh one and remove every older one, and rewrite
        the state database, so that text already deleted is in no index or database file
        (`recall delete --purge`, indexer/purge.py). Searches keep answering meanwhile."""
        with WriterLock(self.data.lock_file, self.lock_wait):
            with self._session() as (state, gen):
                name, copied = self._switch_to_copy(gen)
                state.vacuum()
                with RelevanceStore(self.data) as relevance:
                    relevance.vacuum()
            # unlike a reindex, the previous generation goes now: it still holds the text
            self._drop_old_generations(keep={name})
        return copied

    def reindex(self) -> IndexReport:
        """Rebuild both indexes from the archive into a new generation, then switch to it."""
        started = time.monotonic()
        report = IndexReport()
        with WriterLock(self.data.lock_file, self.lock_wait):
            state = State(self.data.state_db)
            try:
                for row in state.sessions("deleting"):  # a delete a crash interrupted
                    (self.data.archive / row.archive_path).unlink(missing_ok=True)
                    self._forget_drawn_from([row.session_id])
                    state.forget([row.session_id])
                old = self.data.current_generation()
                name = _generation_name()
                gen = Generation.create(self.data.generation(name), self.embedder.name,
                                        self.embedder.dim)
                archive_files = sorted(self.data.archive.rglob("*.json"))
                bar = self.progress(len(archive_files), "reindexing")
                batch: list[_Prepared] = []
                seen: set[str] = set()  # a session archived twice (a crash mid-move) counts once

                def write(batch: list[_Prepared]) -> None:
                    ids = [p.session.session_id for p in batch]
                    self._write_indexes(batch, gen, replacing=[i for i in ids if i in seen])
                    seen.update(ids)
                    report.indexed += len(batch)

                for path in archive_files:
                    prepared = self._prepare_archived(path, report)
                    if prepared:
                        if any(p.session.session_id == prepared.session.session_id for p in batch):
                            write(batch)
                            batch = []
                        batch.append(prepared)
                    if len(batch) >= self.batch_sessions:
                        write(batch)
                        batch = []
                    bar.update(1)
                write(batch)
                bar.close()
                gen.vectors.optimize()
                gen.close()
                self._adopt_archive(state, archive_files)
                self.data.set_current_generation(name)
                self._drop_old_generations(keep={name, old})
            finally:
                state.close()
        report.seconds = time.monotonic() - started
        return report

    def rewrite(self, session_ids: Sequence[str],
                transform: Callable[[Session, list[Memory]], Session | None]) -> IndexReport:
        """Replace archived sessions by transform(session, its memories) through the normal
        crash-safe path (retention uses it); None leaves a session as it is. Each session is
        read under the writer lock, so a concurrent ingest cannot be overwritten by a stale copy."""
        started = time.monotonic()
        report = IndexReport()
        with WriterLock(self.data.lock_file, self.lock_wait), self._session() as (state, gen):
            memories = MemoryStore(self.data)
            batch: list[_Prepared] = []
            for session_id in session_ids:
                row = state.session(session_id)
                if row is None or row.status != "indexed":
                    continue
                session = msgspec.json.decode((self.data.archive / row.archive_path).read_bytes(),
                                              type=Session)
                kept = memories.load(session_id)
                if kept is None:
                    kept = extract_memories(session, embedder=PassageCache(self.embedder))
                changed = transform(session, kept)
                if changed is None:
                    report.unchanged += 1
                    continue
                data = msgspec.json.format(msgspec.json.encode(changed), indent=1)
                batch.append(_Prepared(changed, data, _sha(data), None, None))
                if len(batch) >= self.batch_sessions:
                    self._flush(batch, state, gen, report)
                    batch = []
            self._flush(batch, state, gen, report)
            if report.indexed:
                gen.vectors.compact()
        report.seconds = time.monotonic() - started
        return report

    def prune_memories(self, relevance: dict[str, float], now: float) -> list[PrunedMemory]:
        """Remove these memories (id -> relevance when chosen) from the memory store and both
        indexes for good, leaving tombstones (indexer/relevance.py)."""
        with WriterLock(self.data.lock_file, self.lock_wait), self._session() as (_, gen):
            return remove_memories(self.data, gen, relevance, now)

    def reconcile(self) -> int:
        """Finish what a crashed writer left: returns how many sessions were repaired."""
        with WriterLock(self.data.lock_file, self.lock_wait), self._session(reconcile=False) as (
            state, gen
        ):
            return self._reconcile(state, gen)

    def repair(self, session_ids: Iterable[str]) -> IndexReport:
        """Make the given sessions agree with the archive (`recall check --repair`): an archived
        one is re-indexed from its archive file through the crash-safe path; one with no archive
        record is dropped from both indexes, the state and the memory store."""
        started = time.monotonic()
        report = IndexReport()
        with WriterLock(self.data.lock_file, self.lock_wait), self._session() as (state, gen):
            archived = {p.stem: p for p in self.data.archive.rglob("*.json")}
            redo: list[_Prepared] = []
            gone: list[str] = []
            for session_id in sorted(set(session_ids)):
                path = archived.get(session_id)
                prepared = self._prepare_archived(path, report) if path else None
                if prepared is None:
                    gone.append(session_id)
                elif prepared.session.session_id == session_id:
                    redo.append(prepared)
            if gone:
                gen.keyword.delete_sessions(gone)
                gen.keyword.commit()
                gen.vectors.delete_sessions(gone)
                memories = MemoryStore(self.data)
                for session_id in gone:
                    try:
                        memories.delete(session_id)
                    except InvalidSession:  # not a valid id: no file can carry it
                        pass
                with RelevanceStore(self.data) as relevance:
                    relevance.forget_sessions(gone)
                state.forget(gone)
            for start in range(0, len(redo), self.batch_sessions):
                self._flush(redo[start : start + self.batch_sessions], state, gen, report)
        report.seconds = time.monotonic() - started
        return report

    # internals
    def _rebuild_if_outdated(self) -> None:
        # an index an older recall built (another layout) is upgraded rather than refused:
        # upgrading should not need a manual step
        name = self.data.current_generation()
        schema = Generation.schema_of(self.data.generation(name)) if name else None
        if schema is None or schema == SCHEMA_VERSION:
            return
        if schema in COPYABLE_SCHEMAS and self._upgrade_by_copy():
            return
        log.warning("the index has schema %s, this recall writes %s: rebuilding it from the "
                    "archive", schema, SCHEMA_VERSION)
        self.reindex()

    def _upgrade_by_copy(self) -> bool:
        """Copy an index of a copyable older schema into this one's layout, without embedding
        anything again; False when it was built with another embedder (that needs a reindex)."""
        with WriterLock(self.data.lock_file, self.lock_wait):
            old_name = self.data.current_generation()
            if old_name is None:
                return True
            old = Generation.open(self.data.generation(old_name), accept=COPYABLE_SCHEMAS)
            if old.meta["schema"] == SCHEMA_VERSION:
                return True  # another process upgraded it while this one waited
            if old.embedder_name != self.embedder.name:
                return False
            log.warning("the index has schema %s, this recall writes %s: copying it into the "
                        "new layout (nothing is embedded again)", old.meta["schema"],
                        SCHEMA_VERSION)
            name, copied = self._switch_to_copy(old)
            old.close()
            self._drop_old_generations(keep={name, old_name})
            log.warning("upgraded the index: %d keyword documents, %d vectors copied",
                        copied["keyword_documents"], copied["vector_rows"])
        return True

    def _switch_to_copy(self, source: Generation) -> tuple[str, dict[str, int]]:
        """Copy source into a new generation of this recall's layout and make it the live one;
        its name and what was copied."""
        name = _generation_name()
        fresh = Generation.create(self.data.generation(name), source.embedder_name, source.dim)
        copied = copy_generation(source, fresh, self.progress)
        fresh.close()
        self.data.set_current_generation(name)
        return name, copied

    def _session(self, reconcile: bool = True) -> _WriteSession:
        return _WriteSession(self, reconcile)

    def open_generation(self) -> Generation:
        name = self.data.current_generation()
        if name is None:
            name = "gen-initial"
            gen = Generation.create(self.data.generation(name), self.embedder.name,
                                    self.embedder.dim)
            self.data.set_current_generation(name)
            return gen
        gen = Generation.open(self.data.generation(name))
        gen.check_embedder(self.embedder.name)
        return gen

    def _prepare_file(self, path: Path, state: State, report: IndexReport,
                      claimed: dict[str, tuple[str, str]]) -> list[_Prepared]:
        source = str(path.resolve())
        try:
            data = path.read_bytes()
        except OSError as exc:
            report.rejected.append(Rejection(str(path), f"cannot read: {exc.strerror}"))
            return []
        digest = file_hash(data, self.import_options)
        if state.source_hash(source) == digest:
            report.unchanged += 1
            return []
        try:
            raws = load_file(path, data, self.max_file_bytes, self.import_options)
            out = []
            unchanged_id = None
            for raw in raws:
                if isinstance(raw, RawSnapshot):
                    redacted, counts = redact_value(raw.record)
                    SnapshotStore(self.data).save(parse_snapshot(redacted))
                    report.redacted.update(counts)
                    report.snapshots += 1
                    state.record_sources([(source, digest, None)])
                    continue
                session, archive_bytes, counts = normalize(raw.record, raw.fallback_id)
                content_hash = _sha(archive_bytes)
                earlier = claimed.get(session.session_id)
                if earlier and earlier[1] != content_hash:
                    raise InvalidSession(
                        f"session id {session.session_id!r} was already read from {earlier[0]} "
                        "in this run with different content")
                if earlier:  # the same session again (a copy): already queued
                    report.unchanged += 1
                    continue
                claimed[session.session_id] = (str(path), content_hash)
                report.redacted.update(counts)
                row = state.session(session.session_id)
                if row and row.status == "indexed" and row.content_hash == content_hash:
                    report.unchanged += 1
                    unchanged_id = session.session_id
                    continue
                out.append(_Prepared(session, archive_bytes, content_hash, None, None))
            # A file counts as read only once its last session is written: a run stopped half-way
            # through a file of many sessions (a ChatGPT export) must read it again.
            if out:
                out[-1] = replace(out[-1], source=source, source_hash=digest)
            elif unchanged_id:
                state.record_sources([(source, digest, unchanged_id)])
            return out
        except RecallError as exc:
            self._reject(path, data, exc.detail, report)
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            self._reject(path, data, f"unreadable session: {exc}", report)
        return []

    def _reject(self, path: Path, data: bytes, reason: str, report: IndexReport) -> None:
        log.warning("rejected %s: %s", path, reason)
        report.rejected.append(Rejection(str(path), reason))
        try:
            quarantine(self.data.quarantine, path, data, reason)
        except OSError as exc:  # quarantine is a courtesy; never fail the batch for it
            log.warning("could not quarantine %s: %s", path, exc)

    def _prepare_archived(self, path: Path, report: IndexReport) -> _Prepared | None:
        data = path.read_bytes()
        try:
            session, _, _ = normalize(msgspec.json.decode(data), path.stem)
        except (RecallError, msgspec.DecodeError) as exc:
            report.rejected.append(Rejection(str(path), f"archived file unreadable: {exc}"))
            return None
        return _Prepared(session, data, _sha(data), None, None)

    def _flush(self, batch: list[_Prepared], state: State, gen: Generation,
               report: IndexReport) -> None:
        if not batch:
            return
        old_paths = {}
        for p in batch:
            row = state.session(p.session.session_id)
            if row:
                old_paths[p.session.session_id] = self.data.archive / row.archive_path
        state.mark(self._row(p, "pending") for p in batch)
        targets = [self.data.archive_path(p.session.session_id, p.session.date) for p in batch]
        atomic_write_many([(t, p.archive_bytes) for t, p in zip(targets, batch, strict=True)])
        for target, p in zip(targets, batch, strict=True):  # a session whose date moved
            old = old_paths.get(p.session.session_id)
            if old and Path(old) != target:
                Path(old).unlink(missing_ok=True)
        self._write_indexes(batch, gen, replacing=list(old_paths))
        state.set_status([p.session.session_id for p in batch], "indexed")
        state.record_sources((p.source, p.source_hash, p.session.session_id)
                             for p in batch if p.source and p.source_hash)
        report.indexed += len(batch)
        report.messages += sum(len(p.session.messages) for p in batch)

    def _write_indexes(self, batch: Sequence[_Prepared], gen: Generation,
                       replacing: Sequence[str] = ()) -> None:
        """Index a batch of sessions; `replacing` names those that may already have documents
        (every session with a state row, even one a crash left pending): only theirs are deleted
        first, since a LanceDB delete scans the tables however few rows it hits."""
        if not batch:
            return
        ids = [p.session.session_id for p in batch]
        docs = [d for p in batch for d in session_documents(p.session)]
        embedder = PassageCache(self.embedder)
        # memories are re-extracted whenever a session is (re)written, and indexed beside it
        extracted = extract_memories_batch([p.session for p in batch], embedder=embedder)
        extracted = without_pruned(self.data, list(zip(ids, extracted, strict=True)))
        MemoryStore(self.data).save_many(
            (p.session.session_id, m) for p, m in zip(batch, extracted, strict=True))
        for p, m in zip(batch, extracted, strict=True):
            docs += memory_documents(p.session, m)
        passages = [passage for doc in docs for passage in split_passages(doc)]
        vectors = embedder.embed_passages([p.embed_text for p in passages])
        if replacing:
            gen.keyword.delete_sessions(replacing)
        gen.keyword.add(docs)
        gen.keyword.commit()
        if replacing:
            gen.vectors.delete_sessions(replacing)
        gen.vectors.add(passages, vectors)
        gen.mark_changed()
        self._rows_since_compact += len(passages)
        if self._rows_since_compact >= COMPACT_EVERY_ROWS:
            gen.vectors.compact()
            gen.mark_changed()
            self._rows_since_compact = 0

    def _row(self, p: _Prepared, status: str) -> SessionRow:
        s = p.session
        return SessionRow(s.session_id, p.content_hash,
                          self._relative(self.data.archive_path(s.session_id, s.date)), s.date, s.channel,
                          len(s.messages), status, session_meta(s))

    def _relative(self, path: Path) -> str:
        # relative, so a data dir can be moved or copied whole
        return str(path.relative_to(self.data.archive))

    def _reconcile(self, state: State, gen: Generation) -> int:
        deleting = [r.session_id for r in state.sessions("deleting")]
        self._finish_deletes(deleting, state, gen)
        pending = list(state.sessions("pending"))
        known = {r.session_id for r in state.sessions()}
        orphans = [p for p in self.data.archive.rglob("*.json") if p.stem not in known]
        redo: list[_Prepared] = []
        gone: list[str] = []
        report = IndexReport()
        for row in pending:
            path = self.data.archive / row.archive_path
            prepared = self._prepare_archived(path, report) if path.exists() else None
            if prepared is None:
                gone.append(row.session_id)
            else:
                redo.append(prepared)
        redo += [p for p in (self._prepare_archived(path, report) for path in orphans) if p]
        if gone:
            gen.keyword.delete_sessions(gone)
            gen.keyword.commit()
            gen.vectors.delete_sessions(gone)
            gen.vectors.compact()  # as every delete: no deleted rows left to slow searches
            for session_id in gone:
                MemoryStore(self.data).delete(session_id)
            with RelevanceStore(self.data) as relevance:
                relevance.forget_sessions(gone)
            gen.mark_changed()
            state.forget(gone)
        for start in range(0, len(redo), self.batch_sessions):
            self._flush(redo[start : start + self.batch_sessions], state, gen, report)
        repaired = len(deleting) + len(gone) + len(redo)
        if repaired:
            log.warning("repaired %d sessions left unfinished by an interrupted writer", repaired)
        return repaired

    def _finish_deletes(self, session_ids: list[str], state: State, gen: Generation) -> None:
        if not session_ids:
            return
        for session_id in session_ids:
            row = state.session(session_id)
            if row:
                (self.data.archive / row.archive_path).unlink(missing_ok=True)
        gen.keyword.delete_sessions(session_ids)
        gen.keyword.commit()
        gen.vectors.delete_sessions(session_ids)
        gen.vectors.compact()  # searches slow down while the tables hold deleted rows
        gen.mark_changed()
        self._forget_drawn_from(session_ids)
        state.forget(session_ids)

    def _forget_drawn_from(self, session_ids: list[str]) -> None:
        """Forgetting a session forgets what was drawn from it: its snapshots, memories, the
        todos promoted from it (todos added by hand only lose the link) and relevance rows."""
        for session_id in session_ids:
            SnapshotStore(self.data).delete_session(session_id)
            MemoryStore(self.data).delete(session_id)
        TodoStore(self.data).forget_sessions(session_ids)
        with RelevanceStore(self.data) as relevance:
            relevance.forget_sessions(session_ids)

    def _adopt_archive(self, state: State, archive_files: Iterable[Path]) -> None:
        rows = []
        for path in archive_files:
            data = path.read_bytes()
            try:
                session = msgspec.json.decode(data, type=Session)
            except msgspec.DecodeError:
                continue
            rows.append(SessionRow(session.session_id, _sha(data), self._relative(path), session.date,
                                   session.channel, len(session.messages), "indexed",
                                   session_meta(session)))
        state.mark(rows)
        present = {r.session_id for r in rows}
        vanished = [r.session_id for r in state.sessions() if r.session_id not in present]
        with RelevanceStore(self.data) as relevance:
            relevance.forget_sessions(vanished)
        state.forget(vanished)

    def _drop_old_generations(self, keep: set[str | None]) -> None:
        # The previous generation stays until the next reindex: a server that still has it
        # open keeps answering until it notices the switch.
        for path in self.data.index_root.iterdir():
            if path.is_dir() and path.name not in keep:
                shutil.rmtree(path, ignore_errors=True)


class _WriteSession:
    """Opens state and the live generation for a writer and closes both, reconciling first."""

    def __init__(self, ingestor: Ingestor, reconcile: bool) -> None:
        self.ingestor = ingestor
        self.reconcile = reconcile

    def __enter__(self) -> tuple[State, Generation]:
        self.state = State(self.ingestor.data.state_db)
        try:
            self.gen = self.ingestor.open_generation()
        except IndexUnavailable:
            self.state.close()
            raise
        if self.reconcile:
            self.ingestor._reconcile(self.state, self.gen)
        return self.state, self.gen

    def __exit__(self, *exc: object) -> None:
        try:
            self.gen.close()
        finally:
            self.state.close()


def session_meta(session: Session) -> str:
    """What session listings show without opening the archive file."""
    return json.dumps({"participants": list(session.participants), "topics": list(session.topics),
                       "title": session.title, "summary": session.summary,
                       "category": session.category, "status": session.status},
                      ensure_ascii=False)


def _generation_name() -> str:
    return f"gen-{time.strftime('%Y%m%d-%H%M%S')}-{time.time_ns() % 10**6:06d}"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
