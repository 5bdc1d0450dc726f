"""Optional refinement of extracted memories by an OpenAI-compatible chat endpoint.

Off unless RECALL_LLM_URL is set, and only on request: the stored, searchable memories are the
rule-based ones, so the archive never depends on a remote service. The endpoint sees the
archived (already redacted) transcript and the rule-based memories, and answers with a revised
list; anything it returns is checked like user input (types, lengths, source ids, secrets).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from indexer.text.entities import extract_entities
from indexer.text.redact import find_secrets
from models import MEMORY_TYPES, Memory, RecallError, Session
from models.memory import memory_id

__all__ = ["LLMEndpoint", "RefineFailed", "chat_json", "refine_memories", "transcript"]

MAX_TRANSCRIPT_CHARS = 24_000  # keeps the request inside small local models' context
MAX_MEMORY_CHARS = 300
MAX_MEMORIES = 60

_INSTRUCTIONS = """You curate memories extracted from one conversation between a user and an \
assistant. Types: "user" (facts and preferences about the person), "feedback" (corrections and \
instructions to the assistant), "project" (decisions, constraints, tasks), "reference" (names, \
links, numbers, versions worth keeping). You get the transcript (message ids in brackets) and \
the memories a rule-based extractor found. Return JSON only: {"memories": [{"type": ..., \
"text": ..., "confidence": 0..1, "source_message_ids": [...]}]}. Keep correct memories, fix \
wrong types, merge duplicates, drop what is not worth remembering, add clearly stated ones that \
were missed. Write each memory in the language of the conversation, as one short sentence."""


class RefineFailed(RecallError):
    status = 502


@dataclass(frozen=True, slots=True)
class LLMEndpoint:
    url: str  # base URL; /chat/completions is appended
    model: str
    api_key: str | None = None
    timeout: float = 60.0


def refine_memories(session: Session, memories: Sequence[Memory], endpoint: LLMEndpoint) -> list[Memory]:
    """The endpoint's revision of `memories`; raises RefineFailed with the reason."""
    reply = _chat(endpoint, [{"role": "system", "content": _INSTRUCTIONS},
                             {"role": "user", "content": _prompt(session, memories)}])
    try:
        items = json.loads(_strip_fence(reply))["memories"]
    except (ValueError, KeyError, TypeError):
        raise RefineFailed("the LLM endpoint did not answer with a JSON object of memories") from None
    if not isinstance(items, list):
        raise RefineFailed("the LLM endpoint's 'memories' is not a list")
    known_ids = {m.id for m in session.messages}
    refined: dict[str, Memory] = {}
    for item in items[:MAX_MEMORIES]:
        memory = _checked(session, item, known_ids)
        if memory is not None:
            refined.setdefault(memory.id, memory)
    return list(refined.values())


def chat_json(endpoint: LLMEndpoint, instructions: str, prompt: str) -> object:
    """One chat completion asked for JSON, decoded; raises RefineFailed with the reason."""
    reply = _chat(endpoint, [{"role": "system", "content": instructions},
                             {"role": "user", "content": prompt}])
    try:
        return json.loads(_strip_fence(reply))
    except ValueError:
        raise RefineFailed("the LLM endpoint did not answer with JSON") from None


def transcript(session: Session) -> str:
    """The session's messages as lines `[id] who: text`, cut to fit small models' context."""
    lines, used = [], 0
    for message in session.messages:
        line = f"[{message.id}] {message.speaker or message.role}: {message.content.strip()}"
        if used + len(line) > MAX_TRANSCRIPT_CHARS:
            lines.append("[... the rest of the conversation is left out ...]")
            break
        lines.append(line)
        used += len(line)
    return "\n".join(lines)


def _prompt(session: Session, memories: Sequence[Memory]) -> str:
    found = [{"type": m.type, "text": m.text, "confidence": m.confidence,
              "source_message_ids": list(m.source_message_ids)} for m in memories]
    return (f"Conversation of {session.date}:\n" + transcript(session)
            + "\n\nRule-based memories:\n" + json.dumps({"memories": found}, ensure_ascii=False))


def _chat(endpoint: LLMEndpoint, messages: list[dict[str, str]]) -> str:
    import urllib.error
    import urllib.request  # with http.client, ssl and email: only when an endpoint is asked

    body = json.dumps({"model": endpoint.model, "messages": messages, "temperature": 0,
                       "response_format": {"type": "json_object"}}).encode()
    headers = {"Content-Type": "application/json"}
    if endpoint.api_key:
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    request = urllib.request.Request(endpoint.url.rstrip("/") + "/chat/completions", data=body,
                                     headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=endpoint.timeout) as response:
            answer = json.loads(response.read())
        return str(answer["choices"][0]["message"]["content"])
    except urllib.error.HTTPError as exc:
        raise RefineFailed(f"the LLM endpoint answered HTTP {exc.code}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise RefineFailed(f"the LLM endpoint is unreachable: {reason}") from None
    except (ValueError, KeyError, IndexError, TypeError):
        raise RefineFailed("the LLM endpoint's answer is not a chat completion") from None


def _strip_fence(text: str) -> str:
    # some models wrap JSON in a ``` fence despite being asked not to
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[-1].rsplit("```", 1)[0]
    return text


def _checked(session: Session, item: object, known_ids: set[str]) -> Memory | None:
    if not isinstance(item, dict):
        return None
    kind, text = item.get("type"), item.get("text")
    if kind not in MEMORY_TYPES or not isinstance(text, str) or not text.strip():
        return None
    text = " ".join(text.split())[:MAX_MEMORY_CHARS]
    if find_secrets(text):  # a model may echo what redaction missed; never keep it
        return None
    confidence = item.get("confidence", 0.6)
    if not isinstance(confidence, (int, float)) or isinstance(confidence, bool):
        confidence = 0.6
    sources = item.get("source_message_ids") or []
    sources = tuple(s for s in sources if isinstance(s, str) and s in known_ids) \
        if isinstance(sources, list) else ()
    return Memory(id=memory_id(session.session_id, kind, text), session_id=session.session_id,
                  type=kind, text=text, confidence=round(min(max(float(confidence), 0.0), 1.0), 3),
                  source_message_ids=sources, session_date=session.date,
                  entities=extract_entities(text, reference_date=session.date), kind="refined")
