"""opencode's messages and their parts, as the database and the JSON tree both hold them, turned
into the archive's messages (opencode.py builds the session record).

A message is the JSON `{role, time: {created, completed}, modelID, path: {cwd}, summary, error,
...}` and a part `{type, text, synthetic, tool, state: {status, input, output, error}, ...}`
(packages/opencode/src/session/message-v2.ts). Choices:

- Messages in order of creation time, then id; parts in id order, as opencode reads them.
  A user or assistant message's text parts become one message; tool parts become a
  `[tool: name] input` line in it and their output (or error) a `tool` message after it, cut to
  `tool_chars`; reasoning is kept only with --thinking; a file part stands as `[file: name]`
  and a subtask part (a command run by a sub-agent) as `[subtask: agent] description`.
- Left out and counted: synthetic text (file contents and notes opencode adds to a prompt),
  step, snapshot, patch, agent, retry and compaction parts, unfinished tool calls, and unknown
  part types, and assistant errors (as "error notice"). A compaction's summary message
  becomes the session summary.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text

__all__ = ["Conversation", "Message", "Session", "as_dict", "iso", "loads", "number",
           "read_conversation"]

_SKIPPED_PARTS = {"step-start", "step-finish", "snapshot", "patch", "agent", "retry", "compaction"}


@dataclass(slots=True)
class Message:
    id: str
    info: dict[str, Any]
    parts: list[dict[str, Any]] = field(default_factory=list)

    def sort_key(self) -> tuple[float, str]:
        return (number(as_dict(self.info.get("time")).get("created")), self.id)


@dataclass(slots=True)
class Session:
    """One session as a store holds it, before it becomes a session record."""

    id: str
    title: Any
    directory: Any
    created: Any  # epoch milliseconds
    messages: list[Message]
    skipped: Counter[str]


@dataclass(slots=True)
class Conversation:
    """What a session's messages hold: the archive's messages, the summary, the working folder."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    summary: str | None = None
    cwd: str | None = None


def read_conversation(messages: Iterable[Message], options: ImportOptions,
                      skipped: Counter[str]) -> Conversation:
    builder = _Builder(options, skipped)
    for message in sorted(messages, key=Message.sort_key):
        builder.add(message)
    return builder.conversation


class _Builder:
    """Turns messages and their parts, in order, into the archive's messages."""

    def __init__(self, options: ImportOptions, skipped: Counter[str]) -> None:
        self.options = options
        self.skipped = skipped
        self.conversation = Conversation()

    def add(self, message: Message) -> None:
        info, role = message.info, message.info.get("role")
        if role not in ("user", "assistant"):
            self.skipped[f"{label(role)} message"] += 1
            return
        cwd = as_dict(info.get("path")).get("cwd") or as_dict(as_dict(info.get("assistant")).get(
            "path")).get("cwd")  # the oldest releases kept it under metadata.assistant
        if self.conversation.cwd is None and isinstance(cwd, str) and cwd.strip():
            self.conversation.cwd = cwd.strip()
        if isinstance(info.get("error"), dict):
            self.skipped["error notice"] += 1
        if not message.parts:
            self.skipped["message without parts"] += 1
            return
        if role == "assistant" and info.get("summary") is True:  # what a compaction wrote
            text = "\n".join(_text(p) for p in message.parts if p.get("type") == "text").strip()
            self.conversation.summary = text or self.conversation.summary
            self.skipped["compaction summary"] += 1
            return
        lines, results = self._parts(message.parts)
        time = iso(as_dict(info.get("time")).get("created"))
        base = {"time": time} if time else {}
        text = "\n".join(line for line in lines if line.strip())
        entries = self.conversation.messages
        if text:
            entries.append({"id": message.id, "role": role, "content": text, **base})
        if results:
            entries.append({"id": f"{message.id}-results", "role": "tool",
                            "content": "\n".join(results), **base})

    def _parts(self, parts: Iterable[dict[str, Any]]) -> tuple[list[str], list[str]]:
        """A message's lines (text, thinking, tool calls, files) and its tool results."""
        lines: list[str] = []
        results: list[str] = []
        limit = self.options.tool_chars
        for part in parts:
            kind = part.get("type")
            if kind == "text" and part.get("synthetic") is True:
                self.skipped["synthetic text"] += 1
            elif kind == "text":
                lines.append(_text(part))
            elif kind == "reasoning" and self.options.thinking and _text(part).strip():
                lines.append(f"[thinking] {_text(part).strip()}")
            elif kind == "reasoning":
                self.skipped["reasoning"] += 1
            elif kind == "tool":
                name = part.get("tool") if isinstance(part.get("tool"), str) else None
                state = as_dict(part.get("state"))
                lines.append(tool_call_text(name, state.get("input"), limit))
                if state.get("status") in ("completed", "error"):
                    failed = state["status"] == "error"
                    output = _string(state.get("error") if failed else state.get("output"))
                    results.append(tool_result_text(name, output, failed, limit))
                else:
                    self.skipped["unfinished tool call"] += 1
            elif kind == "file":
                lines.append(f"[file: {_file_name(part)}]")
            elif kind == "subtask":
                agent, task = label(part.get("agent")), _string(part.get("description"))
                lines.append(f"[subtask: {agent}] {task}")
            elif kind in _SKIPPED_PARTS:
                self.skipped[f"{kind} part"] += 1
            else:
                self.skipped[f"unknown part type {label(kind)}"] += 1
        return lines, results


def _text(part: dict[str, Any]) -> str:
    return part["text"] if isinstance(part.get("text"), str) else ""


def _string(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False, default=str)


def _file_name(part: dict[str, Any]) -> str:
    """An attachment's name, never its content (the url may be a data: url)."""
    name = part.get("filename")
    if isinstance(name, str) and name.strip():
        return name.strip()
    source = as_dict(part.get("source"))
    if isinstance(source.get("path"), str):
        return source["path"]
    return label(part.get("mime")) if part.get("mime") else "file"


# shared by both stores ------------------------------------------------------------------------

def loads(data: Any) -> dict[str, Any] | None:
    """A JSON object from a row or a file; None when it is not one."""
    try:
        value = json.loads(data)
    except (TypeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def number(value: Any) -> float:
    """A time for sorting; 0 when there is none."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def iso(value: Any) -> str | None:
    """Epoch milliseconds (opencode's times) as UTC ISO-8601."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        moment = datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
