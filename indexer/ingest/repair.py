"""Repair: finish what a crashed writer left, make given sessions agree with the archive again."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable

from indexer.ingest.delete import finish_deletes
from indexer.ingest.prepare import Prepared, prepare_archived
from indexer.ingest.report import IndexReport
from indexer.ingest.write import BatchWriter
from indexer.stores.facts import FactStore
from indexer.stores.generation import Generation
from indexer.stores.layout import DataDir
from indexer.stores.memories import MemoryStore
from indexer.stores.relevance import RelevanceStore
from indexer.stores.state import State
from models import InvalidSession

__all__ = ["Repairs"]

log = logging.getLogger(__name__)


class Repairs:
    """Re-indexes sessions from their archive files through the writer, and drops from the
    indexes, the state and the memory store those no archive file holds."""

    def __init__(self, data: DataDir, writer: BatchWriter, batch_sessions: int) -> None:
        self.data = data
        self.writer = writer
        self.batch_sessions = batch_sessions

    def reconcile(self, state: State, gen: Generation) -> int:
        """Finish what a crashed writer left: returns how many sessions were repaired."""
        deleting = [r.session_id for r in state.sessions("deleting")]
        finish_deletes(self.data, state, gen, deleting)
        pending = list(state.sessions("pending"))
        known = {r.session_id for r in state.sessions()}
        orphans = [p for p in self.data.archive.rglob("*.json") if p.stem not in known]
        redo: list[Prepared] = []
        gone: list[str] = []
        report = IndexReport()
        for row in pending:
            path = self.data.archive / row.archive_path
            prepared = prepare_archived(path, report) if path.exists() else None
            if prepared is None:
                gone.append(row.session_id)
            else:
                redo.append(prepared)
        redo += [p for p in (prepare_archived(path, report) for path in orphans) if p]
        if gone:
            gen.keyword.delete_sessions(gone)
            gen.keyword.commit()
            gen.vectors.delete_sessions(gone)
            gen.vectors.compact()  # as every delete: no deleted rows left to slow searches
            for session_id in gone:
                MemoryStore(self.data).delete(session_id)
            with FactStore(self.data) as facts:
                facts.forget_sessions(gone)
            with RelevanceStore(self.data) as relevance:
                relevance.forget_sessions(gone)
            gen.mark_changed()
            state.forget(gone)
        for start in range(0, len(redo), self.batch_sessions):
            self.writer.flush(redo[start : start + self.batch_sessions], state, gen, report)
        repaired = len(deleting) + len(gone) + len(redo)
        if repaired:
            log.warning("repaired %d sessions left unfinished by an interrupted writer", repaired)
        return repaired

    def repair(self, session_ids: Iterable[str], state: State, gen: Generation,
               report: IndexReport) -> None:
        """Make the given sessions agree with the archive: an archived one is re-indexed from
        its archive file; one with no archive record is dropped from both indexes, the state
        and the memory store."""
        archived = {p.stem: p for p in self.data.archive.rglob("*.json")}
        redo: list[Prepared] = []
        gone: list[str] = []
        for session_id in sorted(set(session_ids)):
            path = archived.get(session_id)
            prepared = prepare_archived(path, report) if path else None
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
                with contextlib.suppress(InvalidSession):  # not a valid id: no file carries it
                    memories.delete(session_id)
            with FactStore(self.data) as facts:
                facts.forget_sessions(gone)
            with RelevanceStore(self.data) as relevance:
                relevance.forget_sessions(gone)
            state.forget(gone)
        for start in range(0, len(redo), self.batch_sessions):
            self.writer.flush(redo[start : start + self.batch_sessions], state, gen, report)
