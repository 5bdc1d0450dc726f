"""GitHub Copilot CLI sessions: `${COPILOT_HOME:-~/.copilot}/session-state/<sessionId>/events.jsonl`,
one session per file, read into the parts of a session record (copilot.py builds the record).

The CLI is closed source; the event shapes are those of its published schema, which the Copilot
SDK generates its types from (github/copilot-sdk, nodejs/src/generated/session-events.ts). Each
line is `{type, data, id, timestamp, parentId, agentId?, ephemeral?}`. Choices:

- `session.start` gives the id, the start time and the working folder (`context.cwd`), whose
  last part is the session's topic; `session.title_changed` the title (else the first prompt).
- `user.message` and `assistant.message` are the conversation. An assistant message's
  `toolRequests` become `[tool: name] args` lines; `tool.execution_complete` gives a `tool`
  message with the result (its model-facing `content`, or the error) cut to `tool_chars`;
  `tool.execution_start` only repeats a requested call, and stands in for it when no message
  requested it. Reasoning (`assistant.reasoning`, a message's `reasoningText`) is left out
  unless asked for. Prompts the CLI injects (an autopilot continuation, a hidden skill) are left
  out and counted.
- Events of a sub-agent (`agentId`, or the older `parentToolCallId`) are left out and counted:
  the main conversation holds the call that started it and its result. Transient events
  (`ephemeral`) are never meant to be on disk; if one is, it is counted.
- `session.compaction_complete` gives the summary (the last one); `session.snapshot_rewind`
  drops the messages from the event it names onward, when that event is still in the file.
  Every other event type is counted by type.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from models import InvalidSession

__all__ = ["CliSession", "default_roots", "is_event_file", "looks_like_event", "read_events"]

# the families of event types (`session.start`, `tool.execution_complete`, ...) in the schema
_FAMILIES = {"session", "user", "assistant", "tool", "subagent", "hook", "skill", "system",
             "permission", "pending_messages", "user_input", "elicitation", "sampling", "mcp",
             "external_tool", "command", "model", "tool_search", "auto_mode_switch"}


@dataclass
class CliSession:
    """What a Copilot CLI event log holds, before it becomes a session record."""

    session_id: str | None = None
    cwd: str | None = None
    started: str | None = None
    title: str | None = None
    summary: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)


def default_roots(home: Path, env: dict[str, str]) -> list[Path]:
    """`COPILOT_HOME` replaces ~/.copilot; releases up to 0.0.421 kept it under XDG_CONFIG_HOME
    when that was set (github/copilot-cli#1954)."""
    roots = [Path(env["COPILOT_HOME"]).expanduser() if env.get("COPILOT_HOME")
             else home / ".copilot"]
    if env.get("XDG_CONFIG_HOME"):
        roots.append(Path(env["XDG_CONFIG_HOME"]).expanduser() / ".copilot")
    return [root / "session-state" for root in roots]


def is_event_file(path: Path) -> bool:
    """`session-state/<id>/events.jsonl`, or a `session-state/<id>.jsonl` of early releases."""
    if path.name == "events.jsonl":
        return path.parent.parent.name == "session-state"
    return path.suffix == ".jsonl" and path.parent.name == "session-state"


def looks_like_event(item: Any) -> bool:
    """One line of the CLI's event log: a typed event of a known family with its data."""
    if not isinstance(item, dict) or not isinstance(item.get("data"), dict):
        return False
    kind = item.get("type")
    return (isinstance(kind, str) and kind.split(".", 1)[0] in _FAMILIES and "." in kind
            and isinstance(item.get("timestamp"), str) and "id" in item)


def read_events(items: list[tuple[int, Any]], options: ImportOptions,
                skipped: Counter[str]) -> CliSession:
    reader = _Reader(options.tool_chars, options.thinking, skipped)
    for number, item in items:
        reader.add(number, item)
    if not reader.recognized:
        raise InvalidSession("not a Copilot CLI session: no events with a type and data")
    return reader.session


class _Reader:
    """Turns the events, in file order, into messages."""

    def __init__(self, tool_chars: int, thinking: bool, skipped: Counter[str]) -> None:
        self.tool_chars = tool_chars
        self.thinking = thinking
        self.skipped = skipped
        self.recognized = 0
        self.session = CliSession()
        self.order: dict[str, int] = {}  # event id -> its line, for rewinds
        self.lines: list[int] = []  # the line each message came from
        self.tool_names: dict[str, str] = {}
        self.requested: set[str] = set()  # tool calls an assistant message already shows
        self.reasoning: set[str] = set()  # thoughts already shown as their own event

    def add(self, number: int, item: Any) -> None:
        if not looks_like_event(item):
            self.skipped["line that is not an event"] += 1
            return
        self.recognized += 1
        kind, data = item["type"], item["data"]
        if isinstance(item.get("id"), str):
            self.order.setdefault(item["id"], number)
        if item.get("ephemeral") is True:
            self.skipped["transient event"] += 1
        elif item.get("agentId") or data.get("parentToolCallId"):
            self.skipped["sub-agent event"] += 1
        elif kind == "session.start" or kind == "session.resume":
            self._start(data)
        elif kind == "session.title_changed" and isinstance(data.get("title"), str):
            self.session.title = data["title"].strip() or self.session.title
        elif kind == "session.compaction_complete":
            if isinstance(data.get("summaryContent"), str) and data["summaryContent"].strip():
                self.session.summary = data["summaryContent"].strip()
            self.skipped["compaction"] += 1
        elif kind == "session.snapshot_rewind":
            self._rewind(data.get("upToEventId"))
        elif kind == "user.message":
            self._user(number, item, data)
        elif kind == "assistant.message":
            self._assistant(number, item, data)
        elif kind == "assistant.reasoning":
            self._thought(number, item, data.get("content"))
        elif kind == "tool.execution_start":
            self._tool_start(number, item, data)
        elif kind == "tool.execution_complete":
            self._tool_result(number, item, data)
        else:
            self.skipped[f"event {label(kind)}"] += 1

    def _start(self, data: dict[str, Any]) -> None:
        if self.session.session_id is None and isinstance(data.get("sessionId"), str):
            self.session.session_id = data["sessionId"]
        if self.session.started is None and isinstance(data.get("startTime"), str):
            self.session.started = data["startTime"]
        cwd = _dict(data.get("context")).get("cwd")
        if self.session.cwd is None and isinstance(cwd, str) and cwd.strip():
            self.session.cwd = cwd.strip()

    def _user(self, number: int, item: dict[str, Any], data: dict[str, Any]) -> None:
        source = data.get("source")
        if data.get("isAutopilotContinuation") is True or (
                isinstance(source, str) and source.startswith("skill-")):
            self.skipped["prompt the CLI injected"] += 1
            return
        self._message(number, item, "user", _text(data.get("content")))

    def _assistant(self, number: int, item: dict[str, Any], data: dict[str, Any]) -> None:
        lines = []
        thought = _text(data.get("reasoningText"))
        if thought and thought not in self.reasoning:
            if self.thinking:
                lines.append(f"[thinking] {thought}")
            else:
                self.skipped["reasoning"] += 1
        lines.append(_text(data.get("content")))
        for request in data.get("toolRequests") or []:
            if not isinstance(request, dict):
                continue
            call_id, name = request.get("toolCallId"), request.get("name")
            if isinstance(call_id, str):
                self.requested.add(call_id)
                if isinstance(name, str):
                    self.tool_names[call_id] = name
            lines.append(tool_call_text(name, request.get("arguments"), self.tool_chars))
        self._message(number, item, "assistant", "\n".join(line for line in lines if line))

    def _thought(self, number: int, item: dict[str, Any], content: Any) -> None:
        thought = _text(content)
        if not thought:
            self.skipped["message left empty"] += 1
        elif self.thinking:
            self.reasoning.add(thought)
            self._message(number, item, "assistant", f"[thinking] {thought}")
        else:
            self.reasoning.add(thought)
            self.skipped["reasoning"] += 1

    def _tool_start(self, number: int, item: dict[str, Any], data: dict[str, Any]) -> None:
        call_id, name = data.get("toolCallId"), data.get("toolName")
        if isinstance(call_id, str) and isinstance(name, str):
            self.tool_names.setdefault(call_id, name)
        if isinstance(call_id, str) and call_id in self.requested:
            self.skipped["tool start repeating a requested call"] += 1
            return
        self._message(number, item, "assistant",
                      tool_call_text(name, data.get("arguments"), self.tool_chars))

    def _tool_result(self, number: int, item: dict[str, Any], data: dict[str, Any]) -> None:
        call_id = data.get("toolCallId")
        name = self.tool_names.get(call_id) if isinstance(call_id, str) else None
        failed = data.get("success") is False
        result, error = _dict(data.get("result")), _dict(data.get("error"))
        output = _text(result.get("content")) or _text(result.get("detailedContent"))
        if failed or not output:
            output = _text(error.get("message")) or output
        self._message(number, item, "tool",
                      tool_result_text(name, output, failed, self.tool_chars))

    def _rewind(self, target: Any) -> None:
        line = self.order.get(target) if isinstance(target, str) else None
        if line is None:  # already cut from the file, or never in it
            self.skipped["rewind to an event not in the file"] += 1
            return
        keep = sum(1 for at in self.lines if at < line)
        self.skipped["rewound message"] += len(self.lines) - keep
        del self.session.messages[keep:], self.lines[keep:]

    def _message(self, number: int, item: dict[str, Any], role: str, text: str) -> None:
        if not text.strip():
            self.skipped["message left empty"] += 1
            return
        own = item.get("id")
        message = {"id": own if isinstance(own, str) and own else f"l{number}", "role": role,
                   "content": text}
        if isinstance(item.get("timestamp"), str):
            message["time"] = item["timestamp"]
        self.session.messages.append(message)
        self.lines.append(number)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
