"""Writing a config safely: the file a symlink points to (the link stays), a backup beside it
first, then the new bytes through a temporary file and one `os.replace`, with the old file's
permissions and owner; and never over a file that changed since it was read."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from datetime import datetime
from pathlib import Path

from api.setup.values import ConfigError

__all__ = ["read", "real", "write"]


def real(path: Path) -> Path:
    """The file to read and write: a symlink's target (dotfile managers link configs)."""
    return Path(os.path.realpath(path))


def read(path: Path) -> bytes | None:
    """The file's bytes, or None when there is no file."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def write(path: Path, before: bytes | None, after: bytes, now: datetime) -> Path | None:
    """Replace `path` (holding `before`, None for no file) with `after`; the backup made, if
    there was a file. A missing folder is made; a new file is readable by its owner only."""
    if read(path) != before:
        raise ConfigError(f"{path} changed while recall was editing it; run the command again")
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = _backup(path, now) if before is not None else None
    old = path.stat() if before is not None else None
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".recall-tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(after)
            out.flush()
            os.fsync(out.fileno())
        if old is not None:
            os.chmod(temp, stat.S_IMODE(old.st_mode))
            if os.name == "posix" and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(PermissionError):  # only root may give files away
                    os.chown(temp, old.st_uid, old.st_gid)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    _sync(path.parent)
    return backup


def _backup(path: Path, now: datetime) -> Path:
    """`<file>.recall-backup-<UTC time>`: the same bytes, permissions and times."""
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    backup, n = path.with_name(f"{path.name}.recall-backup-{stamp}"), 1
    while backup.exists():  # two runs in one second
        backup, n = path.with_name(f"{path.name}.recall-backup-{stamp}-{n}"), n + 1
    shutil.copy2(path, backup)
    return backup


def _sync(folder: Path) -> None:
    """Make the rename durable (POSIX); where a folder cannot be opened there is nothing to do."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
