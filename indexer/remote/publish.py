"""Publishing a writer's data directory to an S3 bucket prefix, for search processes elsewhere
(follow.py) to serve.

Layout under the prefix:

    lease.json                          the writer lease (lease.py)
    CURRENT.json                        the pointer: what one publish holds (written last)
    archive/sessions/YYYY-MM/<id>.json  the archive, mirrored file by file
    memories/<id>.json, snapshots/...   the memory and snapshot stores, mirrored
    index/<gen>/keyword*/<segment>.*    Tantivy's segment files (immutable once written)
    index/<gen>/vectors/<table>.lance/  the Lance tables, read in place by followers
    db/<seq>/<name>.sqlite3             the SQLite databases as of publish <seq>
    changes/<seq>.json                  which mirrored files publish <seq> wrote or removed

A publish first takes a consistent snapshot under the writer lock, which costs milliseconds:
hard links to the files it will upload, whose names never change content (Tantivy and Lance
write new files; the archive and stores replace theirs by rename), SQLite backups, Tantivy's
meta.json (kept inside the pointer), and each vector table's version. It then uploads without
the lock, and writes the pointer last: a follower sees all of a publish or none of it.

Objects no publish needs any more are deleted after the next one (a follower may be reading
the previous publish). `purge=True` deletes them as soon as every follower serves the new
publish (replicas.py: they check in; at most the lease's length), and every change list with
them (they name the deleted sessions), so that deleted text is in no object; the pointer says
which publish purged last, and followers drop their own copies of older files when they see it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from indexer.remote.lease import WriterLease
from indexer.remote.objects import MissingBucket, ObjectStore
from indexer.remote.replicas import wait_for_replicas
from indexer.stores.layout import DataDir, atomic_write
from indexer.stores.lock import WriterLock

__all__ = ["DATABASES", "MIRRORED", "POINTER_KEY", "PublishReport", "Publisher"]

log = logging.getLogger(__name__)

POINTER_KEY = "CURRENT.json"
DATABASES = ("state.sqlite3", "relevance.sqlite3", "facts.sqlite3", "tokens.sqlite3")
MIRRORED = ("archive", "memories", "snapshots")  # folders of small files, mirrored by path
KEYWORD_SHARDS = ("keyword", "keyword-memories")
# How many change lists stay in the bucket: a follower further behind lists the folders instead
KEEP_CHANGES = 200


@dataclass
class PublishReport:
    seq: int
    generation: str
    uploaded: int = 0
    removed: int = 0
    seconds: float = 0.0
    skipped: bool = False  # nothing changed since the last publish


@dataclass
class _Snapshot:
    """What one publish holds, staged under the writer lock."""

    seq: int
    generation: str
    generation_meta: dict
    stage: Path
    purged: int = 0  # the last publish that was a purge
    index_files: list[str] = field(default_factory=list)  # relative keys, all immutable
    keyword_meta: dict[str, str] = field(default_factory=dict)  # shard -> Tantivy meta.json
    vector_versions: dict[str, int] = field(default_factory=dict)
    mirrored: dict[str, list[int]] = field(default_factory=dict)  # key -> [size, mtime_ns]
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    # name -> digest of the backup: some writes change only a database (todos, the relevance
    # of memories used)
    databases: dict[str, str] = field(default_factory=dict)


class Publisher:
    def __init__(self, data: DataDir, store: ObjectStore, *, lock_wait: float = 30.0,
                 lease_seconds: float = 60.0) -> None:
        self.data = data
        self.store = store
        self.lock_wait = lock_wait
        self.lease = WriterLease(store, writer_id(data), lease_seconds)
        self.record = data.root / "cache" / "published.json"  # what the last publish held

    def publish(self, purge: bool = False, force: bool = False) -> PublishReport:
        started = time.monotonic()
        self.hold_lease()
        previous = self._last()
        snapshot = self._snapshot(previous)
        try:
            if not force and not purge and _unchanged(snapshot, previous):
                return PublishReport(previous["seq"], snapshot.generation, skipped=True)
            snapshot.purged = snapshot.seq if purge else previous.get("purged", 0)
            uploaded = self._upload(snapshot, previous)
            self.lease.hold()  # renewed: the pointer is written by the lease holder only
            self.store.put(POINTER_KEY, json.dumps(_pointer(snapshot)).encode())
            if purge:  # replicas read the previous publish's vectors in place until they move
                wait_for_replicas(self.store, snapshot.seq, self.lease.seconds, self.lease.hold)
            removed = self._collect(snapshot, previous, purge)
            atomic_write(self.record, json.dumps(_record(snapshot)).encode())
        finally:
            shutil.rmtree(snapshot.stage, ignore_errors=True)
        report = PublishReport(snapshot.seq, snapshot.generation, uploaded, removed,
                               time.monotonic() - started)
        log.info("published #%d (%s): %d objects uploaded, %d removed, %.2fs", report.seq,
                 report.generation, uploaded, removed, report.seconds)
        return report

    def hold_lease(self) -> None:
        """Take or renew the writer lease; the first writer of a bucket that does not exist
        yet creates it, and says so."""
        try:
            self.lease.hold()
        except MissingBucket:
            self.store.create_bucket()
            log.warning("created the bucket %s%s: it did not exist", self.store.bucket,
                        f" at {self.store.config.endpoint}" if self.store.config.endpoint else "")
            self.lease.hold()

    def release(self) -> None:
        self.lease.release()

    # the snapshot, under the writer lock
    def _snapshot(self, previous: dict) -> _Snapshot:
        stage = self.data.root / "cache" / f"publish-{uuid.uuid4().hex}"
        with WriterLock(self.data.lock_file, self.lock_wait, "publish"):
            name = self.data.current_generation()
            if name is None:
                raise FileNotFoundError(f"{self.data.root} has no index to publish yet")
            gen = self.data.generation(name)
            snapshot = _Snapshot(previous.get("seq", 0) + 1, name,
                                 json.loads((gen / "meta.json").read_text()), stage)
            for shard in KEYWORD_SHARDS:
                for path in sorted((gen / shard).iterdir()):
                    if path.name == "meta.json":
                        snapshot.keyword_meta[shard] = path.read_text()
                    elif not path.name.startswith("."):  # lock and bookkeeping files
                        self._stage(path, snapshot)
            for table in sorted((gen / "vectors").glob("*.lance")):
                snapshot.vector_versions[table.stem] = _lance_version(table)
                for path in sorted(p for p in table.rglob("*") if p.is_file()):
                    self._stage(path, snapshot)
            self._stage_mirrored(snapshot, previous.get("mirrored", {}))
            for name in DATABASES:
                if (self.data.root / name).exists():
                    _backup(self.data.root / name, stage / "db" / name)
        snapshot.databases = {path.name: _digest(path) for path in (stage / "db").glob("*")}
        return snapshot

    def _stage(self, path: Path, snapshot: _Snapshot) -> None:
        key = path.relative_to(self.data.root).as_posix()
        snapshot.index_files.append(key)
        _link(path, snapshot.stage / key)

    def _stage_mirrored(self, snapshot: _Snapshot, before: dict[str, list[int]]) -> None:
        for folder in MIRRORED:
            for path in sorted((self.data.root / folder).rglob("*.json")):
                if path.name.startswith("."):
                    continue  # a file being written
                stat = path.stat()
                key = path.relative_to(self.data.root).as_posix()
                snapshot.mirrored[key] = [stat.st_size, stat.st_mtime_ns]
                if before.get(key) != snapshot.mirrored[key]:
                    snapshot.changed.append(key)
                    _link(path, snapshot.stage / key)
        snapshot.removed = sorted(before.keys() - snapshot.mirrored.keys())

    # without the lock
    def _upload(self, snapshot: _Snapshot, previous: dict) -> int:
        done = set(previous.get("index_files", ()))
        fresh = [key for key in snapshot.index_files if key not in done] + snapshot.changed
        for key in fresh:
            self.store.upload(snapshot.stage / key, key)
        for name in snapshot.databases:
            self.store.upload(snapshot.stage / "db" / name, f"db/{snapshot.seq}/{name}")
        if snapshot.removed:  # deleted sessions: their text leaves the bucket now
            self.store.delete(snapshot.removed)
        self.store.put(f"changes/{snapshot.seq}.json", json.dumps(
            {"changed": snapshot.changed, "removed": snapshot.removed}).encode())
        return len(fresh) + len(snapshot.databases)

    def _collect(self, snapshot: _Snapshot, previous: dict, purge: bool) -> int:
        """Delete objects neither this publish nor (unless purging) the previous one needs."""
        keep = set(snapshot.index_files)
        if not purge:
            keep |= set(previous.get("index_files", ()))
        dbs = {f"db/{snapshot.seq}/"} | (set() if purge else {f"db/{snapshot.seq - 1}/"})
        stale = [key for key, _ in self.store.list("index/") if key not in keep]
        stale += [key for key, _ in self.store.list("db/")
                  if not any(key.startswith(d) for d in dbs)]
        # after a purge none: they name deleted sessions (a follower without them lists)
        oldest = snapshot.seq + 1 if purge else snapshot.seq - KEEP_CHANGES + 1
        stale += [key for key, _ in self.store.list("changes/") if _seq_of(key) < oldest]
        self.store.delete(stale)
        return len(stale)

    def _last(self) -> dict:
        try:
            return dict(json.loads(self.record.read_text()))
        except (FileNotFoundError, json.JSONDecodeError):
            return {}


def writer_id(data: DataDir) -> str:
    """This data directory's id as a writer (the lease names it)."""
    path = data.root / "cache" / "writer-id"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        atomic_write(path, uuid.uuid4().hex.encode())
        return path.read_text().strip()


def _pointer(snapshot: _Snapshot) -> dict:
    return {"seq": snapshot.seq, "published": time.time(), "generation": snapshot.generation,
            "generation_meta": snapshot.generation_meta, "keyword_meta": snapshot.keyword_meta,
            "keyword_files": [k for k in snapshot.index_files if "/vectors/" not in k],
            "vector_versions": snapshot.vector_versions,
            "databases": [f"db/{snapshot.seq}/{name}" for name in snapshot.databases],
            "purged": snapshot.purged}


def _record(snapshot: _Snapshot) -> dict:
    return {"seq": snapshot.seq, "generation": snapshot.generation,
            "index_files": snapshot.index_files, "mirrored": snapshot.mirrored,
            "keyword_meta": snapshot.keyword_meta, "vector_versions": snapshot.vector_versions,
            "databases": snapshot.databases, "purged": snapshot.purged}


def _unchanged(snapshot: _Snapshot, previous: dict) -> bool:
    return bool(previous) and not snapshot.changed and not snapshot.removed and (
        snapshot.generation == previous.get("generation")
        and snapshot.keyword_meta == previous.get("keyword_meta")
        and snapshot.vector_versions == previous.get("vector_versions")
        and snapshot.databases == previous.get("databases"))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _lance_version(table: Path) -> int:
    import lance

    return int(lance.dataset(str(table)).version)


def _backup(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    dst.close()
    src.close()


def _link(path: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(path, target)
    except OSError:  # another file system, or links not allowed: a copy
        shutil.copy2(path, target)


def _seq_of(key: str) -> int:
    try:
        return int(Path(key).stem)
    except ValueError:
        return 0
