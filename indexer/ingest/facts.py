"""Keeping the statements that can be superseded complete: a data directory indexed before they
were kept gets them from its stored memories once (embedding only those memories), and the
links are recomputed at the end of every write that changed them (an import's: outside the
writer lock, relink_unlocked)."""

from __future__ import annotations

import fcntl
import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import msgspec

from indexer.embedding.embedders import Embedder
from indexer.stores.facts import FactStore, is_linked, statements_of
from indexer.stores.layout import DataDir
from indexer.stores.lock import lock_held
from indexer.stores.memories import MemoryStore
from indexer.stores.state import State
from models.files import decode_session

__all__ = ["deferring_relink", "fill_statements", "relink_deferred", "relink_unlocked",
           "settle_facts"]

log = logging.getLogger(__name__)


def settle_facts(data: DataDir, state: State, embedder: Embedder, relink: bool = True) -> None:
    """After a write (the caller holds the writer lock): fill in missing statements once, then
    relink if anything changed, unless an import that relinks at its end is running (or the
    caller is that import, which relinks with relink_unlocked: `relink` False)."""
    with FactStore(data) as facts:
        if not facts.complete:
            fill_statements(data, state, embedder, facts)
        if relink and facts.stale and not relink_deferred(data):
            facts.relink()


def relink_unlocked(data: DataDir, lock: Callable[[], AbstractContextManager[object]],
                    tries: int = 3) -> None:
    """An import's last step: the links computed from every statement without the writer lock
    (the relink is quadratic in the statements that give values: over a minute at 100k
    sessions, which a live append must not wait for), and stored under `lock` if no writer
    changed the statements meanwhile; else computed again, the last time under the lock."""
    for _ in range(tries):
        with FactStore(data) as facts:
            if not facts.stale:
                return
            changes, links = facts.compute_links()
        with lock(), FactStore(data) as facts:
            if facts.store_links(changes, links):
                return
    with lock(), FactStore(data) as facts:
        if facts.stale:
            facts.relink()


def _relink_file(data: DataDir) -> Path:
    return data.root / "relink.lock"


@contextmanager
def deferring_relink(data: DataDir) -> Iterator[None]:
    """Held by an import between its batches (Ingestor.index_paths), which relinks once at its
    end: a relink reads every statement (seconds for a few thousand sessions), so a live append
    between two batches must not pay for the batches' statements. A shared flock: imports may
    overlap, and one killed lets go of it, so the next writer relinks as before."""
    with open(_relink_file(data), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def relink_deferred(data: DataDir) -> bool:
    """Whether an import that relinks at its end holds the deferral now (its shared lock keeps
    an exclusive one from being taken)."""
    return lock_held(_relink_file(data), fcntl.LOCK_EX)


def fill_statements(data: DataDir, state: State, embedder: Embedder, facts: FactStore) -> int:
    """Write the statements of every indexed session that has none yet, from its stored
    memories; returns how many sessions got some."""
    have = facts.session_ids()
    memories = MemoryStore(data)
    filled = 0
    for row in state.sessions("indexed"):
        if row.session_id in have:
            continue
        linked = [m for m in memories.load(row.session_id) or [] if is_linked(m)]
        if not linked:
            continue
        try:
            session = decode_session((data.archive / row.archive_path).read_bytes())
        except (OSError, msgspec.DecodeError) as exc:  # `recall check` reports the file
            log.warning("could not read %s to keep its statements: %s", row.archive_path, exc)
            continue
        vectors = embedder.embed_passages([m.text for m in linked])
        facts.put_sessions([(row.session_id, statements_of(session, linked, vectors))])
        filled += 1
    if filled:
        log.warning("kept the statements of %d sessions indexed before they were linked", filled)
    facts.mark_complete()
    return filled
