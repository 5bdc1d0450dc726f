"""Turn a Session into index documents: one per message, one for the session itself
(title, summary, topics, decisions, feedback), and embedding passages for the vector side."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from models import Memory, Message, Session
from models.tokens import CJK_CHAR

__all__ = ["MEMORY_ROLE_PREFIX", "Doc", "Passage", "day_number", "doc_key", "id_number", "memory_documents",
           "message_documents", "session_documents", "split_key", "split_passages"]

# A keyword document indexes at most this much text; the archive keeps everything.
MAX_INDEXED_CHARS = 100_000
# Passages are cut by an estimate of model tokens: CJK characters ~1 token, other text ~1/4.
PASSAGE_TOKENS = 200
MAX_PASSAGES_PER_DOC = 16

# Memory documents carry role "memory:<type>": searches leave them out unless asked for them.
MEMORY_ROLE_PREFIX = "memory:"

_BREAK = re.compile(r"(?<=[.!?。！？；;\n])")


@dataclass(frozen=True, slots=True)
class Doc:
    key: str
    session_id: str
    message_id: str | None  # None: the session document
    role: str
    time: str | None
    day: int  # session date as YYYYMMDD, the unit of date filters
    channel: str
    participants: tuple[str, ...]  # lowercased
    speaker: str | None
    text: str


@dataclass(frozen=True, slots=True)
class Passage:
    doc: Doc
    index: int
    text: str

    @property
    def passage_id(self) -> str:
        return f"{self.doc.key}#{self.index}"

    @property
    def embed_text(self) -> str:
        # who said it is part of what it means: "what did Caroline research?" should find
        # Caroline's message, not one that merely mentions research
        return f"{self.doc.speaker}: {self.text}" if self.doc.speaker else self.text


def doc_key(session_id: str, message_id: str | None) -> str:
    return f"{session_id}\x1f{message_id or ''}"


def id_number(value: str) -> int:
    """A 63-bit number standing for a document key or a session id, for Tantivy's columns
    (tantivy-py reads only numbers from them, and passes ints as signed 64-bit). Two ids share
    one with odds of 2^-63."""
    digest = hashlib.blake2b(value.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def split_key(key: str) -> tuple[str, str | None]:
    """The session and message ids of a document key (session ids hold no control characters)."""
    session_id, _, message_id = key.partition("\x1f")
    return session_id, message_id or None


def day_number(date: str) -> int:
    return int(date[:10].replace("-", ""))


def session_documents(session: Session) -> list[Doc]:
    docs = []
    header = session_text(session)
    if header:
        docs.append(_doc(session, None, "summary", session.archived_at or session.date, None, header))
    return docs + message_documents(session, session.messages)


def message_documents(session: Session, messages: Sequence[Message]) -> list[Doc]:
    """One document per message with text (a live session's appends index only these)."""
    return [_doc(session, m.id, m.role, m.time, m.speaker, m.content)
            for m in messages if m.content.strip()]


def memory_documents(session: Session, memories: list[Memory]) -> list[Doc]:
    """One document per extracted memory, keyed by the memory id, dated like its session."""
    return [_doc(session, m.id, MEMORY_ROLE_PREFIX + m.type, session.date, None, m.text)
            for m in memories]


def _doc(session: Session, doc_id: str | None, role: str, time: str | None, speaker: str | None,
         text: str) -> Doc:
    """A document of the session: the session's channel, participants and day go on each."""
    return Doc(doc_key(session.session_id, doc_id), session.session_id, doc_id, role, time,
               day_number(session.date), (session.channel or "").lower(),
               tuple(p.lower() for p in session.participants), speaker, text)


def session_text(session: Session) -> str:
    parts = [session.title or "", session.summary or "", " · ".join(session.topics)]
    parts += [d.text + (f" ({d.context})" if d.context else "") for d in session.decisions]
    parts += [f.user for f in session.feedback]
    return "\n".join(p for p in parts if p.strip())


def split_passages(doc: Doc) -> list[Passage]:
    """Cut a document into passages of about PASSAGE_TOKENS, at sentence ends where possible."""
    text = doc.text[:MAX_INDEXED_CHARS]
    passages: list[str] = []
    current, budget = "", 0.0
    for sentence in _pieces(text):
        cost = _tokens(sentence)
        if current and budget + cost > PASSAGE_TOKENS:
            passages.append(current)
            current, budget = "", 0.0
            if len(passages) == MAX_PASSAGES_PER_DOC:
                break
        current += sentence
        budget += cost
    if current.strip() and len(passages) < MAX_PASSAGES_PER_DOC:
        passages.append(current)
    return [Passage(doc, i, p.strip()) for i, p in enumerate(passages) if p.strip()]


def _tokens(text: str) -> float:
    cjk = len(CJK_CHAR.findall(text))
    return cjk + (len(text) - cjk) / 4


def _pieces(text: str) -> list[str]:
    out = []
    for sentence in _BREAK.split(text):
        # a sentence longer than a passage (a log line, a wall of CJK) is cut by length
        while _tokens(sentence) > PASSAGE_TOKENS:
            cut = _cut_point(sentence)
            out.append(sentence[:cut])
            sentence = sentence[cut:]
        if sentence:
            out.append(sentence)
    return out


def _cut_point(text: str) -> int:
    budget = 0.0
    for i, ch in enumerate(text):
        budget += 1 if CJK_CHAR.match(ch) else 0.25
        if budget > PASSAGE_TOKENS:
            return max(i, 1)
    return len(text)
