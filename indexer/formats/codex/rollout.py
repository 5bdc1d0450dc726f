"""The lines of a Codex rollout, in order, as the session's messages, title and summary, each
line given its fate (__init__.py says what is kept and why)."""

from __future__ import annotations

import json
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    block_texts,
    clip,
    label,
    tool_call_text,
    tool_result_text,
)
from indexer.formats.ledger import Ledger

__all__ = ["ENVELOPES", "USER_MESSAGE_BEGIN", "Reader"]

ENVELOPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_ITEM_TYPES = {"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
               "custom_tool_call_output", "local_shell_call", "web_search_call"}
# user-role text that Codex writes itself: the environment, AGENTS.md, turn-abort notices, a
# skill's body, a sub-agent's report (the contextual user fragments of codex-rs/core)
_INJECTED = ("<environment_context>", "<user_instructions>", "# agents.md instructions",
             "<instructions>", "<turn_aborted>", "<user_shell_command>", "<skill>",
             "<subagent_notification>")
# Where the user's own words begin in a turn the IDE extension or the desktop app sent: Codex
# keeps only what follows this marker as the thread's title and preview (USER_MESSAGE_BEGIN in
# openai/codex codex-rs/protocol/src/protocol.rs @ 001cb8e233f250c7086c791c51390286c087faea;
# strip_user_message_prefix in codex-rs/state/src/extract.rs @
# 683d84088b6d45abd68c8573076f75d185d0edd2: the text after the first marker, trimmed). What comes
# before it is the context the client added: "# Context from my IDE setup:" with the active file,
# open tabs and selection (the VS Code extension), "# Files mentioned by the user:" (the app).
USER_MESSAGE_BEGIN = "## My request for Codex:"
_CLIENT_CONTEXT = "IDE context before the user's request"


class Reader:
    """Turns the rollout's lines, in order, into messages, giving each line its fate."""

    def __init__(self, options: ImportOptions, ledger: Ledger) -> None:
        self.options = options
        self.ledger = ledger
        self.recognized = 0
        self.session_id: str | None = None
        self.meta_where: str | None = None
        self.cwd: str | None = None
        self.started: str | None = None
        self.titles: list[tuple[str, str]] = []  # thread name, where
        self.summaries: list[tuple[str, str]] = []  # compaction summary, where
        self.entries: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []  # event_msg copies, used only without messages
        self.tool_names: dict[str, str] = {}
        self.has_messages = False

    def add(self, number: int, item: Any) -> None:
        where = f"line {number}"
        if not isinstance(item, dict):
            self.ledger.left_out(where, "non-object line")
            return
        kind, payload = item.get("type"), item.get("payload")
        time = item.get("timestamp")
        if "payload" not in item:  # a release before the envelope
            if item.get("record_type") == "state":
                self.recognized += 1
                self.ledger.left_out(where, "state line")
                return
            if number == 1 and isinstance(item.get("id"), str) and "timestamp" in item:
                kind, payload, time = "session_meta", item, item.get("timestamp")
            elif isinstance(kind, str) and kind in _ITEM_TYPES:
                kind, payload = "response_item", item
        if not isinstance(payload, dict) or not isinstance(kind, str) or kind not in ENVELOPES:
            self.ledger.left_out(where, f"unknown line type {label(kind)}" if kind
                                 else "line without type")
            return
        self.recognized += 1
        if kind == "session_meta":
            self._meta(payload, where)
        elif kind == "response_item":
            self._response(number, time, payload)
        elif kind == "event_msg":
            self._event(number, time, payload)
        elif kind == "compacted":
            message = payload.get("message")
            if isinstance(message, str) and message.strip():
                self.summaries.append((message.strip(), where))
            else:  # a remote compaction: the model's new context, no summary to read
                self.ledger.left_out(where, "compaction without summary")
        else:
            cwd = payload.get("cwd")
            if self.cwd is None and isinstance(cwd, str) and cwd.strip():
                self.cwd = cwd.strip()
            self.ledger.left_out(where, "turn context")

    def _meta(self, payload: dict[str, Any], where: str) -> None:
        own = payload.get("id") if isinstance(payload.get("id"), str) else None
        if self.meta_where is not None:
            if own is not None and self.session_id is not None and own != self.session_id:
                # a forked rollout carries its source's metadata too (codex-rs/state extract.rs)
                self.ledger.left_out(where, "metadata of another session (a fork's source)")
            else:
                self.ledger.merged(where, f"the session metadata on {self.meta_where}")
            return
        self.meta_where = where
        self.ledger.imported(where, "session metadata")
        self.session_id = own
        if isinstance(payload.get("cwd"), str) and payload["cwd"].strip():
            self.cwd = self.cwd or payload["cwd"].strip()
        if isinstance(payload.get("timestamp"), str):
            self.started = self.started or payload["timestamp"]

    def _response(self, number: int, time: Any, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        where = f"line {number}"
        limit = self.options.tool_chars
        if kind == "message":
            self._message(number, time, payload)
        elif kind == "reasoning":
            texts = block_texts(payload.get("summary"), ()) + block_texts(payload.get("content"), ())
            thought = "\n".join(t.strip() for t in texts if t.strip())
            if self.options.thinking and thought:
                self._entry(number, time, "assistant", f"[thinking] {thought}", payload)
            else:
                self.ledger.left_out(where, "reasoning")
        elif kind in ("function_call", "custom_tool_call"):
            name = payload.get("name")
            if isinstance(payload.get("call_id"), str) and isinstance(name, str):
                self.tool_names[payload["call_id"]] = name
            raw = payload.get("arguments") if kind == "function_call" else payload.get("input")
            self._entry(number, time, "assistant", tool_call_text(name, _arguments(raw), limit),
                        payload)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call_id = payload.get("call_id")
            name = self.tool_names.get(call_id) if isinstance(call_id, str) else None
            output, failed = _output(payload.get("output"))
            self._entry(number, time, "tool", tool_result_text(name, output, failed, limit),
                        payload)
        elif kind == "local_shell_call":
            action = _dict(payload.get("action"))
            self._entry(number, time, "assistant",
                        tool_call_text("shell", action.get("command"), limit), payload)
        elif kind == "web_search_call":
            query = _dict(payload.get("action")).get("query")
            if isinstance(query, str) and query.strip():
                self._entry(number, time, "assistant", f"[web search] {clip(query, limit)}",
                            payload)
            else:
                self.ledger.left_out(where, "web search without query")
        else:
            self.ledger.left_out(where, f"item type {label(kind)}")

    def _message(self, number: int, time: Any, payload: dict[str, Any]) -> None:
        where = f"line {number}"
        role = payload.get("role")
        if role not in ("user", "assistant"):
            self.ledger.left_out(where, f"{label(role)} message")  # developer and system text
            return
        text = _content_text(payload.get("content"))
        if role == "user":
            words = _users_words(text)
            if words is None and text.lower().startswith(_INJECTED):
                self.ledger.left_out(where, "context Codex injected")
                return
            if words is not None:
                text, context = words
                if context:
                    self.ledger.part_left_out(_CLIENT_CONTEXT)
        if not text:
            self.ledger.left_out(where, "message left empty")
            return
        self.has_messages = True
        self._entry(number, time, role, text, payload)

    def _event(self, number: int, time: Any, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        where = f"line {number}"
        name = payload.get("thread_name")
        if kind == "thread_name_updated" and isinstance(name, str) and name.strip():
            self.titles.append((name.strip(), where))
            return
        if kind in ("user_message", "agent_message") and isinstance(payload.get("message"), str):
            role = "user" if kind == "user_message" else "assistant"
            self.events.append({"line": number, "where": where, "id": f"l{number}", "role": role,
                                "time": time, "content": payload["message"]})
            return  # its fate waits until messages() knows whether it is a copy
        self.ledger.left_out(where, f"event {label(kind)}")

    def _entry(self, number: int, time: Any, role: str, text: str, payload: dict[str, Any]) -> None:
        if not text.strip():
            self.ledger.left_out(f"line {number}", "message left empty")
            return
        own = payload.get("id")
        self.entries.append({"line": number, "where": f"line {number}",
                             "id": own if isinstance(own, str) and own else f"l{number}",
                             "role": role, "time": time, "content": text})

    def messages(self) -> list[dict[str, Any]]:
        if self.has_messages:
            chosen = self.entries
            by_text: dict[tuple[str, str], list[int]] = {}
            for entry in self.entries:
                by_text.setdefault((entry["role"], entry["content"]), []).append(entry["line"])
            for event in self.events:
                self._copy(event, by_text)
        else:  # an older release that wrote only the interface's events
            chosen = list(self.entries)
            for event in self.events:
                text = event["content"].strip()
                words = _users_words(text) if event["role"] == "user" else None
                if words is not None:
                    text, context = words
                    if context and text:
                        self.ledger.part_left_out(_CLIENT_CONTEXT)
                if text:
                    chosen.append({**event, "content": text})
                else:
                    self.ledger.left_out(event["where"], "message left empty")
            chosen.sort(key=lambda e: e["line"])
        out = []
        ids: set[str] = set()
        for entry in chosen:
            self.ledger.imported(entry["where"])
            message_id = entry["id"] if entry["id"] not in ids else f"{entry['id']}-l{entry['line']}"
            ids.add(message_id)
            message = {"id": message_id, "role": entry["role"], "content": entry["content"]}
            if isinstance(entry["time"], str | int | float) and not isinstance(entry["time"], bool):
                message["time"] = entry["time"]
            out.append(message)
        return out

    def _copy(self, event: dict[str, Any], by_text: dict[tuple[str, str], list[int]]) -> None:
        """An event repeating a message: merged into the nearest message of its role with the
        same text; one that repeats none is left out."""
        text = event["content"].strip()
        words = _users_words(text) if event["role"] == "user" else None
        if words is not None:
            text = words[0]
        lines = by_text.get((event["role"], text))
        if lines:
            nearest = min(lines, key=lambda line: abs(line - event["line"]))
            self.ledger.merged(event["where"], f"the message on line {nearest}")
        else:
            self.ledger.left_out(event["where"], "event copying a message")

    def title(self) -> str | None:
        """The newest thread name; the earlier ones it replaced are merged into it."""
        return self.ledger.newest(self.titles, "the session's title", "thread name")

    def summary(self) -> str | None:
        """The newest compaction summary (it summarizes the earlier ones too)."""
        return self.ledger.newest(self.summaries, "the session's summary", "compaction")


def _users_words(text: str) -> tuple[str, bool] | None:
    """What the user typed in a turn a client wrapped, and whether the client put context
    before it: the text after "## My request for Codex:", as Codex reads it; None for a turn
    without the marker."""
    index = text.find(USER_MESSAGE_BEGIN)
    if index < 0:
        return None
    return text[index + len(USER_MESSAGE_BEGIN):].strip(), bool(text[:index].strip())


def _content_text(content: Any) -> str:
    """A message's text items joined; an image stands as "[image]"."""
    parts = block_texts(content, ("input_image",))
    return "\n".join("[image]" if p == "[input_image]" else p for p in parts).strip()


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _arguments(raw: Any) -> Any:
    """Function arguments are a JSON string; show the object when it is one."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            return raw
    return raw


def _output(value: Any) -> tuple[str, bool]:
    """A tool output's text and whether it failed: a string, `{content, success}`, or a list of
    content items."""
    if isinstance(value, dict):
        failed = value.get("success") is False
        return _content_text(value.get("content")), failed
    return _content_text(value), False
