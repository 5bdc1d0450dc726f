"""Where a follower's vector tables are: on object storage, at the versions one publish
recorded (indexer/remote/follow.py), and how this process reaches them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from indexer.stores.layout import atomic_write

__all__ = ["REMOTE_TABLES", "RemoteTables", "remote_storage", "set_remote_storage"]


@dataclass(frozen=True)
class RemoteTables:
    """Vector tables read in place on object storage at the versions one publish recorded: a
    follower's (indexer/remote/). Kept beside the generation as `remote.json`, without
    credentials: those come from set_remote_storage()."""

    uri: str  # s3://bucket/prefix/index/<gen>/vectors
    versions: dict[str, int]

    @classmethod
    def of(cls, generation: Path) -> RemoteTables | None:
        try:
            found = json.loads((generation / REMOTE_TABLES).read_text())
        except FileNotFoundError:
            return None
        return cls(found["uri"], {k: int(v) for k, v in found["versions"].items()})

    def save(self, generation: Path) -> None:
        atomic_write(generation / REMOTE_TABLES,
                     json.dumps({"uri": self.uri, "versions": self.versions}).encode())


REMOTE_TABLES = "remote.json"
_remote_storage: dict[str, str] = {}


def set_remote_storage(options: dict[str, str]) -> None:
    """How this process reaches object storage (Lance storage options), for RemoteTables."""
    _remote_storage.clear()
    _remote_storage.update(options)


def remote_storage() -> dict[str, str]:
    return _remote_storage
