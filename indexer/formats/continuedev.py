"""Continue sessions: `~/.continue/sessions/<sessionId>.json`, one session a file, written whole
by the editor extensions and the `cn` CLI (core/util/history.ts, extensions/cli/src/session.ts);
`CONTINUE_GLOBAL_DIR` moves `~/.continue` (core/util/paths.ts). Beside them, `sessions.json`
lists every session's id, title, creation time and folder: metadata, nothing to import.

A session is `{sessionId, title, workspaceDirectory, history}`; each history item is
`{message, contextItems, toolCallStates?, reasoning?, conversationSummary?, ...}` and its
`message` a ChatMessage of role user, assistant, thinking, system or tool (core/index.d.ts).
Choices:

- user and assistant messages keep their text (an image stands as `[image]`); an assistant's
  tool calls become `[tool: name] args` lines and a `tool` message its call's output, cut to
  `tool_chars`. A `thinking` message and an item's `reasoning` are kept only with --thinking.
- The context items attached to a turn (files, selections, the codebase's snippets, a tool's
  output as context) are left out and counted: they are what was read, not what was said; so
  are a compaction's `conversationSummary` and the `promptLogs` (each prompt as it was sent).
- Messages carry no time: the session's date is its creation time in sessions.json, else the
  first reasoning's start, else the file's modification time. The title is Continue's, unless
  it is still the placeholder ("New Session"), then the first prompt; the topic is the last
  part of `workspaceDirectory`.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    clip,
    folder_name,
    label,
    origin,
    safe_session_id,
    tool_call_text,
    tool_result_text,
)
from indexer.formats.contract import Format, Metadata, Resume, Storage
from indexer.formats.kiro import ide as kiro_ide
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["CHANNEL", "FORMAT", "INDEX", "NAME", "default_paths", "is_candidate",
           "looks_like_index", "looks_like_session", "parse_value"]

NAME = "continue"
CHANNEL = "continue"
ID_PREFIX = "continue"
TITLE_CHARS = 80
INDEX_NAME = "sessions.json"
# what Continue calls a session it has not named yet (core/util/constants.ts, the CLI's own)
_PLACEHOLDER_TITLES = {"New Session", "Untitled Session", ""}
_DRIVE = re.compile(r"/[A-Za-z]:")


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    configured = env.get("CONTINUE_GLOBAL_DIR")
    return [(Path(configured).expanduser() if configured else home / ".continue") / "sessions"]


def is_candidate(path: Path) -> bool:
    return path.suffix == ".json" and path.parent.name == "sessions" and path.name != INDEX_NAME


def looks_like_session(value: Any) -> bool:
    """A session file: its id, title, folder and history list, which only Continue writes."""
    return (isinstance(value, dict) and isinstance(value.get("sessionId"), str)
            and isinstance(value.get("history"), list) and "workspaceDirectory" in value
            and "title" in value)


def looks_like_index(value: Any) -> bool:
    """sessions.json: a list of {sessionId, title, dateCreated, workspaceDirectory}."""
    return isinstance(value, list) and bool(value) and all(
        isinstance(e, dict) and "title" in e and ("sessionId" in e or "session_id" in e)
        and ("dateCreated" in e or "date_created" in e) for e in value)


def parse_value(path: Path, value: Any, options: ImportOptions,
                ledger: Ledger) -> list[Transcript]:
    if looks_like_index(value):
        raise NothingToImport(f"{INDEX.description}: metadata, not a transcript")
    if not looks_like_session(value):
        raise InvalidSession("not a Continue session: no sessionId, title, workspaceDirectory "
                             "and history")
    messages, first_reasoning = _Reader(options, ledger).read(value["history"])
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    raw_id = value["sessionId"]
    cwd = _local_path(value["workspaceDirectory"])
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": messages, "origin": origin(NAME, raw_id, cwd, path),
                              "date": _started(path, raw_id, first_reasoning)[:10]}
    project = folder_name(cwd)
    if project:
        record["topics"] = [project]
    title = value.get("title").strip() if isinstance(value.get("title"), str) else ""
    if title in _PLACEHOLDER_TITLES:
        title = next((m["content"] for m in messages if m["role"] == "user"), "")
    if title:
        record["title"] = clip(title.split("\n", 1)[0], TITLE_CHARS)
    return [Transcript.build(record, ledger)]


class _Reader:
    """A history's items as messages, each item a record of the ledger (`history[N]`)."""

    def __init__(self, options: ImportOptions, ledger: Ledger) -> None:
        self.options = options
        self.ledger = ledger
        self.calls: dict[str, tuple[str | None, bool]] = {}  # call id -> (tool name, failed)
        self.first_reasoning: float | None = None

    def read(self, history: list[Any]) -> tuple[list[dict[str, Any]], float | None]:
        out = []
        for n, item in enumerate(history):
            where = f"history[{n}]"
            self.ledger.read(where)
            message = item.get("message") if isinstance(item, dict) else None
            if not isinstance(message, dict):
                self.ledger.left_out(where, "history item without message")
                continue
            rendered = self._item(item, message, where)
            if rendered:
                self.ledger.imported(where)
                own = message.get("id")
                out.append({"id": own if isinstance(own, str) and own else f"h{n + 1}",
                            **rendered})
        return out, self.first_reasoning

    def _item(self, item: dict[str, Any], message: dict[str, Any],
              where: str) -> dict[str, Any] | None:
        role = message.get("role")
        self._count_context(item)
        if role == "thinking":
            text = _content_text(message.get("content"))
            if self.options.thinking and text:
                return {"role": "assistant", "content": f"[thinking] {text}"}
            self.ledger.left_out(where, "thinking message")
            return None
        if role not in ("user", "assistant", "system", "tool"):
            self.ledger.left_out(where, f"message role {label(role)}")
            return None
        text = self._text(role, item, message)
        if not text:
            self.ledger.left_out(where, "message left empty")
            return None
        time = _reasoning_time(item) if role == "assistant" else None
        return {"role": role, "content": text, **({"time": time} if time else {})}

    def _text(self, role: str, item: dict[str, Any], message: dict[str, Any]) -> str:
        limit = self.options.tool_chars
        content = _content_text(message.get("content"))
        if role == "tool":
            call_id = message.get("toolCallId")
            name, failed = self.calls.get(call_id, (None, False)) if isinstance(call_id, str) \
                else (None, False)
            return tool_result_text(name, content, failed, limit)
        if role == "system":
            return clip(content, limit)
        if role == "user":
            return content
        return "\n".join(line for line in [self._reasoning(item), content,
                                           *self._calls(item, message)] if line)

    def _calls(self, item: dict[str, Any], message: dict[str, Any]) -> list[str]:
        """An assistant's tool calls as `[tool: name] args` lines, each call's name and failure
        remembered for the tool message that answers it."""
        states = item.get("toolCallStates")
        failed = {s.get("toolCallId") for s in states if isinstance(s, dict)
                  and s.get("status") == "errored"} if isinstance(states, list) else set()
        calls = message.get("toolCalls")
        lines = []
        for call in calls if isinstance(calls, list) else []:
            if not isinstance(call, dict):
                continue
            function = call["function"] if isinstance(call.get("function"), dict) else {}
            name = function.get("name") if isinstance(function.get("name"), str) else None
            call_id = call.get("id")
            if isinstance(call_id, str):
                self.calls[call_id] = (name, call_id in failed)
            lines.append(tool_call_text(name, function.get("arguments"), self.options.tool_chars))
        return lines

    def _reasoning(self, item: dict[str, Any]) -> str:
        reasoning = item.get("reasoning")
        if not isinstance(reasoning, dict):
            return ""
        if isinstance(reasoning.get("startAt"), int | float) and self.first_reasoning is None:
            self.first_reasoning = float(reasoning["startAt"])
        text = reasoning.get("text")
        if not isinstance(text, str) or not text.strip():
            return ""
        if self.options.thinking:
            return f"[thinking] {text.strip()}"
        self.ledger.part_left_out("reasoning")
        return ""

    def _count_context(self, item: dict[str, Any]) -> None:
        context = item.get("contextItems")
        if isinstance(context, list) and context:
            self.ledger.part_left_out("context item", len(context))
        if isinstance(item.get("conversationSummary"), str):
            self.ledger.part_left_out("compaction summary")
        if isinstance(item.get("promptLogs"), list) and item["promptLogs"]:
            self.ledger.part_left_out("prompt log (the prompt as sent)", len(item["promptLogs"]))


def _content_text(content: Any) -> str:
    """A MessageContent: a string, or text and image parts (an image stands as `[image]`)."""
    if isinstance(content, str):
        return content.strip()
    texts = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"].strip())
        elif isinstance(part, dict) and part.get("type") == "imageUrl":
            texts.append("[image]")
    return "\n".join(t for t in texts if t)


def _reasoning_time(item: dict[str, Any]) -> str | None:
    reasoning = item.get("reasoning")
    start = reasoning.get("startAt") if isinstance(reasoning, dict) else None
    return _iso(start) if isinstance(start, int | float) else None


def _started(path: Path, raw_id: str, first_reasoning: float | None) -> str:
    """When the session began: sessions.json's dateCreated, the first reasoning's start, or the
    file's last write."""
    entry = _index_entries(path.parent).get(raw_id, {})
    created = entry.get("dateCreated") or entry.get("date_created")
    for candidate in (created, first_reasoning):
        when = _iso(candidate)
        if when:
            return when
    try:
        return _iso(path.stat().st_mtime * 1000) or "1970-01-01"
    except OSError:
        return "1970-01-01"


def _iso(value: Any) -> str | None:
    """An epoch in milliseconds (a number, or its digits: `String(Date.now())`) or an ISO time."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value / 1000, tz=UTC).isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    return value if isinstance(value, str) and value[:4].isdigit() else None


def _local_path(folder: Any) -> str | None:
    """A workspace folder as a path: the editors store it as a `file://` URI."""
    if not isinstance(folder, str) or not folder.strip():
        return None
    if folder.startswith("file://"):
        local = unquote(folder[len("file://"):]).rstrip("/")
        return (local[1:] if _DRIVE.match(local) else local) or None  # /c:/Repos -> c:/Repos
    return folder.strip()


def _index_entries(folder: Path) -> dict[str, dict[str, Any]]:
    index = folder / INDEX_NAME
    try:
        stat = index.stat()
    except OSError:
        return {}
    return _read_index(str(index), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _read_index(path: str, mtime_ns: int, size: int) -> dict[str, dict[str, Any]]:
    """sessions.json's entries by session id (its mtime and size key the cache)."""
    try:
        value = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    entries = value if isinstance(value, list) else []
    return {e["sessionId"]: e for e in entries
            if isinstance(e, dict) and isinstance(e.get("sessionId"), str)}


# Kiro IDE keeps a sessions.json of the same shape beside its workspace sessions
INDEX = Metadata("continue-index", "session list (sessions.json: Continue, or Kiro IDE's)",
                 looks_like_index)
FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.DOCUMENT,),
    default_paths=default_paths, is_candidate=is_candidate, environment=("CONTINUE_GLOBAL_DIR",),
    resume=Resume("cn --fork {id}",
                  "the Continue CLI continues a copy of the session from its history (the "
                  "editor extensions reopen it from their History view); run it in cwd"),
    # Kiro IDE writes this shape too (its agent is a fork of Continue's): formats/kiro reads it
    sniff_document=lambda value, path: looks_like_session(value)
    and not kiro_ide.looks_like_session(value, path), read_document=parse_value,
    metadata=(INDEX,))
