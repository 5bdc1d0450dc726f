"""Extracted memories on disk (`<home>/memories/<sessionId>.json`), written beside the index
documents of the same session in the same ingest batch, so both always describe the same
archived version."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import msgspec

from indexer.stores.layout import DataDir, atomic_write, atomic_write_many
from models import Memory, check_session_id

__all__ = ["MemoryStore"]

_DECODER = msgspec.json.Decoder(list[Memory])


class MemoryStore:
    def __init__(self, data: DataDir) -> None:
        self.root = data.root / "memories"

    def _path(self, session_id: str) -> Path:
        return self.root / f"{check_session_id(session_id)}.json"

    def save(self, session_id: str, memories: Sequence[Memory]) -> None:
        atomic_write(self._path(session_id), _encode(memories))

    def save_many(self, items: Iterable[tuple[str, Sequence[Memory]]]) -> None:
        """save() for a batch of sessions, flushed to disk together (one ingest batch)."""
        atomic_write_many([(self._path(sid), _encode(memories)) for sid, memories in items])

    def load(self, session_id: str) -> list[Memory] | None:
        """The stored memories, or None when the session was never extracted (or the file is
        damaged: the caller re-extracts from the archive)."""
        try:
            return _DECODER.decode(self._path(session_id).read_bytes())
        except (FileNotFoundError, msgspec.DecodeError):
            return None

    def delete(self, session_id: str) -> None:
        self._path(session_id).unlink(missing_ok=True)


def _encode(memories: Sequence[Memory]) -> bytes:
    return msgspec.json.format(msgspec.json.encode(list(memories)), indent=1)
