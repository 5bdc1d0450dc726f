"""GitHub Copilot CLI sessions: `${COPILOT_HOME:-~/.copilot}/session-state/<sessionId>/events.jsonl`,
one session per file, read into the parts of a session record (__init__.py builds the record;
history.py reads the whole-file sessions of releases before the event log).

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
  out and counted. An image attached to a prompt (an `AttachmentBlob` or `AttachmentFile` of an
  image type) stands as `[image]` after its text, so a screenshot sent alone is kept.
- Events of a sub-agent (`agentId`, or the older `parentToolCallId`) are left out and counted:
  the main conversation holds the call that started it and its result. Transient events
  (`ephemeral`) are never meant to be on disk; if one is, it is counted.
- `session.compaction_complete` gives the summary (the last one); `session.snapshot_rewind`
  drops the messages from the event it names onward, when that event is still in the file.
  Every other event type is left out, named by its type.
- Each line is a record (`line N`): a message's line is imported (or left out: a rewound or an
  empty message); `session.start` is the session's metadata, the last title and the last
  compaction summary are imported as the title and the summary (earlier titles merged into it,
  earlier summaries left out); a `tool.execution_start` repeating a call that a message
  requested is merged into that message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["CliSession", "default_roots", "is_event_file", "looks_like_event", "read_events"]

# the families of event types (`session.start`, `tool.execution_complete`, ...) in the schema
_FAMILIES = {"session", "user", "assistant", "tool", "subagent", "hook", "skill", "system",
             "permission", "pending_messages", "user_input", "elicitation", "sampling", "mcp",
             "external_tool", "command", "model", "tool_search", "auto_mode_switch"}
EMPTY = "message left empty"


@dataclass
class CliSession:
    """What a Copilot CLI session holds, before it becomes a session record."""

    session_id: str | None = None
    cwd: str | None = None
    started: str | None = None
    title: str | None = None
    summary: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)


def default_roots(home: Path, env: dict[str, str]) -> list[Path]:
    """`COPILOT_HOME` replaces ~/.copilot; releases up to 0.0.421 kept it under XDG_CONFIG_HOME
    when that was set (github/copilot-cli#1954). Each root's `session-state`, then the
    `history-session-state` of releases before the event log."""
    roots = [Path(env["COPILOT_HOME"]).expanduser() if env.get("COPILOT_HOME")
             else home / ".copilot"]
    if env.get("XDG_CONFIG_HOME"):
        roots.append(Path(env["XDG_CONFIG_HOME"]).expanduser() / ".copilot")
    return [root / name for name in ("session-state", "history-session-state") for root in roots]


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
                ledger: Ledger) -> CliSession:
    reader = _Reader(options.tool_chars, options.thinking, ledger)
    for number, item in items:
        reader.add(number, item)
    if not reader.recognized:
        raise InvalidSession("not a Copilot CLI session: no events with a type and data")
    reader.finish()
    return reader.session


class _Reader:
    """Turns the events, in file order, into messages."""

    def __init__(self, tool_chars: int, thinking: bool, ledger: Ledger) -> None:
        self.tool_chars = tool_chars
        self.thinking = thinking
        self.ledger = ledger
        self.recognized = 0
        self.session = CliSession()
        self.order: dict[str, int] = {}  # event id -> its line, for rewinds
        self.lines: list[tuple[int, str]] = []  # the line each message came from
        self.merged: list[tuple[int, str]] = []  # tool starts merged into a message
        self.titles: list[tuple[str, str]] = []  # (title, line)
        self.summaries: list[tuple[str, str]] = []  # (summary, line)
        self.tool_names: dict[str, str] = {}
        self.requested: dict[str, str] = {}  # tool call id -> the line of the message asking
        self.reasoning: set[str] = set()  # thoughts already shown as their own event

    def add(self, number: int, item: Any) -> None:
        where = f"line {number}"
        if not looks_like_event(item):
            self.ledger.left_out(where, "line that is not an event")
            return
        self.recognized += 1
        kind, data = item["type"], item["data"]
        if isinstance(item.get("id"), str):
            self.order.setdefault(item["id"], number)
        if item.get("ephemeral") is True:
            self.ledger.left_out(where, "transient event")
        elif item.get("agentId") or data.get("parentToolCallId"):
            self.ledger.left_out(where, "sub-agent event")
        elif kind == "session.start" or kind == "session.resume":
            self._start(data, where)
        elif kind == "session.title_changed" and isinstance(data.get("title"), str):
            if data["title"].strip():
                self.titles.append((data["title"].strip(), where))
            else:
                self.ledger.left_out(where, "empty title")
        elif kind == "session.compaction_complete":
            summary = _text(data.get("summaryContent"))
            if summary:
                self.summaries.append((summary, where))
            else:
                self.ledger.left_out(where, "compaction")
        elif kind == "session.snapshot_rewind":
            self._rewind(data.get("upToEventId"), where)
        elif kind == "user.message":
            self._user(number, where, item, data)
        elif kind == "assistant.message":
            self._assistant(number, where, item, data)
        elif kind == "assistant.reasoning":
            self._thought(number, where, item, data.get("content"))
        elif kind == "tool.execution_start":
            self._tool_start(number, where, item, data)
        elif kind == "tool.execution_complete":
            self._tool_result(number, where, item, data)
        else:
            self.ledger.left_out(where, f"event {label(kind)}")

    def finish(self) -> None:
        """The title and the summary: the last of each; earlier titles are merged into it,
        earlier summaries (of an older compaction) left out."""
        for _, where in self.titles[:-1]:
            self.ledger.merged(where, "a later title")
        if self.titles:
            self.session.title, where = self.titles[-1]
            self.ledger.imported(where, "the session's title")
        for _, where in self.summaries[:-1]:
            self.ledger.left_out(where, "compaction (an older summary)")
        if self.summaries:
            self.session.summary, where = self.summaries[-1]
            self.ledger.imported(where, "the session's summary")

    def _start(self, data: dict[str, Any], where: str) -> None:
        self.ledger.imported(where, "session metadata")
        if self.session.session_id is None and isinstance(data.get("sessionId"), str):
            self.session.session_id = data["sessionId"]
        if self.session.started is None and isinstance(data.get("startTime"), str):
            self.session.started = data["startTime"]
        cwd = _dict(data.get("context")).get("cwd")
        if self.session.cwd is None and isinstance(cwd, str) and cwd.strip():
            self.session.cwd = cwd.strip()

    def _user(self, number: int, where: str, item: dict[str, Any], data: dict[str, Any]) -> None:
        source = data.get("source")
        if data.get("isAutopilotContinuation") is True or (
                isinstance(source, str) and source.startswith("skill-")):
            self.ledger.left_out(where, "prompt the CLI injected")
            return
        images = ["[image]" for a in _list(data.get("attachments"))
                  if isinstance(a, dict) and _is_image(a)]
        text = "\n".join(t for t in (_text(data.get("content")), *images) if t)
        self._message(number, where, item, "user", text)

    def _assistant(self, number: int, where: str, item: dict[str, Any],
                   data: dict[str, Any]) -> None:
        lines = []
        thought = _text(data.get("reasoningText"))
        hidden_thought = bool(thought) and thought not in self.reasoning and not self.thinking
        if thought and thought not in self.reasoning and self.thinking:
            lines.append(f"[thinking] {thought}")
        lines.append(_text(data.get("content")))
        for request in _list(data.get("toolRequests")):
            if not isinstance(request, dict):
                continue
            call_id, name = request.get("toolCallId"), request.get("name")
            if isinstance(call_id, str):
                self.requested[call_id] = where
                if isinstance(name, str):
                    self.tool_names[call_id] = name
            lines.append(tool_call_text(name, request.get("arguments"), self.tool_chars))
        if self._message(number, where, item, "assistant", "\n".join(x for x in lines if x)) \
                and hidden_thought:
            self.ledger.part_left_out("reasoning")

    def _thought(self, number: int, where: str, item: dict[str, Any], content: Any) -> None:
        thought = _text(content)
        if not thought:
            self.ledger.left_out(where, EMPTY)
            return
        self.reasoning.add(thought)
        if self.thinking:
            self._message(number, where, item, "assistant", f"[thinking] {thought}")
        else:
            self.ledger.left_out(where, "reasoning")

    def _tool_start(self, number: int, where: str, item: dict[str, Any],
                    data: dict[str, Any]) -> None:
        call_id, name = data.get("toolCallId"), data.get("toolName")
        if isinstance(call_id, str) and isinstance(name, str):
            self.tool_names.setdefault(call_id, name)
        if isinstance(call_id, str) and call_id in self.requested:
            self.ledger.merged(where, f"the tool call requested on {self.requested[call_id]}")
            self.merged.append((number, where))
            return
        self._message(number, where, item, "assistant",
                      tool_call_text(name, data.get("arguments"), self.tool_chars))

    def _tool_result(self, number: int, where: str, item: dict[str, Any],
                     data: dict[str, Any]) -> None:
        call_id = data.get("toolCallId")
        name = self.tool_names.get(call_id) if isinstance(call_id, str) else None
        failed = data.get("success") is False
        result, error = _dict(data.get("result")), _dict(data.get("error"))
        output = _text(result.get("content")) or _text(result.get("detailedContent"))
        if failed or not output:
            output = _text(error.get("message")) or output
        self._message(number, where, item, "tool",
                      tool_result_text(name, output, failed, self.tool_chars))

    def _rewind(self, target: Any, where: str) -> None:
        line = self.order.get(target) if isinstance(target, str) else None
        if line is None:  # already cut from the file, or never in it
            self.ledger.left_out(where, "rewind to an event not in the file")
            return
        self.ledger.left_out(where, "rewind marker (applied)")
        keep = sum(1 for at, _ in self.lines if at < line)
        for _, dropped in self.lines[keep:] + [m for m in self.merged if m[0] >= line]:
            self.ledger.left_out(dropped, "rewound message")
        del self.session.messages[keep:], self.lines[keep:]
        self.merged = [m for m in self.merged if m[0] < line]

    def _message(self, number: int, where: str, item: dict[str, Any], role: str,
                 text: str) -> bool:
        if not text.strip():
            self.ledger.left_out(where, EMPTY)
            return False
        own = item.get("id")
        message = {"id": own if isinstance(own, str) and own else f"l{number}", "role": role,
                   "content": text}
        if isinstance(item.get("timestamp"), str):
            message["time"] = item["timestamp"]
        self.session.messages.append(message)
        self.lines.append((number, where))
        self.ledger.imported(where)
        return True


def _is_image(attachment: dict[str, Any]) -> bool:
    """An image attached to a prompt: a pasted or dropped screenshot (`blob` of an image type),
    or a file whose name says it is one."""
    mime = attachment.get("mimeType")
    if isinstance(mime, str) and mime.startswith("image/"):
        return True
    name = attachment.get("path") or attachment.get("displayName")
    return attachment.get("type") in ("file", "blob") and isinstance(name, str) and \
        name.lower().endswith((".png", ".jpg", ".jpeg", ".gif", ".webp"))


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
