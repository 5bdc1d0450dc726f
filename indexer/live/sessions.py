"""Live sessions: start one, append messages one at a time or in batches, change its status.

A live session is an archive record with a lifecycle (models/lifecycle.py). Every write holds
the writer lock and follows the ingest order (state `pending`, archive file, indexes, state
`indexed`), so a crash leaves a pending row that the next writer re-indexes whole from the
archive. What differs from ingest is how much is indexed:

    start     the whole (empty) session, through the ingest path
    append    only the new messages: their keyword documents and vector passages
    pause, resume, recovered    the archive record and state row only (no index change)
    archive   the whole session again, once: summary, memories, messages (as ingest would)
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

import msgspec

from indexer.embedding.embedders import PassageCache
from indexer.formats.sources import normalize
from indexer.ingest.ingestor import Ingestor
from indexer.ingest.prepare import Prepared, archive_hash
from indexer.ingest.report import IndexReport
from indexer.ingest.write import session_row
from indexer.maintenance.retention import extractive_summary
from indexer.memories.extract import extract_memories
from indexer.stores.documents import message_documents, split_passages
from indexer.stores.generation import Generation
from indexer.stores.layout import atomic_write
from indexer.stores.lock import WriterLock
from indexer.stores.state import State
from indexer.text.redact import redact_value
from models import (
    OPEN_STATUSES,
    Conflict,
    InvalidInput,
    Memory,
    NotFound,
    Session,
    SessionArchived,
    StatusChange,
    check_session_id,
    check_transition,
    parse_session,
    status_of,
    text_of,
)
from models.files import decode_session, encode_session

__all__ = ["MAX_BATCH", "AppendResult", "LiveSessions", "now_local"]

log = logging.getLogger(__name__)

MAX_BATCH = 1000  # messages in one append
# Each append adds a small Lance fragment per table it touches; merge them this often (appends
# in this process) so searches do not walk thousands of fragments. Archiving compacts too.
COMPACT_EVERY_APPENDS = 200
START_FIELDS = ("sessionId", "session_id", "title", "channel", "category", "participants", "topics")

Summarizer = Callable[[Session, list[Memory]], str]


def now_local() -> str:
    """Now, ISO-8601 with this machine's offset (as archive message times usually are)."""
    return datetime.now().astimezone().isoformat(timespec="milliseconds")


@dataclass
class AppendResult:
    session_id: str
    message_ids: list[str]  # one per message given, in order (a repeated one: its stored id)
    appended: int
    duplicates: int  # messages already in the session with the same id and content
    message_count: int
    status: str
    redacted: Counter[str] = field(default_factory=Counter)


class LiveSessions:
    """The live-session writes over one data directory (one per service: it counts appends)."""

    def __init__(self, ingestor: Callable[[], Ingestor], *,
                 summarize: Summarizer | None = None,
                 clock: Callable[[], str] = now_local) -> None:
        self._ingestor = ingestor
        self.summarize = summarize or extractive_summary
        self.clock = clock
        # threads of this process queue here, in order, before the file lock (which polls)
        self._threads = threading.Lock()
        self._appends = 0

    def start(self, raw: dict[str, Any]) -> Session:
        """A new, empty, active session; `raw` may name its id, title, channel, category,
        participants and topics."""
        unknown = sorted(set(raw) - set(START_FIELDS))
        if unknown:
            raise InvalidInput(f"unknown field(s) to start a session: {', '.join(unknown)} "
                               f"(known: {', '.join(START_FIELDS[1:])})")
        given = raw.get("sessionId") or raw.get("session_id")
        session_id = check_session_id(given) if given is not None else str(uuid.uuid4())
        now = self.clock()
        record = {k: v for k, v in raw.items() if k not in ("sessionId", "session_id")}
        record |= {"sessionId": session_id, "date": now[:10], "messages": [], "status": "active",
                   "statusHistory": [{"status": "active", "at": now}]}
        session, data, _ = normalize(record, None)
        with self._write() as (ingestor, state, gen):
            if state.session(session_id) is not None:
                raise Conflict(f"session {session_id!r} already exists")
            ingestor.writer.flush([Prepared(session, data, archive_hash(data), None, None)], state,
                                  gen, IndexReport())
        return session

    def append(self, session_id: str, messages: list[Any]) -> AppendResult:
        """Add messages to an open session: redacted, archived, and indexed (only the new ones)."""
        if not isinstance(messages, list) or not messages:
            raise InvalidInput("give at least one message")
        if len(messages) > MAX_BATCH:
            raise InvalidInput(f"at most {MAX_BATCH} messages in one append, got {len(messages)}")
        for n, message in enumerate(messages, start=1):
            if not isinstance(message, dict):
                raise InvalidInput(f"message {n} must be an object with role and content")
        value, counts = redact_value(messages)
        # a copy of the same shape: a list of the dicts checked above
        redacted = cast(list[dict[str, Any]], value)
        now = self.clock()
        for message in redacted:  # a message without a time of its own was said now
            if not any(message.get(k) not in (None, "") for k in ("time", "timestamp", "ts")):
                message["time"] = now
        with self._write() as (ingestor, state, gen):
            session = _load(ingestor, state, gen, session_id)
            if status_of(session.status) not in OPEN_STATUSES:
                raise SessionArchived(f"session {session_id!r} is archived: it takes no more "
                                      "messages. Start a new live session to go on")
            fresh, slots, duplicates = _new_messages(session, redacted)
            updated = session
            if fresh:
                raw = _raw(session)
                raw["messages"] = [*raw.get("messages", ()), *fresh]
                updated = parse_session(raw)
                added = updated.messages[len(session.messages):]
                self._write_record(ingestor, state, updated, index_messages=added, gen=gen)
                ids = iter(m.id for m in added)
                slots = [slot if slot is not None else next(ids) for slot in slots]
                self._appends += 1
                if self._appends % COMPACT_EVERY_APPENDS == 0:
                    gen.vectors.compact()
                    gen.mark_changed()
        return AppendResult(session_id, [s for s in slots if s is not None], len(fresh),
                            duplicates, len(updated.messages), status_of(updated.status), counts)

    def set_status(self, session_id: str, status: str, *, summary: str | None = None) -> Session:
        """Move a session to `status` (same status: nothing changes). Archiving sets the
        summary (the one given, the session's own, or one made by `summarize`) and indexes
        the session whole, memories included, as ingesting the record would."""
        if summary is not None and status != "archived":
            raise InvalidInput("a summary can only be given when archiving")
        with self._write() as (ingestor, state, gen):
            session = _load(ingestor, state, gen, session_id)
            check_transition(session_id, session.status, status)
            if status_of(session.status) == status:
                return session
            now = self.clock()
            changed = msgspec.structs.replace(
                session, status=status,
                status_history=(*session.status_history, StatusChange(status, now)))  # type: ignore[arg-type]
            if status != "archived":
                self._write_record(ingestor, state, changed)
                return changed
            if summary is None and not session.summary:
                memories = extract_memories(session, embedder=PassageCache(ingestor.embedder))
                summary = self.summarize(session, memories) or None
            raw = _raw(msgspec.structs.replace(changed, summary=summary or session.summary,
                                               archived_at=now))
            final, data, _ = normalize(raw, None)  # redacts a given or generated summary too
            ingestor.writer.flush([Prepared(final, data, archive_hash(data), None, None)], state,
                                  gen, IndexReport())
            gen.vectors.compact()
            gen.mark_changed()
            return final

    def mark_recovered(self, session_id: str) -> Session | None:
        """Set an open live session `recovered` (recovery chose where to resume it); None for a
        session that is archived, whose status does not change."""
        with self._write() as (ingestor, state, gen):
            session = _load(ingestor, state, gen, session_id)
            if status_of(session.status) not in OPEN_STATUSES:
                return None
            if session.status == "recovered":
                return session
            changed = msgspec.structs.replace(
                session, status="recovered",
                status_history=(*session.status_history, StatusChange("recovered", self.clock())))
            self._write_record(ingestor, state, changed)
            return changed

    # internals
    @contextmanager
    def _write(self) -> Iterator[tuple[Ingestor, State, Generation]]:
        ingestor = self._ingestor()
        # No reconcile scan of the whole archive on every append: a write that finds rows a
        # crashed writer left pending finishes them first (_load), the rest wait for the next
        # ingest, as they would anyway.
        with self._threads, WriterLock(ingestor.data.lock_file, ingestor.lock_wait), \
                ingestor.write_session(reconcile=False) as (state, gen):
            yield ingestor, state, gen

    def _write_record(self, ingestor: Ingestor, state: State, session: Session, *,
                      index_messages: tuple[Any, ...] = (), gen: Generation | None = None) -> None:
        """The ingest order for one session whose indexed documents stay, plus `index_messages`
        added: pending, archive file, new documents, indexed."""
        data = encode_session(session)
        prepared = Prepared(session, data, archive_hash(data), None, None)
        state.mark([session_row(ingestor.data, prepared, "pending")])
        atomic_write(ingestor.data.archive_path(session.session_id, session.date), data)
        docs = message_documents(session, index_messages)
        if docs and gen is not None:
            passages = [p for doc in docs for p in split_passages(doc)]
            vectors = PassageCache(ingestor.embedder).embed_passages([p.embed_text for p in passages])
            gen.keyword.add(docs)
            gen.keyword.commit()
            if passages:
                gen.vectors.add(passages, vectors)
            gen.mark_changed()
        state.set_status([session.session_id], "indexed")


def _load(ingestor: Ingestor, state: State, gen: Generation, session_id: str) -> Session:
    try:
        session_id = check_session_id(session_id)
    except InvalidInput:
        raise NotFound(f"no session {session_id!r}") from None
    row = state.session(session_id)
    if row is not None and row.status != "indexed":  # a crashed write: finish it from the archive
        ingestor.repairs.reconcile(state, gen)
        row = state.session(session_id)
    path = ingestor.data.archive / row.archive_path if row else None
    if row is None or row.status == "deleting" or path is None or not path.exists():
        raise NotFound(f"no session {session_id!r}")
    return decode_session(path.read_bytes())


def _new_messages(session: Session, messages: list[dict[str, Any]]
                  ) -> tuple[list[dict[str, Any]], list[str | None], int]:
    """The messages not yet in the session, and one slot per message given: the stored id of a
    repeat (same id, role and content: a retried append), None for a new one. A known id with
    other content is refused, so a retry can never overwrite what was said."""
    stored = {m.id: m for m in session.messages}
    fresh: list[dict[str, Any]] = []
    slots: list[str | None] = []
    for n, message in enumerate(messages, start=1):
        given = message.get("id")
        known = stored.get(str(given)) if isinstance(given, str | int) and given != "" else None
        if known is None:
            fresh.append(message)
            slots.append(None)
            continue
        role = message.get("role")
        role = role.strip().lower() if isinstance(role, str) and role.strip() else "unknown"
        try:
            content = text_of(message.get("content", message.get("text")))
        except InvalidInput as exc:
            raise InvalidInput(f"message {n}: {exc.detail}") from None
        if (role, content) != (known.role, known.content):
            raise Conflict(f"message id {known.id!r} is already in session {session.session_id!r} "
                           "with other content")
        slots.append(known.id)
    return fresh, slots, len(messages) - len(fresh)


def _raw(session: Session) -> dict[str, Any]:
    """The record as the archive file holds it (JSON lists, camelCase keys), for the parser."""
    raw: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(session))
    return raw
