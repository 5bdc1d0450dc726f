"""The lines of a Grok Build session's `updates.jsonl`, in order, as the session's messages, each
line given its fate (__init__.py says where the file is and what is kept).

A line is `{"timestamp": <epoch seconds>, "method": "session/update" | "_x.ai/session/update",
"params": {"sessionId", "update": {"sessionUpdate": <kind>, ...}}}` (SessionUpdateEnvelope in
crates/codegen/xai-grok-shell/src/session/storage/mod.rs of xai-org/grok-build @
19d42e35c07a9c9244f03f6df0c4c353f970d4f9). Messages are made as Grok's own `ChatReducer` there
makes them: a run of user chunks is one prompt, agent chunks and tool calls one reply, a tool
call's completed (or failed) update its result; a chunk marked `_meta.hostTurn` only ends a turn.
A `rewind_marker` (extensions/notification.rs) abandons the turns after `target_prompt_index`
(0-based, inclusive: `truncate_for_prompt_by`): they are left out as a branch left behind.
"""

from __future__ import annotations

import json
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.ledger import Ledger
from models import parse_time

__all__ = ["METHODS", "Reader", "is_update"]

METHODS = ("session/update", "_x.ai/session/update")
_DONE = {"completed": False, "failed": True}  # a tool call's final status: is it an error
# updates of the interface that hold no words of the conversation
_EVENTS = {"plan": "plan", "available_commands_update": "interface state",
           "current_mode_update": "interface state", "config_option_update": "interface state",
           "session_info_update": "interface state", "usage_update": "usage",
           "compaction_checkpoint": "compaction marker", "turn_completed": "turn marker",
           "retry_state": "retry notice", "model_changed": "interface state",
           "git_branch_update": "interface state", "goal_updated": "interface state",
           "hook_annotation": "hook event", "pending_interaction": "question to the user",
           "interaction_resolved": "question to the user", "diff_review": "diff review",
           "memory_flush_started": "memory event", "memory_flush_completed": "memory event",
           "auto_compact_started": "compaction marker", "auto_compact_failed": "compaction marker",
           "auto_compact_cancelled": "compaction marker", "task_backgrounded": "background task",
           "task_completed": "background task", "message_delta": "interface state",
           "tool_call_delta_chunk": "tool call fragment",
           # a sub-agent's own session is a session directory of its own
           "subagent_spawned": "sub-agent event", "subagent_finished": "sub-agent event"}
_MEDIA = {"image": "[image]", "image_url": "[image]", "audio": "[audio]"}


def is_update(item: Any) -> bool:
    """One line of `updates.jsonl`."""
    params = item.get("params") if isinstance(item, dict) else None
    update = params.get("update") if isinstance(params, dict) else None
    return (isinstance(item, dict) and item.get("method") in METHODS
            and isinstance(update, dict) and isinstance(update.get("sessionUpdate"), str))


class Reader:
    """Turns the session's updates into messages, giving each line its fate."""

    def __init__(self, options: ImportOptions, ledger: Ledger) -> None:
        self.options = options
        self.ledger = ledger
        self.messages: list[dict[str, Any]] = []  # each with its turn and lines until the end
        self.turn = -1  # the prompt being answered, 0-based
        self.open: dict[str, Any] | None = None  # the message being written
        self.thought: list[str] = []  # agent_thought_chunks not yet placed in the reply
        self.tools: dict[str, str] = {}  # tool call id: its title
        self.finished: set[str] = set()
        self.recognized = 0

    def add(self, number: int, item: Any) -> None:
        where = f"line {number}"
        if not is_update(item):
            self.ledger.left_out(where, "not a session update")
            return
        self.recognized += 1
        update = item["params"]["update"]
        kind, time = update["sessionUpdate"], parse_time(item.get("timestamp"))
        if kind == "user_message_chunk":
            self.user_chunk(where, update, time)
        elif kind == "agent_message_chunk":
            self.agent_chunk(where, update, time)
        elif kind == "agent_thought_chunk":
            self.thought_chunk(where, update)
        elif kind == "tool_call":
            self.tool_call(where, update, time)
        elif kind == "tool_call_update":
            self.tool_update(where, update, time)
        elif kind == "rewind_marker":
            self.rewind(where, update.get("target_prompt_index"))
        elif kind in _EVENTS:
            self.ledger.left_out(where, _EVENTS[kind])
        else:
            self.ledger.left_out(where, f"unknown update type {label(kind)}")

    def user_chunk(self, where: str, update: dict[str, Any], time: str | None) -> None:
        if _dict(update.get("_meta")).get("hostTurn") is True:  # a turn boundary, no words
            self.close()
            self.ledger.left_out(where, "host turn marker")
            return
        text = _block_text(update.get("content"))
        if self.open is None or self.open["role"] != "user":
            self.close()
            self.drop_thoughts()
            self.turn += 1
        self.piece(where, "user", text, time)

    def agent_chunk(self, where: str, update: dict[str, Any], time: str | None) -> None:
        self.reply_opened(time)
        self.piece(where, "assistant", _block_text(update.get("content")), time)

    def thought_chunk(self, where: str, update: dict[str, Any]) -> None:
        text = _block_text(update.get("content"))
        if not self.options.thinking or not text.strip():
            self.ledger.left_out(where, "thinking")
            return
        self.thought.append(where)
        self.thought.append(text)

    def tool_call(self, where: str, update: dict[str, Any], time: str | None) -> None:
        call_id = update.get("toolCallId")
        # the tool's own name where Grok adds it (`toolName`), else ACP's title or kind
        name = next((v for v in (update.get("toolName"), update.get("title"), update.get("kind"))
                     if isinstance(v, str) and v.strip()), None)
        if isinstance(call_id, str):
            self.tools[call_id] = str(name or "tool")
        self.reply_opened(time)
        text = tool_call_text(name, update.get("rawInput"), self.options.tool_chars)
        self.piece(where, "assistant", f"\n{text}\n", time)

    def tool_update(self, where: str, update: dict[str, Any], time: str | None) -> None:
        call_id = update.get("toolCallId")
        status = update.get("status")
        if (not isinstance(call_id, str) or not isinstance(status, str) or status not in _DONE
                or call_id in self.finished):
            self.ledger.left_out(where, "tool progress update")
            return
        self.finished.add(call_id)
        self.close()
        output = _tool_output(update)
        self.open = {"id": where.replace(" ", "-"), "role": "tool", "time": time,
                     "turn": self.turn, "lines": [where],
                     "text": tool_result_text(self.tools.get(call_id), output,
                                              _DONE[status], self.options.tool_chars)}
        self.ledger.imported(where)
        self.close()

    def rewind(self, where: str, target: Any) -> None:
        """Back to the end of prompt `target`: the later turns are a branch left behind."""
        self.close()
        self.drop_thoughts()
        if not isinstance(target, int) or isinstance(target, bool) or target < 0:
            self.ledger.left_out(where, "rewind marker without a prompt index")
            return
        kept = [m for m in self.messages if m["turn"] <= target]
        for message in self.messages[len(kept):]:
            for place in message["lines"]:
                self.ledger.left_out(place, "rewound turn (a branch left behind)")
        self.messages, self.turn = kept, min(self.turn, target)
        self.ledger.left_out(where, "rewind marker")

    def reply_opened(self, time: str | None) -> None:
        if self.open is not None and self.open["role"] != "assistant":
            self.close()

    def piece(self, where: str, role: str, text: str, time: str | None) -> None:
        """A chunk of the message being written: the first line is the message, the others
        (and the thoughts read before a reply's chunk) are merged into it."""
        if self.open is None:
            self.open = {"id": where.replace(" ", "-"), "role": role, "time": time,
                         "turn": max(self.turn, 0), "lines": [], "text": ""}
            self.ledger.imported(where)
        else:
            self.ledger.merged(where, f"the message of {self.open['id'].replace('-', ' ')}")
        self.open["lines"].append(where)
        if role == "assistant" and self.thought:
            for place in self.thought[0::2]:
                self.ledger.merged(place, f"the message of {self.open['id'].replace('-', ' ')}")
                self.open["lines"].append(place)
            text = "\n[thinking] " + "".join(self.thought[1::2]).strip() + "\n" + text
            self.thought = []
        self.open["text"] += text

    def drop_thoughts(self) -> None:
        """Thoughts no reply followed (a new prompt, a rewind, the end): left out."""
        for place in self.thought[0::2]:
            self.ledger.left_out(place, "thinking")
        self.thought = []

    def close(self) -> None:
        """The message being written is done."""
        if self.open is not None:
            self.open["text"] = self.open["text"].strip()
            if self.open["text"]:
                self.messages.append(self.open)
            else:
                for place in self.open["lines"]:
                    self.ledger.left_out(place, "empty message")
        self.open = None

    def result(self) -> list[dict[str, Any]]:
        self.close()
        self.drop_thoughts()
        return [{"id": m["id"], "role": m["role"], "content": m["text"], "time": m["time"]}
                for m in self.messages]


def _block_text(block: Any) -> str:
    """An ACP content block as text: its text, media as a marker, a resource by its name."""
    block = _dict(block)
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return str(block["text"])
    if isinstance(kind, str) and kind in _MEDIA:
        return "\n" + _MEDIA[kind] + "\n"
    if kind in ("resource_link", "resource"):
        name = block.get("name") or _dict(block.get("resource")).get("uri") or block.get("uri")
        return f"\n[file: {name}]\n" if isinstance(name, str) else ""
    return ""


def _tool_output(update: dict[str, Any]) -> str:
    """A finished tool call's output: the text of its content, else its raw output (Grok's
    `extract_tool_result_text`)."""
    content = update["content"] if isinstance(update.get("content"), list) else []
    text = "".join(_block_text(_dict(c).get("content")) for c in content
                   if _dict(c).get("type") == "content")
    if text.strip():
        return text
    raw = update.get("rawOutput")
    if raw is None:
        return ""
    return raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, default=str)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
