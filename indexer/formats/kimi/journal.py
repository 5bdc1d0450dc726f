"""The journal of a Kimi Code agent (`~/.kimi-code/sessions/<workdir bucket>/<session
id>/agents/<agent id>/wire.jsonl`), the successor of Kimi CLI's wire log, read into messages
with each line's fate (__init__.py says which file is a session's).

After the header (`{"type": "metadata", "protocol_version", "created_at"}`) a record is
`{"type", ...payload, "time": <epoch ms>}` (packages/agent-core-v2/docs/wire-manifest.d.ts of
MoonshotAI/kimi-code @ d723cc47ee43e5ca3c3c4ec2473f205d44acede2). What the user typed is
`turn.prompt` / `turn.steer` (`input`: content parts, `origin`), copied into the model's context
by the `context.append_message` after it; the reply is the loop's events,
`context.append_loop_event` with `event` `step.begin`, `content.part`, `tool.call` (`toolCallId`,
`name`, `args`), `tool.result` (`result{output, isError}`) and `step.end`
(agent/contextMemory/loopEventFold.ts). The 50 other record types (config, permissions,
tokens, plans, tasks, ...) hold no words of the conversation and are counted by type.
"""

from __future__ import annotations

from typing import Any

from indexer.formats.common import ImportOptions, label
from indexer.formats.kimi.wire import Reader
from indexer.formats.ledger import Ledger
from models import parse_time

__all__ = ["CONVERSATION", "JournalReader", "is_journal_record"]

CONVERSATION = {"turn.prompt", "turn.steer", "context.append_loop_event",
                "context.append_message"}
# what the user typed, or ran as a command; other origins are the agent's own prompts
_TYPED = {"user", "skill_activation", "plugin_command", "shell_command"}
_MARKERS = {"step.begin", "step.end"}


def is_journal_record(item: Any) -> bool:
    """A record of a Kimi Code journal that holds conversation."""
    return (isinstance(item, dict) and isinstance(item.get("type"), str)
            and item["type"] in CONVERSATION
            and isinstance(item.get("time"), int | float) and not isinstance(item["time"], bool))


class JournalReader(Reader):
    """Kimi Code's records, in the message shapes Kimi CLI's reader builds."""

    def __init__(self, options: ImportOptions, ledger: Ledger) -> None:
        super().__init__(options, ledger)
        self.cwd: str | None = None
        self.last_prompt: str | None = None  # where the prompt the context copies was read

    def add(self, number: int, item: Any) -> None:
        where = f"line {number}"
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "metadata":
            self.recognized += 1
            self.ledger.left_out(where, "log header (protocol version)")
            return
        if not isinstance(item, dict) or not isinstance(kind, str):
            self.ledger.left_out(where, "not a journal record")
            return
        self.recognized += 1
        time = parse_time(item.get("time"))
        if kind in ("turn.prompt", "turn.steer"):
            self.prompt(where, item, time)
        elif kind == "context.append_message":
            self.context_copy(where, item)
        elif kind == "context.append_loop_event" and isinstance(item.get("event"), dict):
            self.loop_event(where, item["event"], time)
        elif kind == "config.update":
            self.cwd = self.cwd or _cwd(item)
            self.ledger.left_out(where, "record type config.update")
        else:
            self.ledger.left_out(where, f"record type {label(kind)}")

    def prompt(self, where: str, item: dict[str, Any], time: str | None) -> None:
        self.finish_reply()
        origin = item.get("origin")
        origin = origin.get("kind") if isinstance(origin, dict) else origin
        if origin is not None and not (isinstance(origin, str) and origin in _TYPED):
            self.ledger.left_out(where, f"prompt the agent sent ({label(origin)})")
            self.last_prompt = None
            return
        self.user(where, item.get("input"), time)
        kept = self.messages and self.messages[-1]["id"] == where.replace(" ", "-")
        self.last_prompt = where if kept else None

    def context_copy(self, where: str, item: dict[str, Any]) -> None:
        """The model's copy of a message: the user's prompt again, or context Kimi added."""
        message = item["message"] if isinstance(item.get("message"), dict) else {}
        if message.get("role") == "user" and self.last_prompt is not None:
            self.ledger.merged(where, f"the prompt of {self.last_prompt}")
            self.last_prompt = None
        else:
            self.ledger.left_out(where, f"context message ({label(message.get('role'))})")

    def loop_event(self, where: str, event: dict[str, Any], time: str | None) -> None:
        kind = event.get("type")
        self.last_prompt = None
        if kind == "content.part" and isinstance(event.get("part"), dict):
            self.content(where, event["part"], time)
        elif kind == "tool.call":
            self.tool_call(where, {"id": event.get("toolCallId"), "function": {
                "name": event.get("name"), "arguments": event.get("args")}}, time)
        elif kind == "tool.result":
            self.finish_reply()
            result = event["result"] if isinstance(event.get("result"), dict) else {}
            self.tool_result(where, {"tool_call_id": event.get("toolCallId"), "return_value": {
                "output": result.get("output"), "is_error": result.get("isError"),
                "message": result.get("note")}}, time)
        elif isinstance(kind, str) and kind in _MARKERS:
            self.finish_reply()  # a step is one call of the model: one reply
            self.ledger.left_out(where, "turn and step markers")
        else:
            self.ledger.left_out(where, f"unknown loop event {label(kind)}")


def _cwd(item: dict[str, Any]) -> str | None:
    """The working folder a config record names (`cwd`, or the environment disclosed)."""
    disclosed = item.get("environmentDisclosure")
    for value in (item.get("cwd"), disclosed.get("cwd") if isinstance(disclosed, dict) else None):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None

