"""Rule-based memory extraction from one session: user facts, feedback, project items, references."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from indexer.embedding.embedders import Embedder, PassageCache
from indexer.memories import patterns as rules
from indexer.memories.patterns import Cue
from indexer.stores.documents import MAX_INDEXED_CHARS
from indexer.text.analysis import STOP_WORDS, analyze
from indexer.text.entities import extract_entities, resolve_dates
from indexer.text.redact import find_secrets
from models import InvalidInput, Message, Session
from models.memory import MEMORY_TYPES, Memory, memory_id, normalize_memory_text

__all__ = ["DEDUPE_THRESHOLD", "check_memory_types", "extract_memories", "extract_memories_batch"]

MAX_TEXT = 200
_MARKER = "[REDACTED:"
# Sentence ends: CJK and Latin terminators, semicolons, line breaks. A Latin period only ends a
# sentence before a space, and not after a lone digit, so "v2.3.1", "2.4s", "example.com" and
# the "1. … 2. …" of an inline list stay whole.
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?:(?<=\D\.)|(?<=[\w.]\d\.))\s+|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.、)])\s+")
_CLAUSE_END = re.compile(r"[，,；;：:、]")
_CODE_LINE = re.compile(
    r"^\s*(?:[\[{(<#$>]|from |import |def |class |async |await |return |\w+\s*\(.*\)\s*$)"
)
_ID_LIKE = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{2,}\b")
_CONFIG = re.compile(r"\b[A-Za-z_][\w.]*\s*=\s*[\w\"'./:-]+")
# How much less an assistant's word is worth than the user's own.
_ASSISTANT_FACTOR = 0.7
_FIELD_CONFIDENCE = 0.95  # the session's own decisions/feedback were curated by someone
_JACCARD_DUPLICATE = 0.7
# e5 scores unrelated text up to ~0.9: only near-identical statements count as duplicates
DEDUPE_THRESHOLD = 0.95


@dataclass(slots=True)
class _Candidate:
    type: str
    kind: str
    text: str
    confidence: float
    sources: tuple[str, ...]
    reference_date: str
    position: int  # message index, -1 for the session's own fields: keeps output in reading order
    priority: str | None = None
    due_date: str | None = None


def extract_memories(
    session: Session,
    types: Iterable[str] | None = None,
    *,
    embedder: Embedder | None = None,
    dedupe_threshold: float = DEDUPE_THRESHOLD,
) -> list[Memory]:
    """Memories of one session, in reading order, near-duplicates removed.

    types filters the output (any of user, feedback, project, reference; all by default).
    With an embedder, a memory whose cosine to a kept one of the same type is at least
    dedupe_threshold is dropped (the more confident one stays); without one, character-bigram
    Jaccard >= 0.7 decides. A session the retention policy trimmed returns the memories it
    kept from before its messages were dropped.
    """
    wanted = check_memory_types(types)
    if session.retention is not None:  # messages dropped: the memories kept when they were
        return [m for m in session.memories if m.type in wanted]
    kept = _dedupe(_candidates(session, wanted), embedder, dedupe_threshold)
    return [_to_memory(session, c) for c in kept]


def extract_memories_batch(sessions: Sequence[Session], *, embedder: Embedder | None = None,
                           dedupe_threshold: float = DEDUPE_THRESHOLD) -> list[list[Memory]]:
    """extract_memories for each session, with one embedding call for all their candidates:
    a model embeds one large batch much faster than one small batch per session."""
    if embedder is None:
        return [extract_memories(s, dedupe_threshold=dedupe_threshold) for s in sessions]
    cache = embedder if isinstance(embedder, PassageCache) else PassageCache(embedder)
    wanted = set(MEMORY_TYPES)
    found = [None if s.retention is not None else _candidates(s, wanted) for s in sessions]
    # the per-session dedupes below then find every vector in the cache
    cache.embed_passages([c.text for candidates in found if candidates for c in candidates])
    return [list(s.memories) if candidates is None
            else [_to_memory(s, c) for c in _dedupe(candidates, cache, dedupe_threshold)]
            for s, candidates in zip(sessions, found, strict=True)]


def _candidates(session: Session, wanted: set[str]) -> list[_Candidate]:
    return [c for c in (*_field_candidates(session), *_message_candidates(session))
            if c.type in wanted]


def check_memory_types(types: Iterable[str] | None) -> set[str]:
    if types is None:
        return set(MEMORY_TYPES)
    wanted = set([types] if isinstance(types, str) else types)
    unknown = sorted(wanted - set(MEMORY_TYPES))
    if unknown:
        raise InvalidInput(
            f"unknown memory type(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(MEMORY_TYPES)}"
        )
    return wanted


# -- the session's own decisions and feedback --------------------------------------------------
def _field_candidates(session: Session) -> list[_Candidate]:
    out = []
    for decision in session.decisions:
        out += _field_candidate(session, "project", "decision", decision.text, roles=None)
    for feedback in session.feedback:
        out += _field_candidate(
            session, "feedback", _feedback_kind(feedback.user), feedback.user, roles={"user"}
        )
    return out


def _field_candidate(
    session: Session, memory_type: str, kind: str, text: str, roles: set[str] | None
) -> list[_Candidate]:
    text = _shorten(" ".join(text.split()))
    if not text or not _safe(text):
        return []
    sources = _best_sources(session.messages, text, roles)
    return [_Candidate(memory_type, kind, text, _FIELD_CONFIDENCE, sources, session.date, -1)]


def _feedback_kind(text: str) -> str:
    cues = rules.classify(text, "user")
    return next((c.kind for c in cues if c.type == "feedback"), "instruction")


def _best_sources(
    messages: Sequence[Message], text: str, roles: set[str] | None
) -> tuple[str, ...]:
    """The message that shares most of text's words (at least a third of them), or none."""
    wanted = _tokens(text)
    if not wanted:
        return ()
    best, best_score = None, 1 / 3
    for message in messages:
        if roles is not None and message.role not in roles:
            continue
        score = len(wanted & _tokens(message.content)) / len(wanted)
        if score > best_score:  # strict: on a tie the earlier message, where it was first said
            best, best_score = message, score
    return (best.id,) if best else ()


def _tokens(text: str) -> set[str]:
    return {t for t in analyze(text).body if t not in STOP_WORDS}


# -- rules over messages ------------------------------------------------------------------------
def _message_candidates(session: Session) -> list[_Candidate]:
    names = tuple(n for n in session.participants if n)
    messages = session.messages
    out: list[_Candidate] = []
    for position, message in enumerate(messages):
        if message.role not in ("user", "assistant") or not message.content.strip():
            continue
        # a message that held a secret is skipped whole: the sentences around a secret tend to
        # describe it ("here is my key"), and a memory must never lead back to one
        if not _safe(message.content):
            continue
        reference_date = _local_day(message.time) or session.date
        accepted = message.role == "assistant" and _accepted(messages, position)
        confirming = False
        # only what the keyword index reads (MAX_INDEXED_CHARS): rules over a 20 MB paste took
        # minutes, and a memory from past that point could not be found by its words anyway
        for sentence, start in _sentences(message.content[:MAX_INDEXED_CHARS]):
            if message.role == "assistant":
                # what follows "记下了：" / "Noted:" (to the end of its sentence, or its bullets)
                # is the user's own decision said back
                rest = rules.confirmation_rest(sentence)
                if rest is not None:
                    confirming, sentence = True, rest
                elif start == "hard":
                    confirming = False
            text = rules.clean_sentence(sentence, names)
            # questions ask rather than tell; "建议分三层：" only announces what follows
            if len(normalize_memory_text(text)) < 4 or rules.is_question(text) or text[-1] in ":：":
                continue
            for cue, factor in _cues(text, message.role, confirming, accepted):
                out.append(
                    _candidate(cue, factor, _shorten(text), message, reference_date, position)
                )
    return out


def _accepted(messages: Sequence[Message], position: int) -> bool:
    """True when the next message is the user saying yes to this one ("好。", "Fixed, thanks")."""
    reply = messages[position + 1] if position + 1 < len(messages) else None
    return reply is not None and reply.role == "user" and rules.accepts(reply.content)


def _cues(text: str, role: str, confirming: bool, accepted: bool) -> list[tuple[Cue, float]]:
    if role == "user":
        cues = rules.classify(text, "user")
        factor = 0.8 if rules.hedged(text) else 1.0
    elif confirming:
        project = [c for c in rules.classify(text, "user") if c.type == "project"]
        cues = project or [Cue("project", "note", 0.7)]
        factor = _ASSISTANT_FACTOR
    else:
        cues, factor = rules.classify(text, "assistant"), _ASSISTANT_FACTOR
        # a proposal the user said yes to; not the assistant promising to follow feedback
        # ("明白，以后不用表格"), which the user's own words already gave. The user rules run
        # last: most assistant sentences are not followed by a yes, and they cost most.
        if accepted and not cues and rules.proposes(text) and not _is_feedback(text):
            cues = [Cue("project", "decision", 0.6), *_reference_cues(text, strong_only=True)]
        return [(c, factor) for c in cues]
    sharp = [c for c in cues if c.kind != "statement"]
    references = _reference_cues(text, strong_only=False, has_other=bool(sharp))
    if references:
        cues = sharp  # "我看到…有 2,380 的" is kept as the number, not also as a bare statement
    return [(c, factor) for c in cues + references]


def _is_feedback(text: str) -> bool:
    return any(c.type == "feedback" for c in rules.classify(text, "user"))


def _reference_cues(text: str, *, strong_only: bool, has_other: bool = False) -> list[Cue]:
    """Links, versions, ids and tools are always worth keeping; bare numbers only when nothing
    else in the sentence was, or every sentence with a price would be a memory twice."""
    entities = extract_entities(text, names=False)  # not asked for below, and the costliest
    if "urls" in entities or "emails" in entities:
        return [Cue("reference", "link", 0.8)]
    if "versions" in entities:
        return [Cue("reference", "version", 0.7)]
    if _ID_LIKE.search(text):
        return [Cue("reference", "id", 0.75)]
    if strong_only:
        return []
    if rules.names_a_tool(text):
        return [Cue("reference", "tool", 0.6)]
    if has_other:
        return []
    if _CONFIG.search(text):
        return [Cue("reference", "config", 0.6)]
    if "numbers" in entities:
        return [Cue("reference", "number", 0.55)]
    if any(ch in text for ch in "「『《"):
        return [Cue("reference", "name", 0.55)]
    return []


def _candidate(
    cue: Cue, factor: float, text: str, message: Message, reference_date: str, position: int
) -> _Candidate:
    confidence = round(min(1.0, cue.weight * factor), 3)
    candidate = _Candidate(
        cue.type, cue.kind, text, confidence, (message.id,), reference_date, position
    )
    if cue.type == "project" and cue.kind in ("task", "constraint", "plan", "note"):
        due = _due_date(text, reference_date)
        if cue.kind == "task" or due:
            candidate.kind = "deadline" if due and rules.has_deadline_word(text) else "task"
            candidate.priority, candidate.due_date = rules.priority_of(text), due
    return candidate


def _due_date(text: str, reference_date: str) -> str | None:
    """The first date in text that is not before the day it was said."""
    return next((d for d in resolve_dates(text, reference_date) if d >= reference_date), None)


def _sentences(content: str) -> list[tuple[str, str]]:
    """Sentences outside code, each with how it starts: "bullet" (a list item), "soft" (after a
    semicolon: the same statement goes on) or "hard"."""
    out: list[tuple[str, str]] = []
    in_fence = False
    for line in content.splitlines():
        if line.strip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence or _CODE_LINE.match(line):
            continue
        start = "bullet" if _BULLET.match(line) else "hard"
        for piece in _SENTENCE_END.split(line):
            if piece and piece.strip():
                out.append((piece.strip(), start))
            start = "soft" if piece and piece.rstrip().endswith(("；", ";")) else "hard"
    return out


def _shorten(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    cut = max((m.end() for m in _CLAUSE_END.finditer(text, 0, MAX_TEXT)), default=0)
    return text[: cut - 1] if cut > MAX_TEXT // 2 else text[: MAX_TEXT - 1] + "…"


def _safe(text: str) -> bool:
    return _MARKER not in text and not find_secrets(text)


def _local_day(time: str) -> str | None:
    return time[:10] if re.match(r"\d{4}-\d{2}-\d{2}", time or "") else None


# -- near-duplicates ------------------------------------------------------------------------------
def _dedupe(
    candidates: list[_Candidate], embedder: Embedder | None, threshold: float
) -> list[_Candidate]:
    """Greedy, most confident first: a candidate too close to a kept one of the same type is
    dropped, its source messages credited to the one kept."""
    order = sorted(
        range(len(candidates)), key=lambda i: (-candidates[i].confidence, candidates[i].position)
    )
    keys = [normalize_memory_text(c.text) for c in candidates]
    if embedder is not None and candidates:
        vectors = embedder.embed_passages([c.text for c in candidates])

        def similar(i: int, k: int) -> bool:
            return keys[i] == keys[k] or float(vectors[i] @ vectors[k]) >= threshold
    else:
        bigrams = [_bigrams(key) for key in keys]

        def similar(i: int, k: int) -> bool:
            a, b = bigrams[i], bigrams[k]
            return keys[i] == keys[k] or len(a & b) / max(1, len(a | b)) >= _JACCARD_DUPLICATE

    kept: list[int] = []
    for i in order:
        twin = next(
            (k for k in kept if candidates[k].type == candidates[i].type and similar(i, k)), None
        )
        if twin is None:
            kept.append(i)
        else:
            keep = candidates[twin]
            keep.sources = tuple(dict.fromkeys((*keep.sources, *candidates[i].sources)))
    return [candidates[i] for i in sorted(kept)]  # back in reading order


def _bigrams(key: str) -> set[str]:
    compact = key.replace(" ", "")
    return {compact[i : i + 2] for i in range(len(compact) - 1)} or {compact}


def _to_memory(session: Session, c: _Candidate) -> Memory:
    return Memory(
        id=memory_id(session.session_id, c.type, c.text),
        session_id=session.session_id,
        type=c.type,  # type: ignore[arg-type]  # one of MEMORY_TYPES by construction
        text=c.text,
        confidence=c.confidence,
        source_message_ids=c.sources,
        session_date=session.date,
        entities=extract_entities(c.text, reference_date=c.reference_date),
        kind=c.kind,
        priority=c.priority,  # type: ignore[arg-type]
        due_date=c.due_date,
    )
