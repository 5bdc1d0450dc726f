"""Deleting sessions: archive file, index documents, state row and all that was drawn from them."""

from __future__ import annotations

from indexer.stores.facts import FactStore
from indexer.stores.generation import Generation
from indexer.stores.layout import DataDir
from indexer.stores.memories import MemoryStore
from indexer.stores.relevance import RelevanceStore
from indexer.stores.snapshots import SnapshotStore
from indexer.stores.state import State
from indexer.stores.todos import TodoStore
from models import NotFound

__all__ = ["delete_session", "delete_unchanged", "drop_interrupted_deletes", "finish_deletes",
           "forget_drawn_from"]


def delete_session(data: DataDir, state: State, gen: Generation, session_id: str) -> None:
    if state.session(session_id) is None:
        raise NotFound(f"no session {session_id!r}")
    state.set_status([session_id], "deleting")
    finish_deletes(data, state, gen, [session_id])


def delete_unchanged(data: DataDir, state: State, gen: Generation,
                     expected: dict[str, str]) -> list[str]:
    """Delete the sessions whose content hash is still the one given; the ids deleted."""
    doomed = [sid for sid, content_hash in expected.items()
              if (row := state.session(sid)) is not None and row.status == "indexed"
              and row.content_hash == content_hash]
    state.set_status(doomed, "deleting")
    finish_deletes(data, state, gen, doomed)
    return doomed


def finish_deletes(data: DataDir, state: State, gen: Generation, session_ids: list[str]) -> None:
    """Delete sessions marked `deleting`: a step a crash interrupts is done again."""
    if not session_ids:
        return
    for session_id in session_ids:
        row = state.session(session_id)
        if row:
            (data.archive / row.archive_path).unlink(missing_ok=True)
    gen.keyword.delete_sessions(session_ids)
    gen.keyword.commit()
    gen.vectors.delete_sessions(session_ids)
    gen.vectors.compact()  # searches slow down while the tables hold deleted rows
    gen.mark_changed()
    forget_drawn_from(data, session_ids)
    state.forget(session_ids)


def drop_interrupted_deletes(data: DataDir, state: State) -> None:
    """Before a rebuild from the archive, finish the deletes a crash interrupted: their archive
    files go, so the new generation never holds them."""
    for row in state.sessions("deleting"):
        (data.archive / row.archive_path).unlink(missing_ok=True)
        forget_drawn_from(data, [row.session_id])
        state.forget([row.session_id])


def forget_drawn_from(data: DataDir, session_ids: list[str]) -> None:
    """Forgetting a session forgets what was drawn from it: its snapshots, memories, the
    todos promoted from it (todos added by hand only lose the link) and relevance rows."""
    for session_id in session_ids:
        SnapshotStore(data).delete_session(session_id)
        MemoryStore(data).delete(session_id)
    TodoStore(data).forget_sessions(session_ids)
    with FactStore(data) as facts:
        facts.forget_sessions(session_ids)
    with RelevanceStore(data) as relevance:
        relevance.forget_sessions(session_ids)
