"""Goose's messages, as its database and its older JSON-lines files both hold them, turned into
the archive's messages (__init__.py builds the session record).

A message is `{id, role, created, content: [...], metadata: {userVisible, agentVisible}}`
(crates/goose/src/conversation/message/mod.rs); each content block is tagged by `type`
(message/content_types.rs, tool_types.rs, conversation/tool_result_serde.rs). Choices:

- A message's text blocks, its tool calls as `[tool: name] arguments` lines and its images as
  `[image]` make one message; the tool results it carries (goose puts them in a `user`
  message) a `tool` message after it, each cut to `tool_chars` and named after its call.
- Thinking (and the older `reasoning` block) only with --thinking. Left out as pieces of a kept
  message, each counted: redacted thinking, tool confirmation and action requests, system
  notifications, compaction and context notices, text meant for the model only, unknown blocks.
- A message goose hides from the user (`metadata.userVisible` false: what it injects for the
  model, a compaction's summary) is left out, and so is one of another role or left empty.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.ledger import Ledger

__all__ = ["Conversation", "iso", "loads"]

_NOTICES = {"toolConfirmationRequest": "tool confirmation request",
            "actionRequired": "action required", "systemNotification": "system notification",
            "conversationCompacted": "compaction notice",
            "contextLengthExceeded": "context length notice",
            "summarizationRequested": "summarization notice",
            "redactedThinking": "redacted thinking"}
BLOCK_TYPES = frozenset({"text", "image", "toolRequest", "toolResponse", "frontendToolRequest",
                         "thinking", "reasoning", *_NOTICES})


@dataclass
class Conversation:
    """A session's messages as the archive keeps them, built one goose message at a time."""

    options: ImportOptions
    ledger: Ledger
    messages: list[dict[str, Any]] = field(default_factory=list)
    tool_names: dict[str, str] = field(default_factory=dict)  # call id -> tool name

    def add(self, where: str, ident: str, value: Any) -> None:
        """One goose message (`value`, decoded), read from `where`; its fate goes to the ledger."""
        if not isinstance(value, dict):
            self.ledger.left_out(where, "not a message")
            return
        role, content = value.get("role"), value.get("content")
        metadata = _dict(value.get("metadata"))
        if role not in ("user", "assistant"):
            self.ledger.left_out(where, f"message of role {label(role)}")
        elif metadata.get("userVisible") is False:
            self.ledger.left_out(where, "hidden from the user (context for the model)")
        elif not isinstance(content, list):
            self.ledger.left_out(where, "message without content")
        else:
            self._add(where, ident, role, iso(value.get("created")), content)

    def _add(self, where: str, ident: str, role: str, time: str | None, content: list[Any]) -> None:
        lines: list[str] = []
        results: list[str] = []
        for block in content:
            self._block(block if isinstance(block, dict) else {}, lines, results)
        base = {"time": time} if time else {}
        text = "\n".join(line for line in lines if line.strip())
        if text:
            self.messages.append({"id": ident, "role": role, "content": text, **base})
        if results:
            self.messages.append({"id": f"{ident}-results", "role": "tool",
                                  "content": "\n".join(results), **base})
        if text or results:
            self.ledger.imported(where)
        else:
            self.ledger.left_out(where, "message left empty")

    def _block(self, block: dict[str, Any], lines: list[str], results: list[str]) -> None:
        kind = block.get("type")
        limit = self.options.tool_chars
        if kind == "text":
            self._text(block, lines)
        elif kind == "image":
            lines.append("[image]")
        elif kind in ("toolRequest", "frontendToolRequest"):
            lines.append(self._call(block, limit))
        elif kind == "toolResponse":
            results.append(self._result(block, limit))
        elif kind in ("thinking", "reasoning"):
            thought = block.get("thinking" if kind == "thinking" else "text")
            if self.options.thinking and isinstance(thought, str) and thought.strip():
                lines.append(f"[thinking] {thought.strip()}")
            else:
                self.ledger.part_left_out("thinking")
        elif isinstance(kind, str) and kind in _NOTICES:
            self.ledger.part_left_out(_NOTICES[kind])
        else:
            self.ledger.part_left_out(f"unknown content type {label(kind)}")

    def _text(self, block: dict[str, Any], lines: list[str]) -> None:
        text = block.get("text")
        audience = _dict(block.get("annotations")).get("audience")
        if isinstance(audience, list) and "user" not in audience:
            self.ledger.part_left_out("text for the model only")
        elif isinstance(text, str):
            lines.append(text)

    def _call(self, block: dict[str, Any], limit: int) -> str:
        call = _dict(block.get("toolCall"))
        value = _dict(call.get("value"))
        name = value.get("name") if isinstance(value.get("name"), str) else None
        if name and isinstance(block.get("id"), str):
            self.tool_names[block["id"]] = name
        if call.get("status") == "error":
            return tool_call_text(name, f"(not a valid call: {_string(call.get('error'))})", limit)
        return tool_call_text(name, value.get("arguments"), limit)

    def _result(self, block: dict[str, Any], limit: int) -> str:
        result = _dict(block.get("toolResult"))
        ident = block.get("id")
        name = self.tool_names.get(ident) if isinstance(ident, str) else None
        if result.get("status") == "error":
            return tool_result_text(name, _string(result.get("error")), True, limit)
        value = result.get("value")
        # today's CallToolResult {content, isError}; the oldest releases kept the list alone
        items = value if isinstance(value, list) else _dict(value).get("content")
        failed = isinstance(value, dict) and value.get("isError") is True
        return tool_result_text(name, _contents(items), failed, limit)


def _contents(items: Any) -> str:
    """An MCP tool result's content items as text: images and embedded files as markers."""
    out = []
    for item in items if isinstance(items, list) else []:
        item = _dict(item)
        kind = item.get("type")
        if kind == "text" and isinstance(item.get("text"), str):
            out.append(item["text"])
        elif kind in ("image", "audio"):
            out.append(f"[{kind}]")
        elif kind == "resource":
            resource = _dict(item.get("resource"))
            text = resource.get("text")
            out.append(text if isinstance(text, str) else f"[file: {label(resource.get('uri'))}]")
    return "\n".join(out)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _string(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False, default=str)


def loads(data: Any, check: Callable[[Any], bool] = lambda _: True) -> Any:
    """A JSON value from a row, or None when it does not parse or fails `check`."""
    try:
        value = json.loads(data)
    except (TypeError, ValueError, RecursionError):
        return None
    return value if check(value) else None


def iso(value: Any) -> str | None:
    """Goose's message time, epoch seconds, as UTC ISO-8601."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return datetime.fromtimestamp(value, tz=UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None
