"""Preparing sessions to write: input files, records and archived files, redacted and hashed."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import msgspec

from indexer.embedding.embedders import Embedder, PassageCache
from indexer.formats import ImportOptions, database
from indexer.formats.ledger import EMPTY, FileRead, Ledger
from indexer.formats.sources import (
    RawSession,
    RawSnapshot,
    Rejection,
    file_hash,
    load_database,
    load_file,
    normalize,
    quarantine,
)
from indexer.ingest.copies import archived_last_activity, last_activity
from indexer.ingest.progress import Progress
from indexer.ingest.report import IndexReport
from indexer.memories.extract import extract_memories
from indexer.stores.layout import DataDir
from indexer.stores.memories import MemoryStore
from indexer.stores.snapshots import SnapshotStore
from indexer.stores.state import SessionRow, State
from indexer.text.redact import redact_value
from models import InvalidSession, Memory, RecallError, Session, parse_snapshot
from models.files import decode_session, encode_session

__all__ = ["FilePreparer", "Prepared", "archive_hash", "prepare_archived", "prepare_record",
           "prepare_rewrites"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Claim:
    """A session read in this run: from which file, its content, when it last had a message."""

    path: str
    content_hash: str
    last: float


@dataclass(frozen=True, slots=True)
class Prepared:
    """A session ready to write: its archive file's bytes and their hash."""

    session: Session
    archive_bytes: bytes
    content_hash: str
    source: str | None  # input path (the incremental skip), or archive file (a reindex)
    source_hash: str | None
    # read from an input file (its resolved path) while no writer lock was held: the state
    # row's content hash then (None: no row), to see under the lock whether another writer
    # changed the session since (FilePreparer.still_to_write)
    read_from: str | None = None
    stored_hash: str | None = None


def archive_hash(data: bytes) -> str:
    """The content hash of an archive file (its state row keeps it)."""
    return hashlib.sha256(data).hexdigest()


def prepare_record(raw: dict[str, Any]) -> Prepared:
    """One session record (e.g. from the HTTP API)."""
    session, archive_bytes, _ = normalize(raw, None)
    return Prepared(session, archive_bytes, archive_hash(archive_bytes), None, None)


def prepare_archived(path: Path, report: IndexReport) -> Prepared | None:
    data = path.read_bytes()
    try:
        session, _, _ = normalize(msgspec.json.decode(data), path.stem)
    except (RecallError, msgspec.DecodeError) as exc:
        report.rejected.append(Rejection(str(path), f"archived file unreadable: {exc}"))
        return None
    return Prepared(session, data, archive_hash(data), str(path), None)


def prepare_rewrites(data: DataDir, state: State, embedder: Embedder, session_ids: Sequence[str],
                     transform: Callable[[Session, list[Memory]], Session | None],
                     report: IndexReport) -> Iterator[Prepared]:
    """The indexed sessions that transform(session, its memories) changes, read one at a time
    from the archive (retention); one it leaves as it is (None) counts as unchanged."""
    memories = MemoryStore(data)
    for session_id in session_ids:
        row = state.session(session_id)
        if row is None or row.status != "indexed":
            continue
        session = decode_session((data.archive / row.archive_path).read_bytes())
        kept = memories.load(session_id)
        if kept is None:
            kept = extract_memories(session, embedder=PassageCache(embedder))
        changed = transform(session, kept)
        if changed is None:
            report.unchanged += 1
            continue
        archive_bytes = encode_session(changed)
        yield Prepared(changed, archive_bytes, archive_hash(archive_bytes), None, None)


class FilePreparer:
    """Reads input files into prepared sessions: unchanged ones are skipped, snapshots stored,
    unreadable files rejected and quarantined."""

    def __init__(self, data: DataDir, max_file_bytes: int, import_options: ImportOptions) -> None:
        self.data = data
        self.max_file_bytes = max_file_bytes
        self.import_options = import_options

    def prepare_files(self, files: Iterable[Path], state: State, report: IndexReport,
                      bar: Progress) -> Iterator[Prepared]:
        """The sessions to write from these files, in order; the bar moves on after each file."""
        claimed: dict[str, _Claim] = {}  # session id -> where it was read this run
        for path in files:
            yield from self.prepare_file(path, state, report, claimed)
            bar.update(1)

    def prepare_file(self, path: Path, state: State, report: IndexReport,
                     claimed: dict[str, _Claim]) -> list[Prepared]:
        source = str(path.resolve())
        try:
            data = database.read_unless_database(path)
        except OSError as exc:
            self._reject(path, None, f"cannot read: {exc.strerror}", report)
            return []
        digest = file_hash(database.fingerprint(path) if data is None else data,
                           self.import_options)
        if state.source_hash(source) == digest:
            report.unchanged += 1
            return []
        ledger = Ledger()
        try:
            raws = (load_database(path, self.import_options, ledger) if data is None
                    else load_file(path, data, self.max_file_bytes, self.import_options, ledger))
        except RecallError as exc:
            self._reject(path, data, exc.detail, report, ledger)
            return []
        except Exception as exc:  # a reader's bug costs its file, never the batch
            log.info("reading %s failed", path, exc_info=True)
            self._reject(path, data, f"the reader failed ({type(exc).__name__}: "
                                     f"{str(exc)[:200]}); -v logs where", report, ledger)
            return []
        read = FileRead(str(path), "read" if raws else "empty", ledger=ledger.totals(),
                        reason=None if raws else ledger.empty_reason)
        out = []
        unchanged_id = None
        refused: list[tuple[RawSession | RawSnapshot, str]] = []
        for raw in raws:
            try:
                prepared = self._prepare_raw(path, raw, state, report, claimed, source, digest)
            except RecallError as exc:  # one session of the file: the others go on
                refused.append((raw, exc.detail))
                continue
            except (ValueError, TypeError, OverflowError, RecursionError) as exc:
                refused.append((raw, f"unreadable session: {exc}"))
                continue
            if prepared is None:
                continue
            if isinstance(prepared, str):  # unchanged: already archived as it is
                unchanged_id = prepared
                read.sessions += 1
                continue
            read.sessions += 1
            read.messages += len(prepared.session.messages)
            out.append(prepared)
        if refused and len(refused) == len(raws):  # every session refused: the file is
            self._reject(path, data, refused[0][1], report, ledger)
            return []
        for raw, reason in refused:
            self._reject_session(path, raw, reason, report)
        report.files_read.append(read)
        # A file counts as read only once its last session is written: a run stopped half-way
        # through a file of many sessions (a ChatGPT export) must read it again.
        if out:
            out[-1] = replace(out[-1], source=source, source_hash=digest)
        elif unchanged_id:
            state.record_sources([(source, digest, unchanged_id)])
        elif not raws:  # nothing to import (metadata, a part file): not read again unchanged
            state.record_sources([(source, digest, None)])
        return out

    def _prepare_raw(self, path: Path, raw: RawSession | RawSnapshot, state: State,
                     report: IndexReport, claimed: dict[str, _Claim], source: str,
                     digest: str) -> Prepared | str | None:
        """One session read from a file: to write (Prepared), unchanged (its id), or nothing
        (a snapshot stored, a copy or an older copy left out)."""
        if isinstance(raw, RawSnapshot):
            redacted, counts = redact_value(raw.record)
            SnapshotStore(self.data).save(parse_snapshot(redacted))
            report.redacted.update(counts)
            report.snapshots += 1
            state.record_sources([(source, digest, None)])
            return None
        session, archive_bytes, counts = normalize(raw.record, raw.fallback_id)
        content_hash = archive_hash(archive_bytes)
        last = last_activity(session)
        earlier = claimed.get(session.session_id)
        if earlier and earlier.content_hash != content_hash and last == earlier.last:
            # two versions and nothing to tell which is newer: that session only (the file's
            # other sessions, a database holds hundreds, are not at fault)
            raise InvalidSession(f"session id {session.session_id!r} was already read from "
                                 f"{earlier.path} in this run with different content")
        if earlier and earlier.content_hash == content_hash:
            report.unchanged += 1  # the same session again (a copy): already queued
            return None
        row = state.session(session.session_id)
        if self._older_copy(path, session.session_id, last, earlier, row, source, state):
            report.older_copies += 1
            return None
        claimed[session.session_id] = _Claim(str(path), content_hash, last)
        report.redacted.update(counts)
        if row and row.status == "indexed" and row.content_hash == content_hash:
            report.unchanged += 1
            return session.session_id
        return Prepared(session, archive_bytes, content_hash, None, None, source,
                        row.content_hash if row else None)

    def still_to_write(self, prepared: Prepared, state: State, report: IndexReport) -> bool:
        """Under the writer lock, before writing a session read without it: whether it is
        still to write. One another writer changed since it was read is judged again against
        what that writer stored (unchanged now, or an older copy of it: left out), so a stale
        copy never replaces a newer write that a serial run would have kept."""
        session = prepared.session
        row = state.session(session.session_id)
        if prepared.read_from is None or (row.content_hash if row else None) == prepared.stored_hash:
            return True
        if row and row.status == "indexed" and row.content_hash == prepared.content_hash:
            report.unchanged += 1
            if prepared.source and prepared.source_hash:  # its file is read, as when unchanged
                state.record_sources([(prepared.source, prepared.source_hash, session.session_id)])
            return False
        if self._older_copy(Path(prepared.read_from), session.session_id,
                            last_activity(session), None, row, prepared.read_from, state):
            report.older_copies += 1
            return False
        return True

    def _older_copy(self, path: Path, session_id: str, last: float, earlier: _Claim | None,
                    row: SessionRow | None, source: str, state: State) -> bool:
        """Whether this is an older copy of a session than the one read before: earlier in this
        run, or archived by an earlier run from another file (a file read before and changed
        since, a transcript trimmed on purpose, replaces its session as always)."""
        if earlier is not None:
            newest, where = earlier.last, earlier.path
        elif row is not None and row.status == "indexed" and state.source_hash(source) is None:
            archived = archived_last_activity(self.data.archive / row.archive_path)
            if archived is None:
                return False
            newest, where = archived, "the archive"
        else:
            return False
        if last >= newest:
            return False
        log.info("%s holds an older copy of session %s than %s: left out", path, session_id,
                 where)
        return True

    def _reject(self, path: Path, data: bytes | None, reason: str, report: IndexReport,
                ledger: Ledger | None = None) -> None:
        # every caller reports rejections (the CLI prints them, HTTP and MCP return them): the
        # log line is for -v and for a server's log, not a second copy on the terminal
        log.info("rejected %s: %s", path, reason)
        report.rejected.append(Rejection(str(path), reason))
        report.files_read.append(FileRead(str(path), "rejected", reason=reason,
                                          ledger=ledger.totals() if ledger else EMPTY))
        if data is None:  # a database is not copied: it may be large, and it stays where it is
            return
        try:
            quarantine(self.data.quarantine, path, data, reason)
        except OSError as exc:  # quarantine is a courtesy; never fail the batch for it
            log.warning("could not quarantine %s: %s", path, exc)

    def _reject_session(self, path: Path, raw: RawSession | RawSnapshot, reason: str,
                        report: IndexReport) -> None:
        """One session of a file refused; the file's other sessions are kept."""
        named = raw.record.get("sessionId") if isinstance(raw.record, dict) else None
        which = f"session {str(named)[:80]!r}: " if named else ""
        log.info("rejected a session of %s: %s%s", path, which, reason)
        report.rejected.append(Rejection(str(path), which + reason))
