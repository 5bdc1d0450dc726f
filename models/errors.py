"""The one error tree of recall; every class carries the HTTP status it maps to.

    RecallError (500)
    ├── InvalidInput (400)
    │   ├── InvalidSession      a session record that cannot be accepted
    │   ├── UnsafeSessionId     an id that cannot be used as a file name
    │   └── InvalidQuery        a search request that cannot be run
    ├── NotFound (404)
    ├── PayloadTooLarge (413)
    ├── WriterBusy (409)        another process holds the writer lock
    └── IndexUnavailable (503)
        └── IndexMismatch       the index was built with another embedder
"""

from __future__ import annotations

__all__ = [
    "IndexMismatch",
    "IndexUnavailable",
    "InvalidInput",
    "InvalidQuery",
    "InvalidSession",
    "NotFound",
    "PayloadTooLarge",
    "RecallError",
    "UnsafeSessionId",
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


class WriterBusy(RecallError):
    status = 409
    title = "Writer busy"


class IndexUnavailable(RecallError):
    status = 503
    title = "Index unavailable"


class IndexMismatch(IndexUnavailable):
    title = "Index built with another embedder"
