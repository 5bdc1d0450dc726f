"""The summary a live session gets when it is archived without one: extractive by default,
written by the configured LLM endpoint when RECALL_LIVE_SUMMARY=llm (extractive if it fails)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from indexer.maintenance.retention import extractive_summary
from indexer.memories.refine import LLMEndpoint, RefineFailed, chat_json, transcript
from indexer.text.redact import find_secrets
from models import Memory, Session

__all__ = ["MAX_SUMMARY_CHARS", "Summarizer", "llm_summary"]

log = logging.getLogger(__name__)

MAX_SUMMARY_CHARS = 1_200

_INSTRUCTIONS = """You summarize one conversation between a user and an assistant for an \
archive that is searched later. Write 2 to 5 sentences: what it was about, what was decided, \
what is still open. Use the language of the conversation. Return JSON only: {"summary": "..."}"""


def llm_summary(session: Session, endpoint: LLMEndpoint) -> str:
    """The endpoint's summary of the (already redacted) transcript; raises RefineFailed."""
    answer = chat_json(endpoint, _INSTRUCTIONS,
                       f"Conversation of {session.date}:\n{transcript(session)}")
    summary = answer.get("summary") if isinstance(answer, dict) else None
    if not isinstance(summary, str) or not summary.strip():
        raise RefineFailed("the LLM endpoint's answer has no 'summary'")
    if find_secrets(summary):  # a model may echo what redaction missed; never keep it
        raise RefineFailed("the LLM endpoint's summary holds what looks like a secret")
    return " ".join(summary.split())[:MAX_SUMMARY_CHARS]


class Summarizer:
    """Extractive, or through `endpoint` when one is given, falling back to extractive."""

    def __init__(self, endpoint: LLMEndpoint | None = None) -> None:
        self.endpoint = endpoint

    def __call__(self, session: Session, memories: Sequence[Memory]) -> str:
        if self.endpoint is not None and session.messages:
            try:
                return llm_summary(session, self.endpoint)
            except RefineFailed as exc:
                log.warning("LLM summary of %s failed (%s); using an extractive one",
                            session.session_id, exc.detail)
        return extractive_summary(session, list(memories))
