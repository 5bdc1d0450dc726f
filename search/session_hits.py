"""The sessions a search answers with: each one's date, channel and title, and its best messages
with snippets and highlight offsets (search/snippets.py)."""

from __future__ import annotations

from indexer.stores.documents import MEMORY_ROLE_PREFIX
from indexer.stores.keyword import StoredDoc
from indexer.text.analysis import QueryTerms
from models import MessageHit, SessionHit
from search.candidates import Candidate, score_parts
from search.session_order import Found, Ranked
from search.snippets import make_snippet

__all__ = ["session_hits"]


def session_hits(found: Found, ranked: Ranked, messages_per_session: int) -> tuple[SessionHit, ...]:
    """A hit for each ranked session whose documents can be read, in their order, with its
    first `messages_per_session` messages."""
    gen, terms = found.gen, found.terms
    sessions, scores, docs = ranked
    groups = [group[: messages_per_session] for group in sessions]
    # Only the documents shown are read: keyword hits by address, the rest in one fetch by
    # key, with each session's own document for its title.
    docs.update({c.number: c.hit.doc() for shown in groups for c in shown
                 if c.hit is not None and c.number not in docs})
    session_ids = [_session_id(shown, docs) for shown in groups]
    by_key = {doc.key: doc for doc in docs.values()}
    wanted = [c.key for shown in groups for c in shown if c.hit is None and c.key]
    wanted += [f"{sid}\x1f" for sid in session_ids if sid]
    by_key.update(gen.keyword.fetch([key for key in wanted if key not in by_key]))
    results = []
    for session_id, shown, group, score in zip(session_ids, groups, sessions, scores, strict=True):
        header = by_key.get(f"{session_id}\x1f")
        looked_up = [(c, docs.get(c.number) or by_key.get(c.key or "")) for c in shown]
        shown_docs = [(c, doc) for c, doc in looked_up if doc is not None]
        first = shown_docs[0][1] if shown_docs else header
        if first is None or session_id is None:
            continue
        results.append(SessionHit(
            session_id=session_id,
            date=_iso_day(first.day),
            channel=first.channel or None,
            score=round(score, 6),
            messages=tuple(_message_hit(doc, c, terms) for c, doc in shown_docs),
            title=header.text.split("\n", 1)[0][:200] if header else None,
            score_parts=score_parts(group),
        ))
    return tuple(results)


def _message_hit(doc: StoredDoc, c: Candidate, terms: QueryTerms) -> MessageHit:
    snippet, highlights = make_snippet(doc.text, terms)
    role, memory_type = doc.role, None
    if role.startswith(MEMORY_ROLE_PREFIX):
        role, memory_type = "memory", role[len(MEMORY_ROLE_PREFIX):]
    return MessageHit(id=doc.message_id, role=role, time=doc.time, snippet=snippet,
                      score=round(c.fused, 6), highlights=highlights, memory_type=memory_type)


def _session_id(shown: list[Candidate], docs: dict[int, StoredDoc]) -> str | None:
    for c in shown:
        if c.number in docs:
            return docs[c.number].session_id
    return next((c.session_id for c in shown if c.session_id), None)


def _iso_day(day: int) -> str:
    text = f"{day:08d}"
    return f"{text[:4]}-{text[4:6]}-{text[6:]}"
