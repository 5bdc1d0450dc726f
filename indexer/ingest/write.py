"""Writing batches of prepared sessions to the archive and both indexes, crash-safely.

Order for every batch of sessions (see stores/state.py):
  1. state: mark `pending`      2. archive files (atomic)      3. embed passages
  4. Tantivy: delete + add + commit      5. LanceDB: delete + add      6. state: `indexed`
A crash anywhere leaves `pending` rows that the next writer re-indexes from the archive
(repair.py), and deletes by session id make every step safe to repeat: no session ends up in one
store only, none is duplicated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import msgspec

from indexer.embedding.embedders import Embedder
from indexer.ingest.compute import BatchComputer, ComputedBatch, LocalComputer, compute_prepared
from indexer.ingest.prepare import Prepared
from indexer.ingest.report import IndexReport
from indexer.stores.facts import FactStore
from indexer.stores.generation import Generation
from indexer.stores.layout import DataDir, atomic_write_many
from indexer.stores.memories import MemoryStore
from indexer.stores.relevance import without_pruned
from indexer.stores.replaced import ReplacedVersions, keeps_messages
from indexer.stores.state import SessionRow, State
from models import Session
from models.files import decode_session

__all__ = ["COMPACT_EVERY_ROWS", "BatchWriter", "archive_relative", "batched", "session_meta",
           "session_row", "stored_session"]

# Every add and delete makes a LanceDB version and a small fragment; a long ingest compacts them
# every so many rows, so searches meanwhile do not walk thousands of fragments.
COMPACT_EVERY_ROWS = 200_000


class BatchWriter:
    """Writes batches of sessions in the order above; it counts the vector rows it added since
    the table was last compacted, so keep one per writer."""

    def __init__(self, data: DataDir, embedder: Embedder) -> None:
        self.data = data
        self.embedder = embedder
        self._rows_since_compact = 0

    def write_all(self, prepared: Iterable[Prepared], state: State, gen: Generation,
                  report: IndexReport, batch_sessions: int,
                  computer: BatchComputer | None = None, keep_replaced: bool = False) -> None:
        """Write sessions as they come, batch_sessions at a time, computed by `computer`
        (default: here, each batch when its turn comes)."""
        computer = computer or LocalComputer(self.embedder)
        for batch, computed in computer.compute(self.data, batched(prepared, batch_sessions)):
            self.flush(list(batch), state, gen, report, computed, keep_replaced)

    def flush(self, batch: list[Prepared], state: State, gen: Generation,
              report: IndexReport, computed: ComputedBatch | None = None,
              keep_replaced: bool = False, times: bool = False) -> None:
        """Write one batch. With `keep_replaced` (new input, not a rewrite of what is stored),
        the stored version of a session whose messages the new one does not keep is kept first,
        a message's time compared only with `times` (a record a client sent, not a file read
        again: indexer/stores/replaced.py)."""
        if not batch:
            return
        old_paths = {}
        for p in batch:
            row = state.session(p.session.session_id)
            if row:
                old_paths[p.session.session_id] = self.data.archive / row.archive_path
        if keep_replaced and old_paths:
            report.replaced += keep_replaced_versions(self.data, batch, old_paths, times)
        state.mark(session_row(self.data, p, "pending") for p in batch)
        targets = [self.data.archive_path(p.session.session_id, p.session.date) for p in batch]
        atomic_write_many([(t, p.archive_bytes) for t, p in zip(targets, batch, strict=True)])
        for target, p in zip(targets, batch, strict=True):  # a session whose date moved
            old = old_paths.get(p.session.session_id)
            if old and Path(old) != target:
                Path(old).unlink(missing_ok=True)
        self.write_indexes(batch, gen, replacing=list(old_paths), computed=computed)
        state.set_status([p.session.session_id for p in batch], "indexed")
        state.record_sources((p.source, p.source_hash, p.session.session_id)
                             for p in batch if p.source and p.source_hash)
        report.indexed += len(batch)
        report.messages += sum(len(p.session.messages) for p in batch)

    def write_indexes(self, batch: Sequence[Prepared], gen: Generation,
                      replacing: Sequence[str] = (), computed: ComputedBatch | None = None,
                      ) -> None:
        """Index a batch of sessions, computed here unless given (see commit for `replacing`)."""
        if batch:
            self.commit(computed or compute_prepared(self.data, batch, self.embedder), gen,
                        replacing)

    def commit(self, computed: ComputedBatch, gen: Generation,
               replacing: Sequence[str] = ()) -> None:
        """Write a computed batch to the memory and fact stores and both indexes. `replacing`
        names the sessions that may already have documents (every session with a state row,
        even one a crash left pending): only theirs are deleted first, since a LanceDB delete
        scans the tables however few rows it hits."""
        ids = computed.session_ids
        # memories are re-extracted whenever a session is (re)written, and indexed beside it
        memories = without_pruned(self.data, list(zip(ids, computed.memories, strict=True)))
        MemoryStore(self.data).save_many(zip(ids, memories, strict=True))
        with FactStore(self.data) as facts:
            facts.put_sessions(computed.statements)
        if replacing:
            gen.keyword.delete_sessions(replacing)
        gen.keyword.add_fields(computed.keyword)
        gen.keyword.commit()
        if replacing:
            gen.vectors.delete_sessions(replacing)
        gen.vectors.add_rows(computed.vectors)
        gen.mark_changed()
        self._rows_since_compact += computed.passages
        if self._rows_since_compact >= COMPACT_EVERY_ROWS:
            gen.vectors.compact()
            gen.mark_changed()
            self._rows_since_compact = 0


def stored_session(path: Path) -> tuple[Session, bytes] | None:
    """The session an archive file holds and its bytes; None when there is none to read (a
    crash before its first write)."""
    try:
        record = path.read_bytes()
        return decode_session(record), record
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def keep_replaced_versions(data: DataDir, batch: Sequence[Prepared],
                           old_paths: dict[str, Path], times: bool = False) -> list[str]:
    """Keep the stored version of each session in the batch that the new one replaces (its
    messages not all kept, in order, at the start); returns their ids."""
    versions = ReplacedVersions(data)
    kept = []
    for p in batch:
        old = old_paths.get(p.session.session_id)
        stored = stored_session(old) if old else None
        if stored and not keeps_messages(stored[0], p.session, times=times):
            versions.keep(p.session.session_id, stored[1])
            kept.append(p.session.session_id)
    return kept


def batched(prepared: Iterable[Prepared], size: int) -> Iterator[list[Prepared]]:
    """Batches of up to `size` sessions, in order; a session met again ends the batch that
    holds it, so its newer copy is written after (and replaces) the older."""
    batch: list[Prepared] = []
    for p in prepared:
        if any(b.session.session_id == p.session.session_id for b in batch):
            yield batch
            batch = []
        batch.append(p)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def session_row(data: DataDir, p: Prepared, status: str, path: Path | None = None) -> SessionRow:
    """The state row of a session archived at path (default: where its date puts it)."""
    s = p.session
    path = path or data.archive_path(s.session_id, s.date)
    return SessionRow(s.session_id, p.content_hash, archive_relative(data, path), s.date,
                      s.channel, len(s.messages), status, session_meta(s))


def archive_relative(data: DataDir, path: Path) -> str:
    # relative, so a data dir can be moved or copied whole
    return str(path.relative_to(data.archive))


OPENING_CHARS = 120


def opening_request(session: Session) -> str | None:
    """The first line of the session's first user message, cut to OPENING_CHARS: what a session
    without a title is about (listings and search results show it in the title's place)."""
    for message in session.messages:
        if message.role != "user":
            continue
        line = next((ln.strip() for ln in message.content.splitlines() if ln.strip()), "")
        if line:
            line = " ".join(line.split())
            return line if len(line) <= OPENING_CHARS else line[: OPENING_CHARS - 1] + "…"
    return None


def session_meta(session: Session) -> str:
    """What session listings show without opening the archive file."""
    meta: dict[str, object] = {"participants": list(session.participants),
                               "topics": list(session.topics),
                               "title": session.title, "summary": session.summary,
                               "category": session.category, "status": session.status,
                               "opening": opening_request(session)}
    if session.retention is not None:  # what a listing says of a trimmed session
        meta["trimmed"] = {"tier": session.retention.tier,
                           "message_count": session.retention.message_count}
    return json.dumps(meta, ensure_ascii=False)
