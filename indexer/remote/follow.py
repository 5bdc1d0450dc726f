"""Following a bucket prefix a writer publishes to (publish.py): a local data directory kept a
read replica, for `recall serve --from s3://...`.

Each time the pointer moves, the follower, before switching:
- downloads the publish's SQLite databases into a folder of their own (cache/replica/<seq>);
- brings the mirrored archive, memory and snapshot files up to date, from the change lists
  since its last publish (or, too far behind, by listing the folders);
- downloads the Tantivy segment files it lacks, and writes Tantivy's meta.json from the pointer;
- records where the vector tables are and at which versions (RemoteTables): vectors are read
  in place on object storage, never copied.

Then it switches: each database name becomes a link to the new copy (SQLite follows the link,
so every copy keeps its own journal; a connection still open reads the copy it opened),
the live generation pointer is written, and the generation's stamp touched, so searches reopen
it. A search sees the publish before or the one after, never a mix of generations.

After a purge (the pointer's `purged` is newer than the publish it served before), it also
drops at once what only the publishes before held: the previous generation's files and
database copies, which still hold the purged text. It checks in under replicas/ (replicas.py)
with the publish it serves, once a search started before the switch is surely over, so that
the writer's purge deletes the objects the previous publish needed only then.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
import uuid
from pathlib import Path

from indexer.remote.objects import ObjectStore
from indexer.remote.publish import MIRRORED, POINTER_KEY
from indexer.remote.replicas import CheckIn
from indexer.stores.layout import DataDir, atomic_write
from indexer.stores.remote_tables import RemoteTables, set_remote_storage
from models import IndexUnavailable, RecallError

__all__ = ["Follower"]

log = logging.getLogger(__name__)

# A search started before a switch may read the previous publish's vectors from the bucket for
# as long as it runs (a replica's p95 is about 150 ms): it is surely over after this long.
SETTLE_SECONDS = 1.0


class Follower:
    def __init__(self, data: DataDir, store: ObjectStore) -> None:
        self.data = data.ensure()
        self.store = store
        self.record = data.root / "cache" / "following.json"
        self.check_in = CheckIn(store, replica_id(data))
        self._switched: tuple[int | None, float] | None = None  # (seq before, when)
        set_remote_storage(store.config.storage_options())

    def sync(self) -> bool:
        """Catch up with the latest publish, then check in; whether anything changed."""
        changed = self._take_in()
        self._check_in()
        return changed

    def stop(self) -> None:
        """A clean stop: withdraw the check-in, so a purge does not wait for this replica."""
        self.check_in.withdraw()

    def _take_in(self) -> bool:
        found = self.store.get(POINTER_KEY)
        if found is None:
            raise IndexUnavailable(f"nothing is published at {self.store.uri('')} yet: run the "
                                   "writer (`recall index`/`recall publish` with RECALL_STORE)")
        pointer = json.loads(found[0])
        last = self._last()
        if pointer["seq"] == last.get("seq"):
            return False
        started = time.monotonic()
        replica = self.data.root / "cache" / "replica" / str(pointer["seq"])
        for key in pointer["databases"]:
            self.store.download(key, replica / Path(key).name)
        changed = self._mirror(last.get("seq"), pointer["seq"])
        name = pointer["generation"]
        gen = self.data.generation(name)
        for key in pointer["keyword_files"]:
            if not (self.data.root / key).exists():  # segment files never change content
                self.store.download(key, self.data.root / key)
        for shard, meta in pointer["keyword_meta"].items():
            atomic_write(gen / shard / "meta.json", meta.encode())
        atomic_write(gen / "meta.json", json.dumps(pointer["generation_meta"]).encode())
        RemoteTables(self.store.uri(f"index/{name}/vectors"),
                     pointer["vector_versions"]).save(gen)
        self._switch_databases(replica)
        self.data.set_current_generation(name)
        atomic_write(gen / "stamp", str(time.time_ns()).encode())  # searches reopen it
        self._switched = (last.get("seq"), time.monotonic())
        self._tidy(pointer, last)
        atomic_write(self.record, json.dumps(
            {"seq": pointer["seq"], "generation": name,
             "keyword_files": pointer["keyword_files"]}).encode())
        log.info("following %s: publish #%d (%s), %d files changed, %.2fs",
                 self.store.uri(""), pointer["seq"], name, changed, time.monotonic() - started)
        return True

    def follow(self, stop: threading.Event, interval: float = 1.0) -> None:
        """sync() every `interval` seconds until stop is set; a failed round is logged and
        tried again (the store may be briefly unreachable, a publish half-collected)."""
        while not stop.wait(interval):
            try:
                self.sync()
            except (RecallError, OSError, ValueError, KeyError) as exc:
                log.warning("following %s: %s (trying again)", self.store.uri(""), exc)

    def _check_in(self) -> None:
        """Report the publish served; just after a switch, still the one before (a search
        started before it may be reading that publish's vectors in the bucket)."""
        seq = self._last().get("seq")
        if self._switched and time.monotonic() - self._switched[1] < SETTLE_SECONDS:
            seq = self._switched[0]
        if seq is not None:
            self.check_in.report(seq)

    def _mirror(self, since: int | None, seq: int) -> int:
        """Bring the mirrored files up to date; how many changed."""
        actions = self._changes(since, seq)
        if actions is None:  # a new follower, or one further behind than the change lists
            return self._mirror_all()
        for key, action in actions.items():
            target = self.data.root / key
            if action == "removed":
                target.unlink(missing_ok=True)
            else:
                self.store.download(key, target)
        return len(actions)

    def _changes(self, since: int | None, seq: int) -> dict[str, str] | None:
        """key -> "changed" or "removed", the last action of the publishes after `since`."""
        if since is None:
            return None
        actions: dict[str, str] = {}
        for number in range(since + 1, seq + 1):
            found = self.store.get(f"changes/{number}.json")
            if found is None:
                return None
            changes = json.loads(found[0])
            actions.update(dict.fromkeys(changes["changed"], "changed"))
            actions.update(dict.fromkeys(changes["removed"], "removed"))
        return actions

    def _mirror_all(self) -> int:
        count = 0
        for folder in MIRRORED:
            listed = {key: size for key, size in self.store.list(f"{folder}/")}
            for key, size in listed.items():
                target = self.data.root / key
                if not target.exists() or target.stat().st_size != size:
                    self.store.download(key, target)
                    count += 1
            local = self.data.root / folder
            for path in local.rglob("*.json") if local.exists() else ():
                if path.relative_to(self.data.root).as_posix() not in listed:
                    path.unlink()
                    count += 1
        return count

    def _switch_databases(self, replica: Path) -> None:
        for copy in replica.iterdir():
            link = self.data.root / copy.name
            tmp = link.with_name(f".{copy.name}.link")
            tmp.unlink(missing_ok=True)
            os.symlink(copy, tmp)
            os.replace(tmp, link)  # atomic: a new connection opens the old copy or the new

    def _tidy(self, pointer: dict, last: dict) -> None:
        """Drop what neither this publish nor the previous one uses (a search may still read
        the previous one's files: open files stay readable once unlinked, so after a purge the
        previous one's go too, and the purged text with them)."""
        keep = set(pointer["keyword_files"])
        generations = {pointer["generation"]}
        seqs = {str(pointer["seq"])}
        if pointer.get("purged", 0) <= last.get("seq", 0):
            keep |= set(last.get("keyword_files", ()))
            generations.add(last.get("generation"))
            seqs.add(str(last.get("seq")))
        for gen in self.data.index_root.iterdir():
            if gen.is_dir() and gen.name not in generations:
                shutil.rmtree(gen, ignore_errors=True)
            elif gen.is_dir():
                for path in gen.glob("keyword*/*"):
                    key = path.relative_to(self.data.root).as_posix()
                    if path.name != "meta.json" and not path.name.startswith(".") \
                            and key not in keep:
                        path.unlink(missing_ok=True)
        replicas = self.data.root / "cache" / "replica"
        for folder in replicas.iterdir():
            if folder.name not in seqs:
                shutil.rmtree(folder, ignore_errors=True)

    def _last(self) -> dict:
        try:
            return dict(json.loads(self.record.read_text()))
        except (FileNotFoundError, json.JSONDecodeError):
            return {}


def replica_id(data: DataDir) -> str:
    """This data directory's id as a replica (its check-in names it)."""
    path = data.root / "cache" / "replica-id"
    if not path.exists():
        atomic_write(path, uuid.uuid4().hex.encode())
    return path.read_text().strip()
