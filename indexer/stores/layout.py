"""Where everything lives inside one data directory.

    <home>/archive/sessions/YYYY-MM/<id>.json   normalized sessions (the record of truth)
    <home>/index/CURRENT                        name of the live index generation
    <home>/index/<gen>/keyword/                 Tantivy
    <home>/index/<gen>/vectors/                 LanceDB
    <home>/index/<gen>/meta.json                how the generation was built
    <home>/state.sqlite3                        what is indexed, by content hash; todos
    <home>/quarantine/                          rejected inputs (redacted) with the reason
    <home>/writer.lock                          one writer at a time
    <home>/tenants/<tenant>/                    another tenant's data directory, laid out alike
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from models import check_session_id
from models.principal import DEFAULT_TENANT, TENANT_PATTERN, check_tenant

__all__ = ["DataDir", "atomic_write", "atomic_write_many"]

# fsync waits for a journal commit; several threads waiting at once share one (measured on ext4:
# 32 files in 1.5-2.5x less time than one after the other, folders included)
_SYNC_THREADS = 8


@dataclass(frozen=True)
class DataDir:
    root: Path

    def for_tenant(self, tenant: str) -> DataDir:
        """The data directory of a tenant: this one for the default tenant, else its own folder
        under tenants/ (everything of a tenant is in it: archive, indexes, state, memories)."""
        if tenant == DEFAULT_TENANT:
            return self
        return DataDir(self.tenants_root / check_tenant(tenant))

    @property
    def tenants_root(self) -> Path:
        return self.root / "tenants"

    def tenants(self) -> list[tuple[str, DataDir]]:
        """The default tenant's data directory (this one) and every other tenant's that exists."""
        found = [(DEFAULT_TENANT, self)]
        if self.tenants_root.is_dir():
            found += [(p.name, DataDir(p)) for p in sorted(self.tenants_root.iterdir())
                      if p.is_dir() and TENANT_PATTERN.fullmatch(p.name)]
        return found

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
    def cache(self) -> Path:
        """Derived data kept to start faster (safe to delete)."""
        return self.root / "cache"

    @property
    def lock_file(self) -> Path:
        return self.root / "writer.lock"

    @property
    def rebuild_lock_file(self) -> Path:
        """Held by a reindex, a purge or an upgrade for their whole run (one at a time), while
        the writer lock is held only for their short steps."""
        return self.root / "rebuild.lock"

    def fingerprint(self) -> tuple[object, ...]:
        """Changes when any write changed this data directory: the databases and the live
        generation are touched by every write, and a file added or replaced changes its folder's
        time (what a publish has to upload; whether a command wrote, for the audit log)."""
        name = self.current_generation()
        marks: list[object] = [name]
        paths = [self.root / f"{db}{suffix}" for db in ("state", "relevance", "facts", "tokens")
                 for suffix in (".sqlite3", ".sqlite3-wal")]
        if name:
            paths.append(self.generation(name) / "stamp")
        for folder in ("archive", "memories", "snapshots"):
            root = self.root / folder
            if root.exists():
                paths += [root, *(p for p in root.iterdir() if p.is_dir())]  # months, sessions
        return (*marks, *(_stat(path) for path in paths))

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
        """Make the folders a writer needs; the data directory is its owner's alone (0700):
        conversations, tokens and the audit log are private to the user running recall."""
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        _owner_only(self.root)
        for path in (self.archive, self.index_root, self.quarantine):
            path.mkdir(parents=True, exist_ok=True)
        return self


def _owner_only(folder: Path) -> None:
    try:
        mode = folder.stat().st_mode & 0o777
        if mode & 0o077:
            os.chmod(folder, mode & 0o700)
    except OSError:  # not ours to change (a read-only copy): `recall check` reports it
        pass


def atomic_write(path: Path, data: bytes) -> None:
    """Write a file so that readers and crashes see the old content or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def atomic_write_many(files: Sequence[tuple[Path, bytes]]) -> None:
    """atomic_write for a batch of files, with the same guarantee for each: all are written,
    then flushed to disk together, and only then renamed into place; their folders are flushed
    last, so the new names too are on disk when this returns."""
    staged = []
    for n, (path, data) in enumerate(files):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{n}.tmp")
        tmp.write_bytes(data)
        staged.append((tmp, path))
    _fsync_all(tmp for tmp, _ in staged)
    for tmp, path in staged:
        os.replace(tmp, path)
    if os.name == "posix":  # elsewhere a folder cannot be opened to be flushed
        _fsync_all({path.parent for _, path in staged})


def _fsync_all(paths: Iterable[Path]) -> None:
    paths = list(paths)
    if len(paths) == 1:
        _fsync(paths[0])
    elif paths:
        with ThreadPoolExecutor(min(_SYNC_THREADS, len(paths))) as pool:
            list(pool.map(_fsync, paths))  # list(): re-raises the first error


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size
