"""Versions of sessions that a write replaced: kept for a while, so that `recall restore` can
bring one back.

    <home>/replaced/<sessionId>/<milliseconds since the epoch>.json   the archive record as it was

An ingest that replaces a session's stored messages (fewer of them, or changed ones: another
role, text, speaker or, for a record a client sent, time) keeps the record it overwrote here
first; one that only adds messages keeps nothing. Every file is the
archive record as stored (redacted like the archive), owner-only. Copies older than
RECALL_KEEP_REPLACED_DAYS are removed by later writes; deleting a session removes its copies.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from indexer.stores.layout import DataDir, atomic_write
from models import NotFound, Session, check_session_id
from models.files import decode_session

__all__ = ["ReplacedVersion", "ReplacedVersions", "keeps_messages", "kept_messages"]


def keeps_messages(old: Session, new: Session, *, times: bool = True) -> bool:
    """Whether `new` holds every message of `old`, unchanged and in order, at its start: what
    a session that grew looks like (new metadata, a summary or more messages replace nothing).
    See `kept_messages` for what "unchanged" takes."""
    return kept_messages(old, new, times=times) == len(old.messages)


def kept_messages(old: Session, new: Session, *, times: bool = True) -> int:
    """How many of `old`'s messages `new` holds unchanged, in order, at its start.

    A message is unchanged when its role, text and speaker are, and, with `times`, its time:
    who said a thing and when is part of what was said, so a record that changes them rewrites
    the archive like one that changes the text. A file read again is compared without times:
    formats that give a message no time of its own give it the file's modification time, which
    moves whenever the agent writes to the file (a Cursor transcript), and every re-read would
    keep a version."""
    same = 0
    for a, b in zip(old.messages, new.messages, strict=False):
        if (a.role, a.content, a.speaker) != (b.role, b.content, b.speaker) or (
                times and a.time != b.time):
            break
        same += 1
    return same


@dataclass(frozen=True, slots=True)
class ReplacedVersion:
    session_id: str
    version: int  # milliseconds since the epoch when it was replaced
    path: Path

    @property
    def replaced_at(self) -> float:
        return self.version / 1000

    def session(self) -> Session:
        return decode_session(self.path.read_bytes())


class ReplacedVersions:
    def __init__(self, data: DataDir) -> None:
        self.root = data.root / "replaced"

    def keep(self, session_id: str, record: bytes, now: float | None = None) -> ReplacedVersion:
        folder = self.root / check_session_id(session_id)
        version = int((time.time() if now is None else now) * 1000)
        while (folder / f"{version}.json").exists():  # two replacements in one millisecond
            version += 1
        path = folder / f"{version}.json"
        atomic_write(path, record)
        os.chmod(path, 0o600)
        return ReplacedVersion(session_id, version, path)

    def versions(self, session_id: str) -> list[ReplacedVersion]:
        """The kept versions of a session, newest first."""
        folder = self.root / check_session_id(session_id)
        if not folder.is_dir():
            return []
        found = [ReplacedVersion(session_id, int(p.stem), p) for p in folder.glob("*.json")
                 if p.stem.isdigit()]
        return sorted(found, key=lambda v: v.version, reverse=True)

    def version(self, session_id: str, version: int | None = None) -> ReplacedVersion:
        """One kept version (the newest when none is named); NotFound when there is none."""
        versions = self.versions(session_id)
        chosen = next((v for v in versions if version is None or v.version == version), None)
        if chosen is None:
            which = f"version {version}" if version is not None else "replaced version"
            raise NotFound(f"no {which} of session {session_id!r} is kept")
        return chosen

    def session_ids(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if p.is_dir()) if self.root.is_dir() else []

    def drop(self, session_id: str) -> None:
        """Forget every kept version of a session (it was deleted)."""
        shutil.rmtree(self.root / check_session_id(session_id), ignore_errors=True)

    def expire(self, keep_days: float, now: float | None = None) -> int:
        """Remove versions replaced more than `keep_days` ago; returns how many."""
        cutoff = ((time.time() if now is None else now) - keep_days * 86_400) * 1000
        removed = 0
        for session_id in self.session_ids():
            for version in self.versions(session_id):
                if version.version < cutoff:
                    version.path.unlink(missing_ok=True)
                    removed += 1
            with contextlib.suppress(OSError):
                (self.root / session_id).rmdir()  # only when empty
        return removed
