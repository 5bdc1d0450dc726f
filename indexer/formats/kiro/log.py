"""Kiro CLI's session log, `~/.kiro/sessions/cli/<id>.jsonl`, replayed into the archive's
messages the way the agent replays it (crates/agent/src/agent/event_log.rs, `LogEntry::apply`,
aws/amazon-q-developer-cli at 16d05aa5, release 1.28.3).

Each line is `{"version": "v1", "kind": K, "data": {...}}`:

- `Prompt` {message_id, content, meta?: {timestamp}}: what the user sent (later releases stamp it
  with epoch seconds); `AssistantMessage` {message_id, content}: text, `toolUse` blocks and, in
  later releases, `thinking` blocks (kept only with --thinking); `ToolResults` {message_id,
  content: `toolResult` blocks, results}: the tools' outputs, a `tool` message cut to tool_chars.
- `ResetTo` {target_index} rewinds the conversation to the log's first target_index entries: the
  messages of later entries are dropped (left out, "rewound message"); `CancelledPrompt` drops the
  last prompt when nothing answered it. Both markers are left out once applied.
- `Compaction` {summary, messages_snapshot} and `Clear` change only what the model is sent next:
  the archive keeps what was said, so the messages before them stay; a compaction's summary is
  the session's summary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.ledger import Ledger
from models import parse_time

__all__ = ["KINDS", "Replay", "looks_like", "replay"]

KINDS = frozenset({"Prompt", "AssistantMessage", "ToolResults", "Compaction", "ResetTo",
                   "CancelledPrompt", "Clear"})
_MARKERS = {"Clear": "clear marker (the archive keeps what came before)",
            "Compaction": "compaction marker"}


def looks_like(item: Any) -> bool:
    """A line only Kiro CLI's session log has: a v1 entry of one of its kinds."""
    return (isinstance(item, dict) and item.get("version") == "v1"
            and isinstance(item.get("kind"), str) and item["kind"] in KINDS)


@dataclass
class _Kept:
    entry: int  # the entry's place among the log's entries (what ResetTo counts)
    where: str
    messages: list[dict[str, Any]]
    prompt: bool  # a Prompt's message, which CancelledPrompt may take back


@dataclass
class Replay:
    """The log replayed: the messages kept, by entry, and the last compaction's summary."""

    ledger: Ledger
    options: ImportOptions
    kept: list[_Kept] = field(default_factory=list)
    tool_names: dict[str, str] = field(default_factory=dict)
    summary: str | None = None

    def messages(self) -> list[dict[str, Any]]:
        return [m for k in self.kept for m in k.messages]

    def apply(self, entry: int, item: Any, where: str) -> None:
        kind = item.get("kind") if isinstance(item, dict) else None
        kind = kind if isinstance(kind, str) else None
        data = item.get("data") if isinstance(item, dict) else None
        data = data if isinstance(data, dict) else {}
        if not isinstance(item, dict):
            self.ledger.left_out(where, "non-object line")
        elif kind == "Prompt":
            self._keep(entry, where, self._prompt(data, entry), prompt=True)
        elif kind == "AssistantMessage":
            self._keep(entry, where, self._answer(data, entry), prompt=False)
        elif kind == "ToolResults":
            self._keep(entry, where, self._results(data, entry), prompt=False)
        elif kind == "ResetTo":
            self.ledger.left_out(where, "reset marker (applied)")
            self._reset(data.get("target_index"))
        elif kind == "CancelledPrompt":
            self.ledger.left_out(where, "cancel marker (applied)")
            if self.kept and self.kept[-1].prompt:
                self.ledger.left_out(self.kept.pop().where, "prompt cancelled before an answer")
        elif kind == "Compaction" and isinstance(data.get("summary"), str) \
                and data["summary"].strip():
            self.summary = data["summary"].strip()
            self.ledger.imported(where, "session summary")
        elif kind in _MARKERS:
            self.ledger.left_out(where, _MARKERS[kind])
        else:
            self.ledger.left_out(where, f"unknown entry kind {label(kind)}")

    def _keep(self, entry: int, where: str, messages: list[dict[str, Any]], prompt: bool) -> None:
        if messages:
            self.ledger.imported(where)
            self.kept.append(_Kept(entry, where, messages, prompt))
        else:
            self.ledger.left_out(where, "message left empty")

    def _reset(self, target: Any) -> None:
        if isinstance(target, bool) or not isinstance(target, int):
            return
        while self.kept and self.kept[-1].entry >= target:
            self.ledger.left_out(self.kept.pop().where, "rewound message")

    def _prompt(self, data: dict[str, Any], entry: int) -> list[dict[str, Any]]:
        text = "\n".join(self._texts(data.get("content")))
        meta = _object(data.get("meta"))
        return _message(data, entry, "user", text, parse_time(meta.get("timestamp")))

    def _answer(self, data: dict[str, Any], entry: int) -> list[dict[str, Any]]:
        lines = []
        for block in _blocks(data.get("content")):
            kind, value = block.get("kind"), block.get("data")
            if kind == "toolUse" and isinstance(value, dict):
                name = value.get("name")
                if isinstance(value.get("toolUseId"), str) and isinstance(name, str):
                    self.tool_names[value["toolUseId"]] = name
                lines.append(tool_call_text(name, value.get("input"), self.options.tool_chars))
            elif kind == "thinking":
                thought = _thinking_text(value)
                if self.options.thinking and thought:
                    lines.append(f"[thinking] {thought}")
                else:
                    self.ledger.part_left_out("thinking")
            else:
                lines += self._texts([block])
        return _message(data, entry, "assistant", "\n".join(lines), None)

    def _results(self, data: dict[str, Any], entry: int) -> list[dict[str, Any]]:
        lines = []
        for block in _blocks(data.get("content")):
            value = block.get("data")
            if block.get("kind") != "toolResult" or not isinstance(value, dict):
                lines += self._texts([block])
                continue
            tool_id = value.get("toolUseId")
            name = self.tool_names.get(tool_id) if isinstance(tool_id, str) else None
            output = "\n".join(_result_texts(value.get("content")))
            lines.append(tool_result_text(name, output, value.get("status") == "error",
                                          self.options.tool_chars))
        return _message(data, entry, "tool", "\n".join(lines), None)

    def _texts(self, content: Any) -> list[str]:
        """The text of text blocks; an image stands as a marker; other blocks are counted."""
        out = []
        for block in _blocks(content):
            kind, value = block.get("kind"), block.get("data")
            if kind == "text" and isinstance(value, str):
                out.append(value)
            elif kind == "image":
                out.append("[image]")
            else:
                self.ledger.part_left_out(f"{label(kind)} block")
        return out


def replay(items: list[tuple[int, Any]], options: ImportOptions, ledger: Ledger) -> Replay:
    state = Replay(ledger, options)
    for entry, (number, item) in enumerate(items):
        state.apply(entry, item, f"line {number}")
    return state


def _message(data: dict[str, Any], entry: int, role: str, text: str,
             time: str | None) -> list[dict[str, Any]]:
    if not text.strip():
        return []
    own = data.get("message_id")
    message_id = own if isinstance(own, str) and own.strip() else f"e{entry}"
    message: dict[str, Any] = {"id": message_id, "role": role, "content": text.strip()}
    if time:
        message["time"] = time
    return [message]


def _object(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one (a field of the wrong type)."""
    return value if isinstance(value, dict) else {}


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _thinking_text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    text = value.get("text") if isinstance(value, dict) else None
    return text.strip() if isinstance(text, str) else ""


def _result_texts(content: Any) -> list[str]:
    """A tool result's pieces: text as it is, JSON as compact JSON, an image as a marker."""
    out = []
    for block in _blocks(content):
        kind, value = block.get("kind"), block.get("data")
        if kind == "text" and isinstance(value, str):
            out.append(value)
        elif kind == "json":
            out.append(_json_text(value))
        elif kind == "image":
            out.append("[image]")
    return out


def _json_text(value: Any) -> str:
    """A JSON result as text: a shell's stdout and stderr (its `{exit_status, stdout, stderr}`),
    anything else as compact JSON."""
    if isinstance(value, dict) and isinstance(value.get("stdout"), str):
        streams = [value["stdout"], value.get("stderr") or ""]
        return "\n".join(s for s in streams if isinstance(s, str) and s.strip())
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
