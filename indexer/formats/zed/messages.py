"""A Zed thread's messages, in both shapes Zed has stored, turned into the archive's messages.

Current threads (version "0.3.0", crates/agent/src/db.rs `DbThread`, messages of
crates/agent/src/thread.rs `Message`) hold externally tagged messages: `{"User": {id, content}}`,
`{"Agent": {content, tool_results}}` or the bare string `"Resume"`; a user's content is
`{"Text": s}`, `{"Mention": {uri, content}}` or `{"Image": {...}}`, an agent's `{"Text": s}`,
`{"Thinking": {text, signature}}`, `{"RedactedThinking": s}` or `{"ToolUse": {id, name, input,
raw_input}}`, and its tool results a map of tool use id to `{tool_name, is_error, content}`.
Older threads (versions "0.1.0", "0.2.0" and none, crates/agent/src/legacy_thread.rs) hold
`{id, role, segments: [{type: text|thinking|RedactedThinking}], tool_uses, tool_results, context,
is_hidden}` (or `text` in place of segments). Each message is read by its own shape, so a thread
of a version not seen here is still read. Choices:

- A user or agent message's text is one message; tool calls are `[tool: name] input` lines in it
  and their results a `tool` message after it, cut to `tool_chars`. Thinking is kept only with
  --thinking; redacted thinking never. An @-mention stands as `[mention: name]` and a pasted
  image as `[image]`: the file or page a mention pulled in is context, not the user's words, and
  is counted as left out ("mention content", and "attached context" in older threads).
- Left out, each with its reason: the "Resume" marker (Zed sends "Continue where you left off"),
  system and hidden messages, messages of unknown shape, and messages left empty.
- Each entry of `messages` is a record (`messages[N]`): imported, or left out with its reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.ledger import Ledger

__all__ = ["read_messages"]

_MENTION_NAMES = ("name", "abs_path", "path", "url", "file_path", "base_ref")


@dataclass(slots=True)
class _Turn:
    """What one message gives: its lines, its tool results, and the tool names it called."""

    lines: list[str] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    tools: dict[str, str] = field(default_factory=dict)  # tool use id -> tool name


def read_messages(thread: dict[str, Any], options: ImportOptions,
                  ledger: Ledger) -> list[dict[str, Any]]:
    """The thread's messages in order; every entry of `messages` gets its fate in `ledger`."""
    entries = thread.get("messages")
    out: list[dict[str, Any]] = []
    if not isinstance(entries, list):
        return out
    tools: dict[str, str] = {}  # older threads name a result's tool on the message before it
    for index, entry in enumerate(entries):
        where = f"messages[{index}]"
        ledger.read(where)
        role, ident, turn_or_reason = _read_entry(entry, tools, options, ledger)
        if isinstance(turn_or_reason, str):
            ledger.left_out(where, turn_or_reason)
            continue
        turn = turn_or_reason
        tools.update(turn.tools)
        ident = ident or f"m{index}"
        text = "\n".join(line for line in turn.lines if line.strip()).strip()
        if text:
            out.append({"id": ident, "role": role, "content": text})
        if turn.results:
            out.append({"id": f"{ident}-results", "role": "tool",
                        "content": "\n".join(turn.results)})
        if text or turn.results:
            ledger.imported(where)
        else:
            ledger.left_out(where, "message left empty")
    return out


def _read_entry(entry: Any, tools: dict[str, str], options: ImportOptions,
                ledger: Ledger) -> tuple[str, str | None, _Turn | str]:
    """(role, id, what the message gives) or, in place of the last, why it is left out."""
    if entry == "Resume":
        return "user", None, "resume marker"
    if isinstance(entry, dict) and len(entry) == 1 and isinstance(entry.get("User"), dict):
        user = entry["User"]
        ident = user.get("id") if isinstance(user.get("id"), str) else None
        return "user", ident, _user(user.get("content"), ledger)
    if isinstance(entry, dict) and len(entry) == 1 and isinstance(entry.get("Agent"), dict):
        return "assistant", None, _agent(entry["Agent"], options, ledger)
    if isinstance(entry, dict) and "role" in entry:
        return _legacy(entry, tools, options, ledger)
    kind = next(iter(entry), None) if isinstance(entry, dict) else entry
    return "user", None, f"unknown message type {label(kind)}"


def _user(content: Any, ledger: Ledger) -> _Turn:
    turn = _Turn()
    for chunk in content if isinstance(content, list) else []:
        kind, value = _tagged(chunk)
        if kind == "Text" and isinstance(value, str):
            turn.lines.append(value)
        elif kind == "Image":
            turn.lines.append("[image]")
        elif kind == "Mention" and isinstance(value, dict):
            turn.lines.append(_mention(value.get("uri")))
            if isinstance(value.get("content"), str) and value["content"].strip():
                ledger.part_left_out("mention content")
        else:
            ledger.part_left_out(f"unknown content {label(kind)}")
    return turn


def _agent(message: dict[str, Any], options: ImportOptions, ledger: Ledger) -> _Turn:
    turn = _Turn()
    limit = options.tool_chars
    content = message.get("content")
    for chunk in content if isinstance(content, list) else []:
        kind, value = _tagged(chunk)
        if kind == "Text" and isinstance(value, str):
            turn.lines.append(value)
        elif kind == "Thinking":
            _thinking(value.get("text") if isinstance(value, dict) else None, turn, options,
                      ledger)
        elif kind == "RedactedThinking":
            ledger.part_left_out("redacted thinking")
        elif kind == "ToolUse" and isinstance(value, dict):
            name = value.get("name") if isinstance(value.get("name"), str) else None
            arguments = value.get("input") if value.get("input") is not None \
                else value.get("raw_input")
            turn.lines.append(tool_call_text(name, arguments, limit))
            if isinstance(value.get("id"), str) and name:
                turn.tools[value["id"]] = name
        else:
            ledger.part_left_out(f"unknown content {label(kind)}")
    results = message.get("tool_results")
    for use_id, result in (results.items() if isinstance(results, dict) else []):
        if not isinstance(result, dict):
            ledger.part_left_out("unreadable tool result")
            continue
        name = result.get("tool_name") if isinstance(result.get("tool_name"), str) else \
            turn.tools.get(use_id)
        turn.results.append(tool_result_text(name, _result_text(result.get("content")),
                                             result.get("is_error") is True, limit))
    unanswered = set(turn.tools) - (set(results) if isinstance(results, dict) else set())
    if unanswered:
        ledger.part_left_out("tool call without result", len(unanswered))
    return turn


def _legacy(message: dict[str, Any], tools: dict[str, str], options: ImportOptions,
            ledger: Ledger) -> tuple[str, str | None, _Turn | str]:
    role = message.get("role")
    ident = f"m{message['id']}" if isinstance(message.get("id"), int) else None
    if role not in ("user", "assistant"):
        return "user", ident, "system message" if role == "system" else \
            f"unknown role {label(role)}"
    if message.get("is_hidden") is True:
        return role, ident, "hidden message"
    turn = _Turn()
    segments = message.get("segments")
    if not isinstance(segments, list) and isinstance(message.get("text"), str):
        segments = [{"type": "text", "text": message["text"]}]  # before segments (no version)
    for segment in segments if isinstance(segments, list) else []:
        kind = segment.get("type") if isinstance(segment, dict) else None
        if kind == "text" and isinstance(segment.get("text"), str):
            turn.lines.append(segment["text"])
        elif kind == "thinking":
            _thinking(segment.get("text"), turn, options, ledger)
        elif kind == "RedactedThinking":
            ledger.part_left_out("redacted thinking")
        else:
            ledger.part_left_out(f"unknown segment {label(kind)}")
    if isinstance(message.get("context"), str) and message["context"].strip():
        ledger.part_left_out("attached context")
    _legacy_tools(message, tools, turn, options.tool_chars, ledger)
    return role, ident, turn


def _legacy_tools(message: dict[str, Any], tools: dict[str, str], turn: _Turn, limit: int,
                  ledger: Ledger) -> None:
    for use in _listed(message, "tool_uses", ledger):
        if not isinstance(use, dict):
            ledger.part_left_out("unreadable tool call")
            continue
        name = use.get("name") if isinstance(use.get("name"), str) else None
        turn.lines.append(tool_call_text(name, use.get("input"), limit))
        if isinstance(use.get("id"), str) and name:
            turn.tools[use["id"]] = name
    for result in _listed(message, "tool_results", ledger):
        if not isinstance(result, dict):
            ledger.part_left_out("unreadable tool result")
            continue
        use_id = result.get("tool_use_id")
        name = (turn.tools.get(use_id) or tools.get(use_id)) if isinstance(use_id, str) else None
        turn.results.append(tool_result_text(name, _result_text(result.get("content")),
                                             result.get("is_error") is True, limit))


def _listed(message: dict[str, Any], key: str, ledger: Ledger) -> list[Any]:
    """A legacy message's list under `key`; a value of another type is counted and read as
    none, so it costs that piece and never the thread."""
    value = message.get(key)
    if value is None or isinstance(value, list):
        return value or []
    ledger.part_left_out(f"unreadable {key} (not a list)")
    return []


def _thinking(text: Any, turn: _Turn, options: ImportOptions, ledger: Ledger) -> None:
    if not isinstance(text, str) or not text.strip():
        return
    if options.thinking:
        turn.lines.append(f"[thinking] {text.strip()}")
    else:
        ledger.part_left_out("thinking")


def _tagged(chunk: Any) -> tuple[Any, Any]:
    """(variant, value) of a serde externally tagged enum: `{"Text": "..."}`."""
    if isinstance(chunk, dict) and len(chunk) == 1:
        return next(iter(chunk.items()))
    return (chunk if isinstance(chunk, str) else None), None


def _mention(uri: Any) -> str:
    """`[mention: name]` for an @-mention, from its uri (acp_thread::MentionUri)."""
    kind, value = _tagged(uri)
    if kind == "PastedImage":
        return "[image]"
    if isinstance(value, dict):
        for key in _MENTION_NAMES:
            if isinstance(value.get(key), str) and value[key].strip():
                return f"[mention: {value[key].strip()}]"
    return f"[mention: {label(kind)}]"


def _result_text(content: Any) -> str:
    """A tool result's text (language_model's LanguageModelToolResultContent, which reads a plain
    string, `{"Text": s}`, `{"type": "text", "text": s}` or an image; newer releases keep a list
    of them)."""
    if isinstance(content, list):
        return "\n".join(_result_text(part) for part in content)
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        lowered = {str(k).lower(): v for k, v in content.items()}
        if isinstance(lowered.get("text"), str):
            return str(lowered["text"])
        if "image" in lowered or "source" in lowered:
            return "[image]"
    return "" if content is None else json.dumps(content, ensure_ascii=False, default=str)
