"""opencode's messages and their parts, as the database and the JSON tree both hold them, turned
into the archive's messages (__init__.py builds the session record).

A message is the JSON `{role, time: {created, completed}, modelID, path: {cwd}, summary, error,
...}` and a part `{type, text, synthetic, tool, state: {status, input, output, error}, ...}`
(packages/opencode/src/session/message-v2.ts). Choices:

- Messages in order of creation time, then id; parts in id order, as opencode reads them.
  A user or assistant message's text parts become one message; tool parts become a
  `[tool: name] input` line in it and their output (or error) a `tool` message after it, cut to
  `tool_chars`; reasoning is kept only with --thinking; a file part stands as `[file: name]`,
  an image (`mime` image/*: a pasted or attached screenshot, message-v2.ts `FilePart`) as
  `[image]`, and a subtask part (a command run by a sub-agent) as `[subtask: agent] description`.
- Left out, each with its reason: synthetic text (file contents and notes opencode adds to a
  prompt), step, snapshot, patch, agent, retry and compaction parts, unknown part types, and
  messages of other roles or without parts. Counted as pieces of a kept message: assistant
  errors ("error notice") and unfinished tool calls. A compaction's summary message becomes the
  session summary (the newest; older ones are left out).
- Each message and each part is a record (its place given by the store: `message row <id>`,
  `part <id>`, ...). A kept message is imported; the parts that made it are merged into it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.ledger import UNACCOUNTED, Ledger

__all__ = ["Conversation", "Message", "Part", "Session", "as_dict", "iso", "loads", "number",
           "read_conversation"]

_SKIPPED_PARTS = {"step-start", "step-finish", "snapshot", "patch", "agent", "retry", "compaction"}


@dataclass(slots=True)
class Part:
    where: str  # its place in the store, for the ledger
    data: dict[str, Any]


@dataclass(slots=True)
class Message:
    id: str
    where: str  # its place in the store, for the ledger
    info: dict[str, Any]
    parts: list[Part] = field(default_factory=list)

    def sort_key(self) -> tuple[float, str]:
        return (number(as_dict(self.info.get("time")).get("created")), self.id)


@dataclass(slots=True)
class Session:
    """One session as a store holds it, before it becomes a session record."""

    id: str
    where: str  # the place of the session's own record (its row or file)
    title: Any
    directory: Any
    created: Any  # epoch milliseconds
    messages: list[Message]
    ledger: Ledger  # the fates of the session's records
    passed_over: bool = False  # not read (--since): its row is its only record


@dataclass(slots=True)
class Conversation:
    """What a session's messages hold: the archive's messages, the summary, the working folder."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    summary: str | None = None
    cwd: str | None = None


def read_conversation(messages: Iterable[Message], options: ImportOptions,
                      ledger: Ledger) -> Conversation:
    builder = _Builder(options, ledger)
    for message in sorted(messages, key=Message.sort_key):
        builder.add(message)
    builder.finish()
    return builder.conversation


class _Builder:
    """Turns messages and their parts, in order, into the archive's messages."""

    def __init__(self, options: ImportOptions, ledger: Ledger) -> None:
        self.options = options
        self.ledger = ledger
        self.conversation = Conversation()
        self.summaries: list[Message] = []

    def add(self, message: Message) -> None:
        info, role = message.info, message.info.get("role")
        if role not in ("user", "assistant"):
            self._leave(message, f"{label(role)} message")
            return
        cwd = as_dict(info.get("path")).get("cwd") or as_dict(as_dict(info.get("assistant")).get(
            "path")).get("cwd")  # the oldest releases kept it under metadata.assistant
        if self.conversation.cwd is None and isinstance(cwd, str) and cwd.strip():
            self.conversation.cwd = cwd.strip()
        if not message.parts:
            self.ledger.left_out(message.where, "message without parts")
            return
        if role == "assistant" and info.get("summary") is True:  # what a compaction wrote
            self.summaries.append(message)
            return
        lines, results, used = self._parts(message.parts)
        time = iso(as_dict(info.get("time")).get("created"))
        base = {"time": time} if time else {}
        text = "\n".join(line for line in lines if line.strip())
        entries = self.conversation.messages
        if text:
            entries.append({"id": message.id, "role": role, "content": text, **base})
        if results:
            entries.append({"id": f"{message.id}-results", "role": "tool",
                            "content": "\n".join(results), **base})
        if not text and not results:
            self._leave(message, "message left empty")
            return
        self.ledger.imported(message.where)
        for part in used:
            self.ledger.merged(part.where, f"its message ({message.where})")
        if isinstance(info.get("error"), dict):
            self.ledger.part_left_out("error notice")

    def finish(self) -> None:
        """The newest compaction summary is the session's summary; older ones are left out."""
        kept = None
        for message in reversed(self.summaries):
            text = "\n".join(_text(p.data) for p in message.parts
                             if p.data.get("type") == "text").strip()
            if kept is None and text:
                kept = text
                self.ledger.imported(message.where, "the session's summary")
                for part in message.parts:
                    if part.data.get("type") == "text":
                        self.ledger.merged(part.where, f"its message ({message.where})")
                    else:
                        self.ledger.left_out(part.where, _part_reason(part.data))
            else:
                self._leave(message, "compaction summary (an older one)" if text
                            else "compaction summary left empty")
        self.conversation.summary = kept

    def _leave(self, message: Message, reason: str) -> None:
        """A message left out: its parts without a reason of their own go with it."""
        self.ledger.left_out(message.where, reason)
        for part in message.parts:
            fate = self.ledger.fate(part.where)
            if fate is None or fate.reason == UNACCOUNTED:
                self.ledger.left_out(part.where, "part of a message left out")

    def _parts(self, parts: Iterable[Part]) -> tuple[list[str], list[str], list[Part]]:
        """A message's lines (text, thinking, tool calls, files), its tool results, and the
        parts that gave them; every other part is left out with its reason."""
        lines: list[str] = []
        results: list[str] = []
        used: list[Part] = []
        limit = self.options.tool_chars
        for part in parts:
            data, kind = part.data, part.data.get("type")
            before = len(lines) + len(results)
            if kind == "text" and data.get("synthetic") is not True and _text(data).strip():
                lines.append(_text(data))
            elif kind == "reasoning" and self.options.thinking and _text(data).strip():
                lines.append(f"[thinking] {_text(data).strip()}")
            elif kind == "tool":
                name = data.get("tool") if isinstance(data.get("tool"), str) else None
                state = as_dict(data.get("state"))
                lines.append(tool_call_text(name, state.get("input"), limit))
                if state.get("status") in ("completed", "error"):
                    failed = state["status"] == "error"
                    output = _string(state.get("error") if failed else state.get("output"))
                    results.append(tool_result_text(name, output, failed, limit))
                else:
                    self.ledger.part_left_out("unfinished tool call")
            elif kind == "file":
                lines.append(_file(data))
            elif kind == "subtask":
                agent, task = label(data.get("agent")), _string(data.get("description"))
                lines.append(f"[subtask: {agent}] {task}")
            if len(lines) + len(results) > before:
                used.append(part)
            else:
                self.ledger.left_out(part.where, _part_reason(data))
        return lines, results, used


def _part_reason(part: dict[str, Any]) -> str:
    """Why a part gave nothing to its message."""
    kind = part.get("type")
    if kind == "text":
        return "synthetic text" if part.get("synthetic") is True else "empty text part"
    if kind == "reasoning":
        return "reasoning"
    if isinstance(kind, str) and kind in _SKIPPED_PARTS:
        return f"{kind} part"
    return f"unknown part type {label(kind)}"


def _file(part: dict[str, Any]) -> str:
    """An attachment as its message shows it: `[image]` for a picture, else `[file: name]`."""
    mime = part.get("mime")
    if isinstance(mime, str) and mime.lower().startswith("image/"):
        return "[image]"
    return f"[file: {_file_name(part)}]"


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
