"""The one error tree of recall; every class carries the HTTP status it maps to.

    RecallError (500)
    ├── InvalidInput (400)
    │   ├── InvalidSession      a session record that cannot be accepted
    │   ├── UnsafeSessionId     an id that cannot be used as a file name
    │   └── InvalidQuery        a search request that cannot be run
    ├── NotFound (404)
    ├── PayloadTooLarge (413)
    ├── Conflict (409)          the request clashes with what is stored
    │   ├── WriterBusy          another process holds the writer lock (or the store's lease)
    │   ├── SessionArchived     a change to a session that is archived
    │   ├── WouldReplace        a write that would replace a session's stored messages
    │   └── ReadOnlyReplica     a write sent to a server that follows another's data
    ├── StorageFault (503)      the machine refused a read or a write
    │   ├── DiskFull (507)      no space left on the disk holding the data directory
    │   ├── DataReadOnly        the data directory cannot be written
    │   └── DatabaseLocked      another program holds one of recall's databases
    └── IndexUnavailable (503)
        ├── IndexMismatch       the index was built with another embedder
        ├── IndexDamaged        a keyword or vector index file is damaged or missing
        └── NewerData           the data directory was written by a newer recall
"""

from __future__ import annotations

__all__ = [
    "Conflict",
    "DataReadOnly",
    "DatabaseLocked",
    "DiskFull",
    "IndexDamaged",
    "IndexMismatch",
    "IndexUnavailable",
    "InvalidInput",
    "InvalidQuery",
    "InvalidSession",
    "NewerData",
    "NotFound",
    "PayloadTooLarge",
    "ReadOnlyReplica",
    "RecallError",
    "SessionArchived",
    "StorageFault",
    "UnsafeSessionId",
    "WouldReplace",
    "WriterBusy",
]


class RecallError(Exception):
    status = 500
    title = "Internal error"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class InvalidInput(RecallError):
    status = 400
    title = "Invalid input"


class InvalidSession(InvalidInput):
    title = "Invalid session"


class UnsafeSessionId(InvalidSession):
    title = "Unsafe session id"


class InvalidQuery(InvalidInput):
    title = "Invalid query"


class NotFound(RecallError):
    status = 404
    title = "Not found"


class PayloadTooLarge(RecallError):
    status = 413
    title = "Payload too large"


class Conflict(RecallError):
    status = 409
    title = "Conflict"


class WriterBusy(Conflict):
    title = "Writer busy"


class SessionArchived(Conflict):
    title = "Session archived"


class WouldReplace(Conflict):
    title = "Would replace"


class ReadOnlyReplica(Conflict):
    title = "Read-only replica"


class IndexUnavailable(RecallError):
    status = 503
    title = "Index unavailable"


class IndexMismatch(IndexUnavailable):
    title = "Index built with another embedder"


class IndexDamaged(IndexUnavailable):
    title = "Index damaged"


class NewerData(IndexUnavailable):
    title = "Data from a newer recall"


class StorageFault(RecallError):
    status = 503
    title = "Storage fault"


class DiskFull(StorageFault):
    status = 507
    title = "Disk full"


class DataReadOnly(StorageFault):
    title = "Data directory read-only"


class DatabaseLocked(StorageFault):
    title = "Database locked"
