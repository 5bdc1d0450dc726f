"""What a failure of the machine means for the person running recall.

A full disk, a data directory that cannot be written, a database another program holds, an
index file that is damaged or missing: each surfaces deep inside SQLite, Tantivy or Lance as an
OSError, a ValueError or a RuntimeError with the library's own wording. `explain_fault` turns
such an exception into a RecallError that names what happened, what is safe and what to run;
every interface (CLI, HTTP, MCP) calls it on what it did not expect, so no traceback reaches a
user for a fault of the machine. `reading` marks an index read whose failure means damage.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from models import (
    DatabaseLocked,
    DataReadOnly,
    DiskFull,
    IndexDamaged,
    RecallError,
    StorageFault,
)

__all__ = ["explain_fault", "reading"]

_DISK_FULL = {errno.ENOSPC, errno.EDQUOT}
_READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}
_DISK_FULL_WORDS = ("No space left on device", "database or disk is full", "Disk quota exceeded",
                    "StorageFull")
_READ_ONLY_WORDS = ("Read-only file system", "readonly database", "ReadOnlyFilesystem",
                    "Permission denied", "PermissionDenied")
# An I/O error that names no cause (SQLite's "disk I/O error" when it cannot even create its
# journal): the data directory's disk is asked whether it is full or read-only.
_VAGUE_IO_WORDS = ("disk I/O error", "unable to open database file", "LanceError(IO)", "IoError")
_LOW_SPACE = 1 << 20  # bytes

_SAFE = ("Nothing stored before is lost: a write that stopped part-way is finished or undone "
         "by the next one, and searches keep using the index as it was.")
# what the library errors that mean a damaged index have in common (ValueError covers
# tantivy's and pyarrow's ArrowInvalid; Lance raises OSError and RuntimeError too)
_READ_ERRORS = (ValueError, OSError, RuntimeError)


def explain_fault(exc: BaseException, home: Path | None = None) -> RecallError | None:
    """The clear error for a fault of the machine, or None when exc is not one (a bug, whose
    traceback is worth seeing). `home` is the data directory, asked about when a library
    reports an I/O error without saying why."""
    if isinstance(exc, RecallError):
        return exc
    chain = list(_chain(exc))
    for failure in chain:
        code = getattr(failure, "errno", None)
        text = str(failure)
        where = getattr(failure, "filename", None) or home
        if code in _DISK_FULL or any(word in text for word in _DISK_FULL_WORDS):
            return disk_full(where)
        if code in _READ_ONLY or any(word in text for word in _READ_ONLY_WORDS):
            return read_only(where, text)
        if "database is locked" in text:
            return DatabaseLocked(
                "a recall database is locked by another program (a `sqlite3` shell, a backup or "
                "sync tool holding it open in a transaction); recall's own writers queue instead. "
                "Nothing was changed: close that program, then run the command again.")
    if home is not None and any(any(word in str(failure) for word in _VAGUE_IO_WORDS)
                                for failure in chain):
        if _free_bytes(home) < _LOW_SPACE:
            return disk_full(home)
        if _read_only(home):
            return read_only(home, "")
        return StorageFault(
            f"reading or writing the data directory failed ({_first_line(chain[-1])}). The disk "
            "may be failing or full: check it (`df -h`, the system log). " + _SAFE +
            " Then run the command again, and `recall check` to see that everything agrees.")
    return None


def disk_full(where: object) -> DiskFull:
    place = f" holding {where}" if where else ""
    return DiskFull(
        f"the disk{place} is full (no space left on device). {_SAFE} Free some space, then run "
        "the command again: it finishes what was left half-done (`recall check` lists it "
        "meanwhile).")


def read_only(where: object, reason: str) -> DataReadOnly:
    why = "permission denied" if "ermission" in reason else "read-only"
    place = f" ({where}: {why})" if where else f" ({why})"
    return DataReadOnly(
        f"recall cannot write to its data directory{place}. Nothing was changed. "
        "recall writes there even to search (locks, the state database): make it writable, or "
        "point RECALL_HOME (or --home) at a writable copy.")


@contextmanager
def reading(store: str, path: Path) -> Iterator[None]:
    """Run an index read; a failure the machine does not explain means the index is damaged."""
    try:
        yield
    except RecallError:
        raise
    except _READ_ERRORS as exc:
        raise (explain_fault(exc) or damaged(store, path, _first_line(exc))) from exc


def damaged(store: str, path: Path, reason: str) -> IndexDamaged:
    return IndexDamaged(
        f"the {store} index is damaged ({reason}; at {path}). The archive is intact: run "
        "`recall reindex` to rebuild the index from it.")


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if len(text) <= 120 else text[:120] + "…"


def _free_bytes(home: Path) -> int:
    try:
        return shutil.disk_usage(_existing(home)).free
    except OSError:
        return _LOW_SPACE  # cannot tell: do not claim the disk is full


def _read_only(home: Path) -> bool:
    return not os.access(_existing(home), os.W_OK)


def _existing(path: Path) -> Path:
    path = Path(path)
    while not path.exists() and path != path.parent:
        path = path.parent
    return path
