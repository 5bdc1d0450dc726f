"""ChatGPT data exports: `conversations.json`, a list of conversations, each one session.

A conversation has `title`, `create_time`, `update_time`, `current_node` and a `mapping` of
nodes `{message: {author: {role}, content: {content_type, parts}, create_time}, parent,
children}`. Editing a prompt or regenerating an answer adds a sibling branch to the tree.
Choices:

- The session follows the branch the user last saw: from `current_node` back to the root (when
  `current_node` is missing, the newest leaf). Messages on other branches are left out.
- System messages, hidden ones (`is_visually_hidden_from_conversation`, custom instructions)
  and empty ones are left out. Non-text parts become placeholders: an image the user attached
  or a tool drew (`image_asset_pointer`, `file-service://` or `sediment://`) is `[image]`, so a
  turn that is only a screenshot is kept; a file the user attached without any text
  (`metadata.attachments`) is `[file: name]` (`[image]` for an image). Code the model sends to a
  tool becomes a compact tool call, tool output (browsing, code execution) a compact tool
  result; reasoning (`thoughts`) is left out unless thinking is asked for.
- Each node of a conversation's mapping is a record (`node <id>`), in a ledger of the
  conversation's own that the file's takes in with the places prefixed `conversation <id>: `;
  the root and other nodes without a message are left out as such. A malformed conversation
  (not an object, no mapping, no time at all) is left out with a warning naming its position,
  and so is a second conversation with an id already read; the rest of the file is still read.
"""

from __future__ import annotations

import json
import logging
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
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.ledger import UNACCOUNTED, Ledger
from models import InvalidSession, parse_time

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like", "parse", "parse_value"]

NAME = "chatgpt"
CHANNEL = "chatgpt"
ID_PREFIX = "chatgpt"
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


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidSession(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InvalidSession("JSON is nested too deeply") from None
    return parse_value(path, value, options, ledger)


def parse_value(path: Path, value: Any, options: ImportOptions,
                ledger: Ledger) -> list[Transcript]:
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
        own = Ledger()  # the conversation's records, taken into the file's ledger at the end
        prefix = _prefix(conversation, position, seen)
        try:
            transcript = _conversation(conversation, options, path, own)
        except InvalidSession as exc:
            problems.append(f"conversation {position}: {exc.detail}")
            log.warning("%s: skipped conversation %d: %s", path, position, exc.detail)
            _leave_all(own, f"conversation left out: {exc.detail}", force=True)
            ledger.absorb(own, prefix)
            continue
        if transcript is None:
            empty += 1
        elif transcript.record["sessionId"] in seen:  # one id must not carry two contents
            log.warning("%s: skipped conversation %d: id %s seen earlier in the file",
                        path, position, transcript.record["sessionId"])
            _leave_all(own, "conversation whose id was seen earlier in the file", force=True)
        else:
            seen.add(transcript.record["sessionId"])
            out.append(transcript)
        ledger.absorb(own, prefix)
    if not out:
        if problems:
            raise InvalidSession(f"no readable conversations ({'; '.join(problems[:3])})")
        raise NothingToImport(f"no conversations with messages ({empty} empty)")
    return out


def _prefix(conversation: Any, position: int, seen: set[str]) -> str:
    """The places of a conversation's records: by its id, by its position when it has none or
    shares one with a conversation before it."""
    raw_id = conversation.get("conversation_id") or conversation.get("id") \
        if isinstance(conversation, dict) else None
    if isinstance(raw_id, str) and raw_id.strip() and \
            safe_session_id(ID_PREFIX, raw_id) not in seen:
        return f"conversation {raw_id.strip()}: "
    return f"conversations[{position - 1}]: "


def _leave_all(ledger: Ledger, reason: str, force: bool = False) -> None:
    """Every record of a conversation left out (or, unless forced, those without a fate)."""
    for fate in ledger.fates():
        if force or fate.reason == UNACCOUNTED:
            ledger.left_out(fate.where, reason)


def _conversation(raw: Any, options: ImportOptions, path: Path,
                  ledger: Ledger) -> Transcript | None:
    if not isinstance(raw, dict):
        ledger.read("conversation")
        raise InvalidSession("not an object")
    mapping = raw.get("mapping")
    if not isinstance(mapping, dict):
        ledger.read("conversation")
        raise InvalidSession("no 'mapping' of messages")
    for key in mapping:
        ledger.read(_node(key))
    branch = _current_branch(raw, mapping, ledger)
    messages = [m for m in (_message(node, key, options, ledger) for key, node in branch) if m]
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
    transcript = Transcript.build(record, ledger)
    updated = parse_time(raw.get("update_time"))
    if updated and (transcript.last_activity or "") < updated:
        transcript = Transcript(transcript.record, updated, transcript.skipped)
    return transcript


def _node(key: str) -> str:
    return f"node {key}"


def _current_branch(raw: dict[str, Any], mapping: dict[str, Any],
                    ledger: Ledger) -> list[tuple[str, dict[str, Any]]]:
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
    for key, node in mapping.items():
        if key in seen and isinstance(node, dict):
            continue
        if not isinstance(node, dict):
            ledger.left_out(_node(key), "unreadable node")
        elif isinstance(node.get("message"), dict):
            ledger.left_out(_node(key), "message on another branch")
        else:
            ledger.left_out(_node(key), "node without a message")
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
             ledger: Ledger) -> dict[str, Any] | None:
    where = _node(node_id)
    message = node.get("message")
    if not isinstance(message, dict):
        ledger.left_out(where, "node without a message")  # the root, or a node linking others
        return None
    author = message.get("author")
    author = author if isinstance(author, dict) else {}
    role = author.get("role")
    metadata = message.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    content = message.get("content")
    content = content if isinstance(content, dict) else {}
    if role == "system":
        ledger.left_out(where, "system message")
        return None
    kind = content.get("content_type")
    if metadata.get("is_visually_hidden_from_conversation") is True or \
            (isinstance(kind, str) and kind in _HIDDEN_CONTENT):
        ledger.left_out(where, "hidden message")
        return None
    if role not in ("user", "assistant", "tool"):
        ledger.left_out(where, f"author role {label(role)}")
        return None
    text, reason = _content_text(content, options)
    if text is None:  # left out on purpose
        ledger.left_out(where, reason)
        return None
    if not text.strip() and role == "user":
        text = "\n".join(_attachments(metadata))
    if not text.strip():
        ledger.left_out(where, "empty message")
        return None
    message_id = message.get("id")
    out: dict[str, Any] = {"id": message_id if isinstance(message_id, str) and message_id
                           else node_id}
    recipient = message.get("recipient")
    if role == "tool":
        name = author.get("name") if isinstance(author.get("name"), str) else None
        out.update(role="tool", content=tool_result_text(name, text, False, options.tool_chars))
        if name:
            out["speaker"] = name
    elif role == "assistant" and isinstance(recipient, str) and recipient not in ("all", ""):
        out.update(role="assistant", content=tool_call_text(recipient, text, options.tool_chars))
    else:
        out.update(role=role, content=text)
    created = parse_time(message.get("create_time"))
    if created:
        out["time"] = created
    ledger.imported(where)
    return out


def _attachments(metadata: dict[str, Any]) -> list[str]:
    """The files a user attached to a turn without text: `[image]`, or `[file: name]`."""
    out = []
    attachments = metadata.get("attachments")
    for attachment in attachments if isinstance(attachments, list) else []:
        if not isinstance(attachment, dict):
            continue
        mime = attachment.get("mime_type")
        name = attachment.get("name")
        if isinstance(mime, str) and mime.startswith("image/"):
            out.append("[image]")
        else:
            out.append(f"[file: {name.strip() if isinstance(name, str) and name.strip() else 'file'}]")
    return out


def _content_text(content: dict[str, Any], options: ImportOptions) -> tuple[str | None, str]:
    """A message's text, or None and why it is left out."""
    kind = content.get("content_type")
    if kind in ("text", "multimodal_text", None) and isinstance(content.get("parts"), list):
        return "\n".join(p for p in (_part(part) for part in content["parts"]) if p), ""
    if kind == "thoughts":
        thoughts = content.get("thoughts")
        thoughts = thoughts if isinstance(thoughts, list) else []
        lines = [str(t.get("content") or t.get("summary") or "")
                 for t in thoughts if isinstance(t, dict)]
        if options.thinking and any(line.strip() for line in lines):
            return "[thinking] " + "\n".join(line for line in lines if line.strip()), ""
        return None, "thinking"
    if kind == "reasoning_recap":
        return None, "reasoning recap"
    if kind == "tether_browsing_display":
        return str(content.get("result") or content.get("summary") or ""), ""
    if kind == "tether_quote":
        return "\n".join(str(content[k]) for k in ("title", "text") if content.get(k)), ""
    if kind == "system_error":
        return f"[error] {content.get('text') or content.get('name') or ''}".strip(), ""
    if isinstance(content.get("text"), str):  # code, execution_output and the like
        return content["text"], ""
    if isinstance(content.get("parts"), list):
        return "\n".join(p for p in (_part(part) for part in content["parts"]) if p), ""
    return None, f"content type {label(kind)}"


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


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.DOCUMENT,),
    default_paths=default_paths, is_candidate=is_candidate,
    resume=Resume("https://chatgpt.com/c/{id}", "a ChatGPT conversation: open it in a browser"),
    sniff_document=lambda value, path: looks_like(value), read_document=parse_value,
    walk_depth=3)  # exports are unzipped somewhere under Downloads: not all of it
