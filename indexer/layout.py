"""Where everything lives inside one data directory.

    <home>/archive/sessions/YYYY-MM/<id>.json   normalized sessions (the record of truth)
    <home>/index/CURRENT                        name of the live index generation
    <home>/index/<gen>/keyword/                 Tantivy
    <home>/index/<gen>/vectors/                 LanceDB
    <home>/index/<gen>/meta.json                how the generation was built
    <home>/state.sqlite3                        what is indexed, by content hash
    <home>/quarantine/                          rejected inputs (redacted) with the reason
    <home>/writer.lock                          one writer at a time
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from models import check_session_id

__all__ = ["DataDir", "atomic_write"]


@dataclass(frozen=True)
class DataDir:
    root: Path

    @property
    def archive(self) -> Path:
        return self.root / "archive" / "sessions"

    @property
    def index_root(self) -> Path:
        return self.root / "index"

    @property
    def current_pointer(self) -> Path:
        return self.index_root / "CURRENT"

    @property
    def state_db(self) -> Path:
        return self.root / "state.sqlite3"

    @property
    def quarantine(self) -> Path:
        return self.root / "quarantine"

    @property
    def lock_file(self) -> Path:
        return self.root / "writer.lock"

    def generation(self, name: str) -> Path:
        return self.index_root / name

    def archive_path(self, session_id: str, date: str) -> Path:
        # check again here: no id reaches the file system unchecked
        return self.archive / date[:7] / f"{check_session_id(session_id)}.json"

    def current_generation(self) -> str | None:
        try:
            name = self.current_pointer.read_text().strip()
        except FileNotFoundError:
            return None
        return name or None

    def set_current_generation(self, name: str) -> None:
        atomic_write(self.current_pointer, name.encode())

    def ensure(self) -> DataDir:
        for path in (self.archive, self.index_root, self.quarantine):
            path.mkdir(parents=True, exist_ok=True)
        return self


def atomic_write(path: Path, data: bytes) -> None:
    """Write a file so that readers and crashes see the old content or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
