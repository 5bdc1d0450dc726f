"""GitHub Copilot CLI sessions of releases before the event log (0.0.3xx, until late 2025):
`${COPILOT_HOME:-~/.copilot}/history-session-state/session_<...>.json`, one JSON document per
session, read into the parts of a session record (__init__.py builds the record).

The CLI is closed source and dropped this layout; the shape is the one other tools read from
real files: `{sessionId, startTime, chatMessages[], timeline[]}`. `timeline` is what the CLI
showed, entries `{id, timestamp, type, ...}` of type `user` (`text`, `expandedText`,
`mentions`, `imageAttachments`), `copilot` (`text`), `tool_call_requested` and
`tool_call_completed` (`callId`, `name`, `toolTitle`, `intentionSummary`, `arguments`, and
`result: {type: success | error, log}` once completed) and `info` (`text`, e.g. "Operation
cancelled by user"); `chatMessages` is the model's context in the chat-completions shape
(`{role: system | user | assistant | tool, content, tool_calls[{id, function: {name,
arguments}}], tool_call_id}`). Sources: guideai-dev/session-processing,
src/processors/providers/github-copilot/MESSAGE_TYPES.md (the five entry types, with examples
from a real session of 2025-10-04) and guideai-dev/desktop, COPILOT_PROVIDER_IMPLEMENTATION.md
(`history-session-state/session_{uuid}_{timestamp}.json`, `chatMessages` of role and content
with `tool_calls`) and src-tauri/src/providers/copilot_snapshot.rs (the timeline is what it
converts); a usage tracker's SessionProcessor reads the same files (`session_*.json`, roles
user, assistant, tool and system).

Choices:

- The timeline is the conversation: it is what the user saw, each entry with its own id and
  time, and the prompt as typed (`text`; `expandedText`, the prompt with its mentions expanded,
  is counted as a piece left out when it differs). `chatMessages` has no times and carries the
  system prompt and the context the CLI added; each of its entries is a record too: merged into
  the timeline entry it copies (a tool result by its call id, a prompt or a reply by its text),
  the system prompt and anything the timeline does not show left out. A file whose timeline
  holds no conversation (none seen, but the shape allows it) is read from `chatMessages`.
- A requested tool call is an assistant `[tool: name] args` line; its completion is a `tool`
  message with the log, cut to `tool_chars` (a completion whose request is missing stands for
  both). Images attached to a prompt stand as `[image]`, so a screenshot alone is kept. `info`
  entries are notices, left out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.copilot.cli import EMPTY, CliSession
from indexer.formats.ledger import Ledger
from models import parse_time

__all__ = ["is_history", "is_history_file", "read_history"]

FOLDER = "history-session-state"
_CONVERSATION = ("user", "copilot", "tool_call_requested", "tool_call_completed")
_NOT_SHOWN = "model context the timeline does not show"


def is_history(value: Any) -> bool:
    """A session of the older CLI: its id and a timeline or chat messages (its start time is
    not required: other tools read these files without one)."""
    return (isinstance(value, dict) and isinstance(value.get("sessionId"), str)
            and "requests" not in value and "messages" not in value
            and (isinstance(value.get("timeline"), list)
                 or isinstance(value.get("chatMessages"), list)))


def is_history_file(path: Path) -> bool:
    return path.suffix == ".json" and path.parent.name == FOLDER


def read_history(path: Path, value: dict[str, Any], options: ImportOptions,
                 ledger: Ledger) -> CliSession:
    session = CliSession(session_id=value["sessionId"].strip() or path.stem,
                         started=parse_time(value.get("startTime")))
    timeline = _entries(value.get("timeline"), "timeline", ledger)
    chat = _entries(value.get("chatMessages"), "chatMessages", ledger)
    reader = _Reader(options, ledger)
    if any(entry.get("type") in _CONVERSATION for _, entry in timeline):
        for where, entry in timeline:
            reader.timeline(where, entry)
        for where, message in chat:
            reader.copy(where, message)
    else:
        for where, entry in timeline:
            ledger.left_out(where, _entry_reason(entry))
        for where, message in chat:
            reader.chat_message(where, message)
    session.messages = reader.messages
    return session


def _entries(value: Any, name: str, ledger: Ledger) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for number, entry in enumerate(value if isinstance(value, list) else []):
        where = f"{name}[{number}]"
        ledger.read(where)
        if isinstance(entry, dict):
            out.append((where, entry))
        else:
            ledger.left_out(where, "unreadable timeline entry" if name == "timeline"
                            else "unreadable chat message")
    return out


def _entry_reason(entry: dict[str, Any]) -> str:
    kind = entry.get("type")
    if kind == "info":
        return "info entry (a notice, not conversation)"
    return f"timeline entry {label(kind)}"


class _Reader:
    def __init__(self, options: ImportOptions, ledger: Ledger) -> None:
        self.limit = options.tool_chars
        self.ledger = ledger
        self.messages: list[dict[str, Any]] = []
        self.calls: dict[str, str] = {}  # call id -> the entry that requested it
        self.results: dict[str, str] = {}  # call id -> the entry that completed it
        self.names: dict[str, str] = {}  # call id -> tool name
        self.shown: dict[str, str] = {}  # a prompt's or a reply's text -> its entry

    # the timeline ----------------------------------------------------------------------------

    def timeline(self, where: str, entry: dict[str, Any]) -> None:
        kind = entry.get("type")
        if kind == "user":
            typed, expanded = _text(entry.get("text")), _text(entry.get("expandedText"))
            images = ["[image]" for _ in _list(entry.get("imageAttachments"))]
            text = "\n".join(t for t in (typed or expanded, *images) if t)
            if self._add(where, entry, "user", text) and typed and expanded and expanded != typed:
                self.ledger.part_left_out("prompt expanded from what the user typed")
            for shown in (typed, expanded):
                if shown:
                    self.shown[shown] = where
        elif kind == "copilot":
            text = _text(entry.get("text"))
            if self._add(where, entry, "assistant", text):
                self.shown[text] = where
        elif kind == "tool_call_requested":
            if self._add(where, entry, "assistant", self._call(entry)):
                self._remember(entry, where, self.calls)
        elif kind == "tool_call_completed":
            self._completed(where, entry)
        else:
            self.ledger.left_out(where, _entry_reason(entry))

    def _completed(self, where: str, entry: dict[str, Any]) -> None:
        call_id = entry.get("callId")
        result = _dict(entry.get("result"))
        output = result.get("log")
        output = output if isinstance(output, str) else "" if output is None else json.dumps(
            output, ensure_ascii=False, default=str)
        text = tool_result_text(_name(entry), output, result.get("type") == "error", self.limit)
        if not (isinstance(call_id, str) and call_id in self.calls):
            # its request is not in the timeline: the completion, which repeats the call, says it
            self._add(where, entry, "assistant", self._call(entry), record=False)
        if self._add(where, entry, "tool", text):
            self._remember(entry, where, self.results)

    def _call(self, entry: dict[str, Any]) -> str:
        return tool_call_text(_name(entry), _arguments(entry.get("arguments")), self.limit)

    def _remember(self, entry: dict[str, Any], where: str, places: dict[str, str]) -> None:
        call_id = entry.get("callId")
        if isinstance(call_id, str):
            places.setdefault(call_id, where)

    # chatMessages, the model's copy -----------------------------------------------------------

    def copy(self, where: str, message: dict[str, Any]) -> None:
        """A chat message when the timeline is the conversation: merged into the entry it
        copies, or left out."""
        role = message.get("role")
        if role == "system":
            self.ledger.left_out(where, "system prompt")
            return
        calls = [c.get("id") for c in _list(message.get("tool_calls")) if isinstance(c, dict)]
        ids = [c for c in calls if isinstance(c, str)]
        target = None
        call_id = message.get("tool_call_id")
        if role == "tool":
            target = self.results.get(call_id) if isinstance(call_id, str) else None
        elif calls and len(ids) == len(calls) and all(c in self.calls for c in ids):
            target = self.calls[ids[0]]
        else:
            text = _content(message.get("content"))
            target = self.shown.get(text) or next(
                (w for shown, w in self.shown.items() if role == "user" and shown in text), None)
        if target:
            self.ledger.merged(where, f"{target} (the model's copy of it)")
        else:
            self.ledger.left_out(where, _NOT_SHOWN)

    def chat_message(self, where: str, message: dict[str, Any]) -> None:
        """A chat message when it is the only conversation there is."""
        role = message.get("role")
        text = _content(message.get("content"))
        if role == "system":
            self.ledger.left_out(where, "system prompt")
        elif role == "user":
            self._add(where, message, "user", text)
        elif role == "assistant":
            lines = [text]
            for call in _list(message.get("tool_calls")):
                function = _dict(_dict(call).get("function"))
                name = function.get("name") if isinstance(function.get("name"), str) else None
                if isinstance(_dict(call).get("id"), str) and name:
                    self.names[call["id"]] = name
                lines.append(tool_call_text(name, _arguments(function.get("arguments")),
                                            self.limit))
            self._add(where, message, "assistant", "\n".join(line for line in lines if line))
        elif role == "tool":
            call_id = message.get("tool_call_id")
            name = message.get("name") if isinstance(message.get("name"), str) else \
                self.names.get(call_id) if isinstance(call_id, str) else None
            self._add(where, message, "tool", tool_result_text(name, text, False, self.limit))
        else:
            self.ledger.left_out(where, f"{label(role)} message")

    def _add(self, where: str, item: dict[str, Any], role: str, text: str,
             record: bool = True) -> bool:
        """A message from a record (imported, or left out when empty); with `record` False, a
        second message of a record already counted (a completion that stands for its call)."""
        if not text.strip():
            if record:
                self.ledger.left_out(where, EMPTY)
            return False
        own = item.get("id")
        base = own if isinstance(own, str) and own else where.replace("[", "-").rstrip("]")
        message: dict[str, Any] = {"id": base if record else f"{base}-call", "role": role,
                                   "content": text}
        time = parse_time(item.get("timestamp"))
        if time:
            message["time"] = time
        self.messages.append(message)
        if record:
            self.ledger.imported(where)
        return True


def _name(entry: dict[str, Any]) -> str | None:
    for key in ("name", "toolTitle"):
        if isinstance(entry.get(key), str) and entry[key].strip():
            return str(entry[key]).strip()
    return None


def _arguments(value: Any) -> Any:
    """Arguments as given: an object, or the JSON text chat-completions messages hold."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return value
    return value


def _content(value: Any) -> str:
    """A chat message's content: a string, or a list of text parts."""
    if isinstance(value, list):
        value = "\n".join(p["text"] for p in value if isinstance(p, dict)
                          and isinstance(p.get("text"), str))
    return value.strip() if isinstance(value, str) else ""


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
