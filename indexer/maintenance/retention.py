"""Retention tiers (opt-in): full messages while recent, then summary only, then compressed.

    full        everything, as archived
    summary     messages dropped; title, summary, topics, decisions, feedback, participants and
                the memories extracted before the drop are kept (a summary is built from the
                first user line and the key memories when the session had none)
    compressed  as summary, and the summary is cut to COMPRESSED_SUMMARY_CHARS at a sentence
                end and decision contexts are dropped: metadata, decisions, feedback, memories

A session's age is counted from its last activity (its newest message), so a session still
being written is not trimmed. Tiers only ever get lighter: what was dropped is gone, and the
session's `retention` note says what and when. Trimmed sessions are rewritten through the normal
crash-safe ingest path (Ingestor.rewrite), so archive, both indexes and the state agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime

import msgspec

from indexer.stores.layout import DataDir
from indexer.stores.state import State
from models import Decision, InvalidInput, Memory, Retention, Session
from models.files import decode_session

__all__ = ["COMPRESSED_SUMMARY_CHARS", "TIERS", "PlannedTrim", "RetentionPolicy", "current_tier",
           "extractive_summary", "last_activity", "plan", "plan_session", "trim"]

TIERS = ("full", "summary", "compressed")
COMPRESSED_SUMMARY_CHARS = 300
_FIRST_LINE_CHARS = 200
_KEY_MEMORIES = 5


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    """full_days: sessions inactive longer lose their messages; summary_days: sessions inactive
    longer are compressed. None: that step never happens (both None: retention is off)."""

    full_days: int | None = None
    summary_days: int | None = None

    def __post_init__(self) -> None:
        for name in ("full_days", "summary_days"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise InvalidInput(f"retention {name.replace('_', ' ')} must not be negative")
        if self.full_days is not None and self.summary_days is not None \
                and self.summary_days < self.full_days:
            raise InvalidInput("retention summary days must be at least the full days "
                               f"({self.summary_days} < {self.full_days})")

    @property
    def enabled(self) -> bool:
        return self.full_days is not None or self.summary_days is not None

    def tier_for(self, active: str, today: date) -> str:
        age = (today - date.fromisoformat(active[:10])).days
        if self.summary_days is not None and age > self.summary_days:
            return "compressed"
        if self.full_days is not None and age > self.full_days:
            return "summary"
        return "full"

    def youngest_due(self) -> int:
        """Sessions inactive this many days or fewer are never due (lets `plan` skip them)."""
        return min(d for d in (self.full_days, self.summary_days) if d is not None)


@dataclass
class PlannedTrim:
    session_id: str
    date: str
    last_activity: str
    tier: str  # now
    target: str
    drops: list[str] = field(default_factory=list)  # what the move drops, in words
    messages: int = 0  # messages dropped
    characters: int = 0  # characters dropped (messages, summary tail, decision contexts)
    summary_built: bool = False  # the session had no summary: one is built


def current_tier(session: Session) -> str:
    return session.retention.tier if session.retention else "full"


def last_activity(session: Session) -> str:
    if session.retention:
        return session.retention.last_activity
    days = [m.time[:10] for m in session.messages if m.time[:10] >= session.date]
    return max(days, default=session.date)


def plan_session(session: Session, policy: RetentionPolicy, today: date) -> PlannedTrim | None:
    """What the policy would do to one session, or None when it stays as it is."""
    tier, active = current_tier(session), last_activity(session)
    target = max(tier, policy.tier_for(active, today), key=TIERS.index)
    if target == tier:
        return None
    planned = PlannedTrim(session.session_id, session.date, active, tier, target)
    if session.messages:
        chars = sum(len(m.content) for m in session.messages)
        planned.messages, planned.characters = len(session.messages), chars
        planned.drops.append(f"{len(session.messages)} messages ({chars} characters)")
    if not session.summary:
        planned.summary_built = True
    if target == "compressed":
        summary = session.summary or ""
        if len(summary) > COMPRESSED_SUMMARY_CHARS:
            cut = len(summary) - len(_shorten(summary, COMPRESSED_SUMMARY_CHARS)) + 1
            planned.characters += cut
            planned.drops.append(f"summary cut from {len(summary)} to about "
                                 f"{COMPRESSED_SUMMARY_CHARS} characters")
        contexts = [d.context for d in session.decisions if d.context]
        if contexts:
            planned.characters += sum(len(c) for c in contexts)
            planned.drops.append(f"{len(contexts)} decision contexts")
    if not planned.drops:
        planned.drops.append("nothing (already without messages)")
    return planned


def trim(session: Session, target: str, memories: list[Memory], now: str) -> Session:
    """The session moved to `target`: messages dropped, memories kept, a note of what and when."""
    summary, notes = session.summary, []
    if session.messages:
        chars = sum(len(m.content) for m in session.messages)
        notes.append(f"{now}: {target}: {len(session.messages)} messages ({chars} characters) "
                     "dropped")
    if not summary:
        summary = extractive_summary(session, memories) or None
        notes.append(f"{now}: summary built from the first user line and key memories")
    decisions = session.decisions
    if target == "compressed":
        if summary and len(summary) > COMPRESSED_SUMMARY_CHARS:
            notes.append(f"{now}: compressed: summary cut from {len(summary)} characters")
            summary = _shorten(summary, COMPRESSED_SUMMARY_CHARS)
        if any(d.context for d in decisions):
            notes.append(f"{now}: compressed: decision contexts dropped")
            decisions = tuple(Decision(text=d.text) for d in decisions)
    if not notes:
        notes.append(f"{now}: {target}: nothing left to drop")
    before = session.retention
    retention = Retention(
        tier=target,  # type: ignore[arg-type]
        trimmed_at=now,
        message_count=before.message_count if before else len(session.messages),
        last_activity=last_activity(session),
        dropped=(before.dropped if before else ()) + tuple(notes))
    kept = session.memories if before else tuple(memories)
    return msgspec.structs.replace(session, messages=(), summary=summary, decisions=decisions,
                                   retention=retention, memories=kept)


def extractive_summary(session: Session, memories: list[Memory]) -> str:
    """First line of the first user message, then the most confident memories."""
    first = next((m.content.strip() for m in session.messages
                  if m.role == "user" and m.content.strip()), "")
    line = _shorten(first.splitlines()[0], _FIRST_LINE_CHARS) if first else ""
    key = sorted(memories, key=lambda m: -m.confidence)[:_KEY_MEMORIES]
    parts = [line] + [m.text for m in key if m.text != line]
    return "\n".join(p for p in parts if p)


def plan(data: DataDir, policy: RetentionPolicy, today: date) -> list[PlannedTrim]:
    """The moves the policy calls for over the whole archive, oldest first; writes nothing."""
    if not policy.enabled:
        return []
    state = State(data.state_db)
    try:
        rows = list(state.sessions("indexed"))
    finally:
        state.close()
    out = []
    for row in sorted(rows, key=lambda r: (r.date, r.session_id)):
        # a session's last activity is never before its date: the young ones need no reading
        if (today - date.fromisoformat(row.date)).days <= policy.youngest_due():
            continue
        try:
            session = decode_session((data.archive / row.archive_path).read_bytes())
        except (OSError, msgspec.DecodeError):
            continue  # `recall reindex` reports an unreadable archive file
        planned = plan_session(session, policy, today)
        if planned:
            out.append(planned)
    return out


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(c) for c in ".!?。！？\n")
    return (cut[: end + 1] if end >= limit // 2 else cut.rstrip()) + "…"
