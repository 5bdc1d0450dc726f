"""ChatGPT data exports: `conversations.json`, a list of conversations, each one session.

A conversation has `title`, `create_time`, `update_time`, `current_node` and a `mapping` of
nodes `{message: {author: {role}, content: {content_type, parts}, create_time}, parent,
children}`. Editing a prompt or regenerating an answer adds a sibling branch to the tree.
Choices:

- The session follows the branch the user last saw: from `current_node` back to the root (when
  `current_node` is missing, the newest leaf). Messages on other branches are counted, not kept.
- System messages, hidden ones (`is_visually_hidden_from_conversation`, custom instructions)
  and empty ones are skipped. Non-text parts become placeholders (`[image]`), code the model
  sends to a tool becomes a compact tool call, tool output (browsing, code execution) a compact
  tool result; reasoning (`thoughts`) is left out unless thinking is asked for.
- A malformed conversation is skipped with a warning naming its position; the rest of the file
  is still read.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    label,
    origin,
    safe_session_id,
    tool_call_text,
    tool_result_text,
)
from models import InvalidSession, parse_time

__all__ = ["CHANNEL", "NAME", "default_paths", "is_candidate", "looks_like", "parse", "parse_value"]

NAME = "chatgpt"
CHANNEL = "chatgpt"
ID_PREFIX = "chatgpt"
# how the agent reopens one of its sessions (`recall resume`): a command, or None and why not
RESUME = ("https://chatgpt.com/c/{id}", "a ChatGPT conversation: open it in a browser")
FILE_NAMES = ("conversations.json",)
_HIDDEN_CONTENT = {"user_editable_context", "model_editable_context"}

log = logging.getLogger(__name__)


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    # Exports arrive as a zip in Downloads; once unzipped, conversations.json sits in its folder.
    return [home / "Downloads"]


def is_candidate(path: Path) -> bool:
    """An export's conversations file."""
    return path.name in FILE_NAMES


def looks_like(value: Any) -> bool:
    if isinstance(value, dict) and isinstance(value.get("conversations"), list):
        value = value["conversations"]
    items = value if isinstance(value, list) else [value]
    return any(isinstance(i, dict) and isinstance(i.get("mapping"), dict) for i in items[:5])


def parse(path: Path, text: str, options: ImportOptions) -> list[Transcript]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidSession(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InvalidSession("JSON is nested too deeply") from None
    return parse_value(path, value, options)


def parse_value(path: Path, value: Any, options: ImportOptions) -> list[Transcript]:
    if not looks_like(value):
        raise InvalidSession(
            "not a ChatGPT export: expected a list of conversations with a 'mapping'")
    if isinstance(value, dict) and isinstance(value.get("conversations"), list):
        value = value["conversations"]
    conversations = value if isinstance(value, list) else [value]
    out: list[Transcript] = []
    seen: set[str] = set()
    problems: list[str] = []
    empty = 0
    for position, conversation in enumerate(conversations, start=1):
        try:
            transcript = _conversation(conversation, options, path)
        except InvalidSession as exc:
            problems.append(f"conversation {position}: {exc.detail}")
            log.warning("%s: skipped conversation %d: %s", path, position, exc.detail)
            continue
        if transcript is None:
            empty += 1
            continue
        session_id = transcript.record["sessionId"]
        if session_id in seen:  # one id must not carry two contents in one run
            log.warning("%s: skipped conversation %d: id %s seen earlier in the file",
                        path, position, session_id)
            continue
        seen.add(session_id)
        out.append(transcript)
    if not out:
        if problems:
            raise InvalidSession(f"no readable conversations ({'; '.join(problems[:3])})")
        raise NothingToImport(f"no conversations with messages ({empty} empty)")
    return out


def _conversation(raw: Any, options: ImportOptions, path: Path) -> Transcript | None:
    if not isinstance(raw, dict):
        raise InvalidSession("not an object")
    mapping = raw.get("mapping")
    if not isinstance(mapping, dict):
        raise InvalidSession("no 'mapping' of messages")
    skipped: Counter[str] = Counter()
    branch = _current_branch(raw, mapping, skipped)
    messages = [m for m in (_message(node, key, options, skipped) for key, node in branch) if m]
    if not messages:
        return None
    raw_id = raw.get("conversation_id") or raw.get("id")
    if not isinstance(raw_id, str) or not raw_id.strip():
        raw_id = f"untitled {raw.get('create_time')} {raw.get('title')}"
    record: dict[str, Any] = {
        "sessionId": safe_session_id(ID_PREFIX, raw_id),
        "channel": CHANNEL,
        "messages": messages,
        "origin": origin(NAME, raw_id, None, path),
    }
    started = parse_time(raw.get("create_time"))
    if started:
        record["date"] = started[:10]
    elif not any(m.get("time") for m in messages):
        raise InvalidSession("no create_time and no message times")
    if isinstance(raw.get("title"), str) and raw["title"].strip():
        record["title"] = raw["title"].strip()
    transcript = Transcript.build(record, skipped)
    updated = parse_time(raw.get("update_time"))
    if updated and (transcript.last_activity or "") < updated:
        transcript = Transcript(transcript.record, updated, transcript.skipped)
    return transcript


def _current_branch(raw: dict[str, Any], mapping: dict[str, Any],
                    skipped: Counter[str]) -> list[tuple[str, dict[str, Any]]]:
    node_id = raw.get("current_node")
    if not isinstance(node_id, str) or node_id not in mapping:
        node_id = _newest_leaf(mapping)
    branch: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        branch.append((node_id, node))
        node_id = node.get("parent")
    other = sum(1 for key, node in mapping.items()
                if key not in seen and isinstance(node, dict)
                and isinstance(node.get("message"), dict))
    if other:
        skipped["message on another branch"] += other
    return branch[::-1]


def _newest_leaf(mapping: dict[str, Any]) -> str | None:
    leaves = [(key, node) for key, node in mapping.items()
              if isinstance(node, dict) and not node.get("children")]
    if not leaves:
        return None

    def when(item: tuple[int, tuple[str, dict[str, Any]]]) -> tuple[float, int]:
        position, (_, node) = item
        message = node.get("message")
        message = message if isinstance(message, dict) else {}
        created = message.get("create_time")
        return (float(created) if isinstance(created, int | float) else float("-inf"), position)

    return max(enumerate(leaves), key=when)[1][0]


def _message(node: dict[str, Any], node_id: str, options: ImportOptions,
             skipped: Counter[str]) -> dict[str, Any] | None:
    message = node.get("message")
    if not isinstance(message, dict):
        return None  # the root, or a node that only links others
    author = message.get("author")
    author = author if isinstance(author, dict) else {}
    role = author.get("role")
    metadata = message.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    content = message.get("content")
    content = content if isinstance(content, dict) else {}
    if role == "system":
        skipped["system message"] += 1
        return None
    kind = content.get("content_type")
    if metadata.get("is_visually_hidden_from_conversation") is True or \
            (isinstance(kind, str) and kind in _HIDDEN_CONTENT):
        skipped["hidden message"] += 1
        return None
    text = _content_text(content, options, skipped)
    if text is None:  # left out, and counted, on purpose
        return None
    if not text.strip():
        skipped["empty message"] += 1
        return None
    message_id = message.get("id")
    out: dict[str, Any] = {"id": message_id if isinstance(message_id, str) else node_id}
    recipient = message.get("recipient")
    if role == "tool":
        name = author.get("name") if isinstance(author.get("name"), str) else None
        out.update(role="tool", content=tool_result_text(name, text, False, options.tool_chars))
        if name:
            out["speaker"] = name
    elif role == "assistant" and isinstance(recipient, str) and recipient not in ("all", ""):
        out.update(role="assistant", content=tool_call_text(recipient, text, options.tool_chars))
    elif role in ("user", "assistant"):
        out.update(role=role, content=text)
    else:
        skipped[f"author role {label(role)}"] += 1
        return None
    created = parse_time(message.get("create_time"))
    if created:
        out["time"] = created
    return out


def _content_text(content: dict[str, Any], options: ImportOptions,
                  skipped: Counter[str]) -> str | None:
    kind = content.get("content_type")
    if kind in ("text", "multimodal_text", None) and isinstance(content.get("parts"), list):
        return "\n".join(p for p in (_part(part) for part in content["parts"]) if p)
    if kind == "thoughts":
        thoughts = content.get("thoughts")
        thoughts = thoughts if isinstance(thoughts, list) else []
        lines = [str(t.get("content") or t.get("summary") or "")
                 for t in thoughts if isinstance(t, dict)]
        if options.thinking and any(line.strip() for line in lines):
            return "[thinking] " + "\n".join(line for line in lines if line.strip())
        skipped["thinking"] += 1
        return None
    if kind == "reasoning_recap":
        skipped["reasoning recap"] += 1
        return None
    if kind == "tether_browsing_display":
        return str(content.get("result") or content.get("summary") or "")
    if kind == "tether_quote":
        return "\n".join(str(content[k]) for k in ("title", "text") if content.get(k))
    if kind == "system_error":
        return f"[error] {content.get('text') or content.get('name') or ''}".strip()
    if isinstance(content.get("text"), str):  # code, execution_output and the like
        return content["text"]
    if isinstance(content.get("parts"), list):
        return "\n".join(p for p in (_part(part) for part in content["parts"]) if p)
    skipped[f"content type {label(kind)}"] += 1
    return None


def _part(part: Any) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return ""
    kind = part.get("content_type")
    if isinstance(part.get("text"), str):  # audio transcriptions and the like
        return part["text"]
    if kind == "image_asset_pointer":
        return "[image]"
    if isinstance(kind, str) and "audio" in kind:
        return ""
    return "[attachment]"
