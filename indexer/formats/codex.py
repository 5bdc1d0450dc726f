"""Codex CLI rollouts: `${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`,
one session per file, and the same under `archived_sessions/`.

Each line is `{timestamp, type, payload}` (codex-rs/protocol: `RolloutLine`, `RolloutItem`).
Choices:

- `session_meta` gives the id, the working folder and the start time. The project (the last part
  of `cwd`) is the session's topic.
- Messages come from `response_item` lines: `message` (user and assistant text; `developer`
  messages and the context Codex injects as user text, such as `<environment_context>` and
  AGENTS.md instructions, are left out and counted), `function_call` / `custom_tool_call` /
  `local_shell_call` / `web_search_call` with their outputs, kept compactly like Claude Code's
  tools, and `reasoning`, left out unless asked for.
- `event_msg` lines are the interface's copies of the same messages: counted, not imported
  again. Only a file without any `response_item` message (older releases) takes its user and
  agent messages from them.
- `compacted` lines become the session summary (the last one); `thread_name_updated` events give
  the title, else the first prompt does. `turn_context` lines and unknown types are counted.
- Files from releases before the envelope (a first line `{id, timestamp, instructions}`, then
  bare response items and `{"record_type": "state"}` lines) are read the same way.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    block_texts,
    clip,
    describe_skipped,
    folder_name,
    label,
    origin,
    read_transcript_lines,
    safe_session_id,
    tool_call_text,
    tool_result_text,
)
from models import InvalidSession

__all__ = ["CHANNEL", "NAME", "default_paths", "is_candidate", "looks_like", "parse"]

NAME = "codex"
CHANNEL = "codex"
ID_PREFIX = "codex"
# how the agent reopens one of its sessions (`recall resume`): a command, or None and why not
RESUME = ("codex resume {id}",
          "Codex finds the session by its id; run it in cwd to keep the same working folder")
TITLE_CHARS = 80
_ENVELOPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_ITEM_TYPES = {"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
               "custom_tool_call_output", "local_shell_call", "web_search_call"}
# user-role text that Codex writes itself: the environment, AGENTS.md, turn-abort notices
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
             "<INSTRUCTIONS>", "<turn_aborted>", "<user_shell_command>")
_UUID_AT_END = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$",
                          re.IGNORECASE)


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    root = Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else home / ".codex"
    return [root / "sessions", root / "archived_sessions"]


def is_candidate(path: Path) -> bool:
    """A rollout: a `.jsonl` file under the default location."""
    return path.suffix == ".jsonl"


def looks_like(item: Any) -> bool:
    """One decoded line that only Codex writes: an envelope, or a legacy state line."""
    if not isinstance(item, dict):
        return False
    if item.get("record_type") == "state":
        return True
    return (item.get("type") in _ENVELOPES and isinstance(item.get("payload"), dict)
            and isinstance(item.get("timestamp"), str))


def parse(path: Path, text: str, options: ImportOptions) -> list[Transcript]:
    items, skipped = read_transcript_lines(text)
    reader = _Reader(options, skipped)
    for number, item in items:
        reader.add(number, item)
    if not reader.recognized:
        raise InvalidSession("not a Codex rollout: no session_meta, response_item or event_msg lines")
    messages = reader.messages()
    if not messages:
        raise NothingToImport(f"no conversation messages ({describe_skipped(skipped)})")
    raw_id = reader.session_id or _file_uuid(path) or path.stem
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": messages,
                              "origin": origin(NAME, raw_id, reader.cwd, path)}
    if reader.started:
        record["date"] = reader.started[:10]
    project = folder_name(reader.cwd)
    if project:
        record["topics"] = [project]
    if reader.summary:
        record["summary"] = reader.summary
    first_prompt = next((m["content"] for m in messages if m["role"] == "user"), None)
    title = reader.title or (clip(first_prompt.split("\n", 1)[0], TITLE_CHARS)
                             if first_prompt else None)
    if title:
        record["title"] = title
    return [Transcript.build(record, skipped)]


class _Reader:
    """Turns the rollout's lines, in order, into messages."""

    def __init__(self, options: ImportOptions, skipped: Counter[str]) -> None:
        self.options = options
        self.skipped = skipped
        self.recognized = 0
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.started: str | None = None
        self.title: str | None = None
        self.summary: str | None = None
        self.entries: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []  # event_msg copies, used only without messages
        self.tool_names: dict[str, str] = {}
        self.has_messages = False

    def add(self, number: int, item: Any) -> None:
        if not isinstance(item, dict):
            self.skipped["non-object line"] += 1
            return
        kind, payload = item.get("type"), item.get("payload")
        time = item.get("timestamp")
        if "payload" not in item:  # a release before the envelope
            if item.get("record_type") == "state":
                self.recognized += 1
                self.skipped["state line"] += 1
                return
            if number == 1 and isinstance(item.get("id"), str) and "timestamp" in item:
                kind, payload, time = "session_meta", item, item.get("timestamp")
            elif kind in _ITEM_TYPES:
                kind, payload = "response_item", item
        if not isinstance(payload, dict) or kind not in _ENVELOPES:
            self.skipped[f"unknown line type {label(kind)}" if kind else "line without type"] += 1
            return
        self.recognized += 1
        if kind == "session_meta":
            self._meta(payload)
        elif kind == "response_item":
            self._response(number, time, payload)
        elif kind == "event_msg":
            self._event(number, time, payload)
        elif kind == "compacted":
            message = payload.get("message")
            if isinstance(message, str) and message.strip():
                self.summary = message.strip()
            self.skipped["compaction"] += 1
        else:
            cwd = payload.get("cwd")
            if self.cwd is None and isinstance(cwd, str) and cwd.strip():
                self.cwd = cwd.strip()
            self.skipped["turn context"] += 1

    def _meta(self, payload: dict[str, Any]) -> None:
        if self.session_id is None and isinstance(payload.get("id"), str):
            self.session_id = payload["id"]
        if isinstance(payload.get("cwd"), str) and payload["cwd"].strip():
            self.cwd = self.cwd or payload["cwd"].strip()
        if isinstance(payload.get("timestamp"), str):
            self.started = self.started or payload["timestamp"]

    def _response(self, number: int, time: Any, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        limit = self.options.tool_chars
        if kind == "message":
            self._message(number, time, payload)
        elif kind == "reasoning":
            texts = block_texts(payload.get("summary"), ()) + block_texts(payload.get("content"), ())
            thought = "\n".join(t.strip() for t in texts if t.strip())
            if self.options.thinking and thought:
                self._entry(number, time, "assistant", f"[thinking] {thought}", payload)
            else:
                self.skipped["reasoning"] += 1
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
            action = _dict(payload.get("action"))
            query = action.get("query")
            if isinstance(query, str) and query.strip():
                self._entry(number, time, "assistant", f"[web search] {clip(query, limit)}",
                            payload)
            else:
                self.skipped["web search without query"] += 1
        else:
            self.skipped[f"item type {label(kind)}"] += 1

    def _message(self, number: int, time: Any, payload: dict[str, Any]) -> None:
        role = payload.get("role")
        if role not in ("user", "assistant"):
            self.skipped[f"{label(role)} message"] += 1  # developer and system instructions
            return
        text = _content_text(payload.get("content"))
        if not text:
            self.skipped["message left empty"] += 1
            return
        if role == "user" and text.startswith(_INJECTED):
            self.skipped["context Codex injected"] += 1
            return
        self.has_messages = True
        self._entry(number, time, role, text, payload)

    def _event(self, number: int, time: Any, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "thread_name_updated" and isinstance(payload.get("thread_name"), str):
            self.title = payload["thread_name"].strip() or self.title
            return
        if kind in ("user_message", "agent_message") and isinstance(payload.get("message"), str):
            role = "user" if kind == "user_message" else "assistant"
            self.events.append({"line": number, "id": f"l{number}", "role": role, "time": time,
                                "content": payload["message"]})
            return  # counted once messages() knows whether they are copies
        self.skipped[f"event {label(kind)}"] += 1

    def _entry(self, number: int, time: Any, role: str, text: str, payload: dict[str, Any]) -> None:
        if not text.strip():
            self.skipped["message left empty"] += 1
            return
        own = payload.get("id")
        self.entries.append({"line": number, "id": own if isinstance(own, str) and own else f"l{number}",
                             "role": role, "time": time, "content": text})

    def messages(self) -> list[dict[str, Any]]:
        if self.has_messages:
            chosen = self.entries
            if self.events:
                self.skipped["event copying a message"] += len(self.events)
        else:  # an older release that wrote only the interface's events
            chosen = [e for e in self.events if e["content"].strip()] + self.entries
            chosen.sort(key=lambda e: e["line"])
        out = []
        for entry in chosen:
            message = {"id": entry["id"], "role": entry["role"], "content": entry["content"]}
            if isinstance(entry["time"], str | int | float):
                message["time"] = entry["time"]
            out.append(message)
        return out


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


def _file_uuid(path: Path) -> str | None:
    match = _UUID_AT_END.search(path.stem)
    return match.group(1) if match else None
