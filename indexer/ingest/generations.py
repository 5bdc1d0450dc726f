"""Index generations: open the live one, upgrade or rebuild an outdated one, copy, switch, drop."""

from __future__ import annotations

import contextlib
import logging
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from indexer.embedding.embedders import Embedder
from indexer.ingest.compute import BatchComputer, ComputedBatch, LocalComputer
from indexer.ingest.delete import drop_interrupted_deletes, forget_drawn_from
from indexer.ingest.facts import settle_facts
from indexer.ingest.prepare import Prepared, prepare_archived
from indexer.ingest.progress import ProgressFactory
from indexer.ingest.report import IndexReport
from indexer.ingest.write import BatchWriter, batched, session_row
from indexer.maintenance.purge import copy_generation
from indexer.stores.facts import FactStore
from indexer.stores.generation import COPYABLE_SCHEMAS, SCHEMA_VERSION, Generation
from indexer.stores.layout import DataDir
from indexer.stores.relevance import RelevanceStore
from indexer.stores.state import SessionRow, State

__all__ = ["Generations", "open_generation"]

log = logging.getLogger(__name__)


def open_generation(data: DataDir, embedder: Embedder) -> Generation:
    """The live generation, created empty when there is none yet."""
    name = data.current_generation()
    if name is None:
        name = "gen-initial"
        gen = Generation.create(data.generation(name), embedder.name, embedder.dim)
        data.set_current_generation(name)
        return gen
    gen = Generation.open(data.generation(name))
    gen.check_embedder(embedder.name)
    return gen


Lock = Callable[[], AbstractContextManager[object]]


class Generations:
    """Replaces the live generation by a new one: an upgrade or a purge copies it, a reindex
    rebuilds it from the archive. `lock` takes the writer lock, `rebuild_lock` the lock that
    lets one of them run at a time (taken first), for what takes them itself."""

    def __init__(self, data: DataDir, embedder: Embedder, writer: BatchWriter, *,
                 batch_sessions: int, progress: ProgressFactory, lock: Lock,
                 rebuild_lock: Lock) -> None:
        self.data = data
        self.embedder = embedder
        self.writer = writer
        self.batch_sessions = batch_sessions
        self.progress = progress
        self.lock = lock
        self.rebuild_lock = rebuild_lock

    def rebuild_if_outdated(self) -> None:
        # an index an older recall built (another layout) is upgraded rather than refused:
        # upgrading should not need a manual step
        name = self.data.current_generation()
        schema = Generation.schema_of(self.data.generation(name)) if name else None
        if schema is None or schema >= SCHEMA_VERSION:
            return  # a newer recall's index is left alone: opening it says so (NewerData)
        if schema in COPYABLE_SCHEMAS and self.upgrade_by_copy():
            return
        log.warning("the index has schema %s, this recall writes %s: rebuilding it from the "
                    "archive", schema, SCHEMA_VERSION)
        self.reindex()

    def upgrade_by_copy(self) -> bool:
        """Copy an index of a copyable older schema into this one's layout, without embedding
        anything again; False when it was built with another embedder (that needs a reindex)."""
        with self.rebuild_lock(), self.lock():
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
            name, copied = self.switch_to_copy(old)
            old.close()
            self.drop_old(keep={name, old_name})
            log.warning("upgraded the index: %d keyword documents, %d vectors copied",
                        copied["keyword_documents"], copied["vector_rows"])
        return True

    def purge(self, state: State, gen: Generation) -> tuple[str, dict[str, int]]:
        """Switch to a copy of the live generation and rewrite the state and relevance
        databases (the caller holds the lock); the copy's name and what was copied."""
        name, copied = self.switch_to_copy(gen)
        state.vacuum()
        with RelevanceStore(self.data) as relevance:
            relevance.vacuum()
        with FactStore(self.data) as facts:
            facts.vacuum()
        return name, copied

    def switch_to_copy(self, source: Generation) -> tuple[str, dict[str, int]]:
        """Copy source into a new generation of this recall's layout and make it the live one;
        its name and what was copied."""
        name = _generation_name()
        fresh = Generation.create(self.data.generation(name), source.embedder_name, source.dim)
        copied = copy_generation(source, fresh, self.progress)
        fresh.close()
        self.data.set_current_generation(name)
        return name, copied

    def reindex(self, computer: BatchComputer | None = None) -> IndexReport:
        """Rebuild both indexes from the archive into a new generation, then switch to it.

        Other writers (an ingest, live appends) go on meanwhile, into the live generation and
        the archive: the writer lock is held only to start, and at the end to bring into the
        new generation what they changed since (read from the archive again) and to switch;
        the new generation's ANN indexes are trained before that, without it."""
        started = time.monotonic()
        report = IndexReport()
        with self.rebuild_lock():
            with self.lock():
                state = State(self.data.state_db)
                try:
                    drop_interrupted_deletes(self.data, state)
                finally:
                    state.close()
                old = self.data.current_generation()
                name = _generation_name()
                gen = Generation.create(self.data.generation(name), self.embedder.name,
                                        self.embedder.dim)
            try:
                built = self._build(gen, report,
                                    computer or LocalComputer(self.embedder))
                # the ANN indexes are trained before the writer lock is taken (nobody else
                # writes into the new generation); the catch-up's few rows are folded in under it
                gen.vectors.optimize()
                with self.lock():
                    state = State(self.data.state_db)
                    try:
                        self._catch_up(gen, state, built, report)
                        gen.vectors.compact()
                        gen.close()
                        _adopt(self.data, state, built)
                        with FactStore(self.data) as facts:  # every archived session's were written
                            facts.mark_complete()
                        settle_facts(self.data, state, self.embedder)
                        self.data.set_current_generation(name)
                        self.drop_old(keep={name, old})
                    finally:
                        state.close()
            except BaseException:  # the new generation stays unused; the next reindex removes it
                with contextlib.suppress(Exception):
                    gen.close()
                raise
        report.seconds = time.monotonic() - started
        return report

    def _build(self, gen: Generation, report: IndexReport,
               computer: BatchComputer) -> dict[str, SessionRow]:
        """Write every archived session into gen, without the writer lock; the state row of
        each session written (its archive hash and file among them)."""
        archive_files = sorted(self.data.archive.rglob("*.json"))
        bar = self.progress(len(archive_files), "reindexing", "session")
        built: dict[str, SessionRow] = {}  # a session archived twice (a crash mid-move) counts once

        def archived() -> Iterator[Prepared]:
            for path in archive_files:
                try:
                    prepared = prepare_archived(path, report)
                except FileNotFoundError:  # deleted meanwhile: the catch-up drops it
                    prepared = None
                bar.update(1)
                if prepared:
                    yield prepared

        for batch, computed in computer.compute(self.data,
                                                batched(archived(), self.batch_sessions)):
            self._write(gen, batch, built, computed)
            report.indexed += len(batch)
        bar.close()
        return built

    def _catch_up(self, gen: Generation, state: State, built: dict[str, SessionRow],
                  report: IndexReport) -> None:
        """Under the writer lock: write into gen the sessions other writers archived or changed
        while it was built (the state rows hold the hash of what each archived), and drop the
        ones they deleted, with what was drawn from them."""
        drop_interrupted_deletes(self.data, state)  # a writer that crashed meanwhile
        rows = {row.session_id: row for row in state.sessions()}
        changed = [self.data.archive / row.archive_path for sid, row in rows.items()
                   if row.status != "indexed" or sid not in built
                   or built[sid].content_hash != row.content_hash]
        gone = [sid for sid, row in built.items()
                if sid not in rows and not (self.data.archive / row.archive_path).exists()]
        fresh = [p for path in changed if path.exists() and (p := prepare_archived(path, report))]
        report.indexed += sum(p.session.session_id not in built for p in fresh)
        for batch in batched(fresh, self.batch_sessions):
            self._write(gen, batch, built)
        for sid in gone:
            del built[sid]
        if gone:
            gen.keyword.delete_sessions(gone)
            gen.keyword.commit()
            gen.vectors.delete_sessions(gone)
            forget_drawn_from(self.data, gone)  # memories and statements the build wrote back
        if fresh or gone:
            log.info("reindex: %d sessions changed and %d deleted while it ran", len(fresh),
                     len(gone))

    def _write(self, gen: Generation, batch: Sequence[Prepared], built: dict[str, SessionRow],
               computed: ComputedBatch | None = None) -> None:
        """Write a batch into gen, and note the state row of each session in it."""
        ids = [p.session.session_id for p in batch]  # only those built already have documents
        self.writer.write_indexes(batch, gen, replacing=[i for i in ids if i in built],
                                  computed=computed)
        built.update({p.session.session_id: session_row(self.data, p, "indexed",
                                                        Path(str(p.source))) for p in batch})

    def drop_old(self, keep: set[str | None]) -> None:
        # The previous generation stays until the next reindex: a server that still has it
        # open keeps answering until it notices the switch.
        for path in self.data.index_root.iterdir():
            if path.is_dir() and path.name not in keep:
                shutil.rmtree(path, ignore_errors=True)


def _adopt(data: DataDir, state: State, rows: dict[str, SessionRow]) -> None:
    """After a rebuild the state holds exactly the sessions written, all indexed."""
    state.mark(rows.values())
    vanished = [r.session_id for r in state.sessions() if r.session_id not in rows]
    with RelevanceStore(data) as relevance:
        relevance.forget_sessions(vanished)
    with FactStore(data) as facts:
        facts.forget_sessions(vanished)
    state.forget(vanished)


def _generation_name() -> str:
    return f"gen-{time.strftime('%Y%m%d-%H%M%S')}-{time.time_ns() % 10**6:06d}"
