"""Session ids become file names, so only ids that are safe as one are accepted."""

from __future__ import annotations

import re

from models.errors import UnsafeSessionId

__all__ = ["MAX_ID_LENGTH", "MAX_SNAPSHOT_ID_LENGTH", "check_session_id", "check_snapshot_id"]

# Lengths in UTF-8 bytes: file systems allow 255 bytes per file name, and the longest name made
# from an id is a snapshot's temporary file, "." + id + ".json." + pid (7 digits) + ".tmp".
MAX_SNAPSHOT_ID_LENGTH = 237
# A snapshot's id is its session's id plus "-snap-<time, 24 characters>" and maybe "-<n>".
MAX_ID_LENGTH = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Names Windows reserves; a copied archive must still open there.
_RESERVED = {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(1, 10)} | {
    f"lpt{i}" for i in range(1, 10)
}


def check_session_id(value: object, *, limit: int = MAX_ID_LENGTH) -> str:
    """Return value if it is a safe session id, else raise UnsafeSessionId saying why."""
    if not isinstance(value, str):
        raise UnsafeSessionId(f"session id must be a string, got {type(value).__name__}")
    if not value.strip():
        raise UnsafeSessionId("session id is empty")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise UnsafeSessionId(f"session id is {len(value)} characters long, {size} bytes in UTF-8 "
                              f"(limit {limit} bytes)")
    if "/" in value or "\\" in value:
        raise UnsafeSessionId("session id contains a path separator")
    if ".." in value:
        raise UnsafeSessionId("session id contains '..'")
    if _CONTROL.search(value):
        raise UnsafeSessionId("session id contains a control character")
    if value != value.strip():
        raise UnsafeSessionId("session id starts or ends with whitespace")
    if value.startswith("."):
        raise UnsafeSessionId("session id starts with '.'")
    if value.split(".")[0].lower() in _RESERVED:
        raise UnsafeSessionId(f"session id {value!r} is a reserved device name")
    return value


def check_snapshot_id(value: object) -> str:
    """A snapshot id: the same rules as a session id, with room for the suffix it adds."""
    return check_session_id(value, limit=MAX_SNAPSHOT_ID_LENGTH)
