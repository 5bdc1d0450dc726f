"""The records of a Kimi CLI wire log, in order, as the session's messages, each line given its
fate (__init__.py says where the log is and what is kept).

A record is `{"timestamp": <epoch seconds>, "message": {"type": <WireMessage class name>,
"payload": {...}}}` (WireMessageRecord and WireMessageEnvelope in src/kimi_cli/wire/file.py and
wire/types.py of MoonshotAI/kimi-cli @ 4a550effdfcb29a25a5d325bf935296cc50cd417). The log
holds the merged stream (wire/__init__.py: `_WireRecorder` reads the merged queue), so a reply's
text arrives in a few `ContentPart`s, not token by token.
"""

from __future__ import annotations

import json
from typing import Any

from indexer.formats.common import ImportOptions, clip, label, tool_call_text, tool_result_text
from indexer.formats.ledger import Ledger
from models import parse_time

__all__ = ["HEADER", "Reader", "is_record"]

HEADER = "metadata"  # the first line's type: {"type": "metadata", "protocol_version": "1.10"}
_USER = ("TurnBegin", "SteerInput")  # what the user typed: a turn's start, or input added to it
# events of the interface and the loop that hold no words of the conversation
_MARKERS = {"TurnEnd": "turn and step markers", "StepBegin": "turn and step markers",
            "StepInterrupted": "turn and step markers", "StepRetry": "turn and step markers",
            "CompactionBegin": "compaction marker", "CompactionEnd": "compaction marker",
            "StatusUpdate": "status update", "MCPLoadingBegin": "MCP loading event",
            "MCPLoadingEnd": "MCP loading event", "HookTriggered": "hook event",
            "HookResolved": "hook event", "ApprovalRequest": "approval",
            "ApprovalResponse": "approval", "ApprovalRequestResolved": "approval",
            "QuestionRequest": "question to the user", "ToolCallRequest": "external tool request",
            "HookRequest": "hook event", "Notification": "notification",
            "PlanDisplay": "plan display", "BtwBegin": "side question", "BtwEnd": "side question",
            # a sub-agent's own steps: the parent's Agent tool call and result hold its task and
            # its report
            "SubagentEvent": "sub-agent event"}
_MEDIA = {"image_url": "[image]", "audio_url": "[audio]", "video_url": "[video]"}


def is_record(item: Any) -> bool:
    """One line of a wire log other than its header."""
    message = item.get("message") if isinstance(item, dict) else None
    return (isinstance(item, dict) and isinstance(item.get("timestamp"), int | float)
            and not isinstance(item.get("timestamp"), bool) and isinstance(message, dict)
            and isinstance(message.get("type"), str) and isinstance(message.get("payload"), dict))


class Reader:
    """Turns the log's records into messages: a user's input, an assistant's reply (its text and
    tool calls, one message a step), each tool's result."""

    def __init__(self, options: ImportOptions, ledger: Ledger) -> None:
        self.options = options
        self.ledger = ledger
        self.messages: list[dict[str, Any]] = []
        self.recognized = 0
        self.tool_names: dict[str, str] = {}
        self.reply: dict[str, Any] | None = None  # the assistant message being written
        self.reply_parts: list[str] = []

    def add(self, number: int, item: Any) -> None:
        where = f"line {number}"
        if isinstance(item, dict) and item.get("type") == HEADER:
            self.recognized += 1
            self.ledger.left_out(where, "log header (protocol version)")
            return
        if not is_record(item):
            self.ledger.left_out(where, "not a wire record")
            return
        self.recognized += 1
        kind, payload = item["message"]["type"], item["message"]["payload"]
        time = parse_time(item["timestamp"])
        if kind in _USER:
            self.finish_reply()
            self.user(where, payload.get("user_input"), time)
        elif kind == "ContentPart":
            self.content(where, payload, time)
        elif kind == "ToolCall":
            self.tool_call(where, payload, time)
        elif kind == "ToolResult":
            self.finish_reply()
            self.tool_result(where, payload, time)
        elif kind in _MARKERS:
            if kind in ("StepBegin", "TurnEnd", "StepInterrupted"):
                self.finish_reply()  # a step is one call of the model: one reply
            self.ledger.left_out(where, _MARKERS[kind])
        elif kind == "ToolCallPart":  # the recorder merges these into their call
            self.ledger.left_out(where, "tool call fragment")
        else:
            self.ledger.left_out(where, f"unknown message type {label(kind)}")

    def user(self, where: str, user_input: Any, time: str | None) -> None:
        text = "\n".join(_part_texts(user_input)).strip()
        if not text:
            self.ledger.left_out(where, "empty prompt")
            return
        self.ledger.imported(where)
        self.messages.append({"id": where.replace(" ", "-"), "role": "user", "content": text,
                              "time": time})

    def content(self, where: str, part: dict[str, Any], time: str | None) -> None:
        kind = part.get("type")
        if kind == "think":
            thought = _text(part.get("think"))
            if not self.options.thinking or not thought.strip():
                self.ledger.left_out(where, "thinking")
                return
            self.append(where, f"[thinking] {thought.strip()}", time)
        elif kind == "text" and isinstance(part.get("text"), str):
            if not _text(part["text"]).strip():
                self.ledger.left_out(where, "empty text")
                return
            self.append(where, _text(part["text"]), time)
        elif _media(kind):
            self.append(where, _MEDIA[_text(kind)], time)
        else:
            self.ledger.left_out(where, f"unknown content part {label(kind)}")

    def tool_call(self, where: str, call: dict[str, Any], time: str | None) -> None:
        function = _dict(call.get("function"))
        name = _text(function.get("name")) or None
        if isinstance(call.get("id"), str) and name:
            self.tool_names[call["id"]] = name
        self.append(where, tool_call_text(name, _arguments(function.get("arguments")),
                                          self.options.tool_chars), time)

    def tool_result(self, where: str, result: dict[str, Any], time: str | None) -> None:
        value = _dict(result.get("return_value"))
        # what the tool told the model, when it gave no output
        output = "\n".join(_part_texts(value.get("output"))).strip() or _text(value.get("message"))
        call_id = result.get("tool_call_id")
        name = self.tool_names.get(call_id) if isinstance(call_id, str) else None
        self.ledger.imported(where)
        self.messages.append({"id": where.replace(" ", "-"), "role": "tool", "time": time,
                              "content": tool_result_text(name, output, value.get("is_error")
                                                          is True, self.options.tool_chars)})

    def append(self, where: str, text: str, time: str | None) -> None:
        """A piece of the reply being written: its first line is the message, the others are
        merged into it."""
        if self.reply is None:
            self.reply = {"id": where.replace(" ", "-"), "role": "assistant", "time": time}
            self.ledger.imported(where)
        else:
            self.ledger.merged(where, f"the reply of {self.reply['id'].replace('-', ' ')}")
        self.reply_parts.append(text)

    def finish_reply(self) -> None:
        if self.reply is not None:
            self.reply["content"] = _joined(self.reply_parts)
            self.messages.append(self.reply)
        self.reply, self.reply_parts = None, []

    def title(self, limit: int) -> str | None:
        first = next((m["content"] for m in self.messages if m["role"] == "user"), None)
        return clip(first.split("\n", 1)[0], limit) if first else None


def _part_texts(value: Any) -> list[str]:
    """The text of a user input or a tool's output: a string, or content parts (text, and media
    as a marker)."""
    if isinstance(value, str):
        return [value]
    out = []
    for part in value if isinstance(value, list) else []:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and part.get("type") == "text" and isinstance(
                part.get("text"), str):
            out.append(part["text"])
        elif isinstance(part, dict) and _media(part.get("type")):
            out.append(_MEDIA[part["type"]])
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _media(kind: Any) -> bool:
    return isinstance(kind, str) and kind in _MEDIA


def _arguments(raw: Any) -> Any:
    """A tool call's arguments: a JSON string as Kimi sends them, shown decoded when it is JSON."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        return raw


def _joined(parts: list[str]) -> str:
    """A reply's pieces, one a line: the recorder already merged the streamed chunks of each
    (a text, a thought, a tool call)."""
    return "\n".join(p.strip() for p in parts if p.strip())
