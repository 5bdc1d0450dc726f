"""Plain typed records shared by every part of recall; no I/O here."""

from .errors import (
    IndexMismatch,
    IndexUnavailable,
    InvalidInput,
    InvalidQuery,
    InvalidSession,
    NotFound,
    PayloadTooLarge,
    RecallError,
    UnsafeSessionId,
    WriterBusy,
)
from .hits import (
    SEARCH_SCOPES,
    MessageHit,
    SearchFilters,
    SearchRequest,
    SearchResponse,
    SessionHit,
)
from .ids import check_session_id
from .memory import MEMORY_TYPES, Memory
from .parse import parse_session, parse_time, text_of
from .recovery import ChangeReport, RecoveryDecision, RecoveryOptions, recovery_options
from .session import Decision, Feedback, Message, Retention, Session
from .snapshot import Fact, Intent, Snapshot, Task, parse_snapshot
from .tokens import estimate_tokens

__all__ = [
    "MEMORY_TYPES",
    "SEARCH_SCOPES",
    "ChangeReport",
    "Decision",
    "Fact",
    "Feedback",
    "IndexMismatch",
    "IndexUnavailable",
    "Intent",
    "InvalidInput",
    "InvalidQuery",
    "InvalidSession",
    "Memory",
    "Message",
    "MessageHit",
    "NotFound",
    "PayloadTooLarge",
    "RecallError",
    "RecoveryDecision",
    "RecoveryOptions",
    "Retention",
    "SearchFilters",
    "SearchRequest",
    "SearchResponse",
    "Session",
    "SessionHit",
    "Snapshot",
    "Task",
    "UnsafeSessionId",
    "WriterBusy",
    "check_session_id",
    "estimate_tokens",
    "parse_session",
    "parse_snapshot",
    "parse_time",
    "recovery_options",
    "text_of",
]
