"""Plain typed records shared by every part of recall; no I/O here."""

from models.errors import (
    Conflict,
    IndexMismatch,
    IndexUnavailable,
    InvalidInput,
    InvalidQuery,
    InvalidSession,
    NotFound,
    PayloadTooLarge,
    RecallError,
    SessionArchived,
    UnsafeSessionId,
    WriterBusy,
)
from models.facts import FactRef, TrackedFact
from models.hits import (
    SEARCH_SCOPES,
    MessageHit,
    SearchFilters,
    SearchRequest,
    SearchResponse,
    SessionHit,
)
from models.ids import check_session_id
from models.lifecycle import (
    OPEN_STATUSES,
    STATUSES,
    SessionStatus,
    StatusChange,
    check_transition,
    status_of,
)
from models.memory import MEMORY_TYPES, Memory
from models.parse import parse_session, parse_time, text_of
from models.recovery import ChangeReport, RecoveryDecision, RecoveryOptions, recovery_options
from models.resume import ResumeHint
from models.session import Decision, Feedback, Message, Origin, Retention, Session
from models.snapshot import Fact, Intent, Snapshot, Task, parse_snapshot
from models.tokens import estimate_tokens

__all__ = [
    "MEMORY_TYPES",
    "OPEN_STATUSES",
    "SEARCH_SCOPES",
    "STATUSES",
    "ChangeReport",
    "Conflict",
    "Decision",
    "Fact",
    "FactRef",
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
    "Origin",
    "PayloadTooLarge",
    "RecallError",
    "RecoveryDecision",
    "RecoveryOptions",
    "ResumeHint",
    "Retention",
    "SearchFilters",
    "SearchRequest",
    "SearchResponse",
    "Session",
    "SessionArchived",
    "SessionHit",
    "SessionStatus",
    "Snapshot",
    "StatusChange",
    "Task",
    "TrackedFact",
    "UnsafeSessionId",
    "WriterBusy",
    "check_session_id",
    "check_transition",
    "estimate_tokens",
    "parse_session",
    "parse_snapshot",
    "parse_time",
    "recovery_options",
    "status_of",
    "text_of",
]
