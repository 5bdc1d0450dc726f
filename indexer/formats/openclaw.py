"""OpenClaw transcripts: `~/.openclaw/agents/<agentId>/sessions/<sessionId>.jsonl` in the pi
session format (v3; pi-coding-agent sessions are read the same way).

The first line is a header `{"type": "session", "version", "id", "timestamp", "cwd"}`; every
other line is an entry with `type`, `id`, `parentId` and `timestamp`. `message` entries hold
`message.role` user / assistant / toolResult with content blocks text / thinking / toolCall;
`compaction` entries hold a summary of what came before. Choices:

- The entries form a tree (`id`/`parentId`): branching appends the new branch to the same file.
  The transcript is the path from the root to the current leaf, which is the last entry in the
  file (what pi itself resumes from). Entries on abandoned branches are left out of the session
  and counted; a `branch_summary` on the path (pi's summary of a branch left behind) is kept as a
  `system` message. Files without ids (version 1, linear) are read in order.
- The newest `compaction` summary on the path becomes the session summary.
- `sessions.json` beside the transcripts, when present, gives the channel and the display name;
  its shape is read liberally (a map of session key to entry, or a list of entries).
- Tool calls and results are cut to `tool_chars`; thinking is left out unless asked for.
  Bookkeeping entries (model and thinking-level changes, labels, extension state) are skipped;
  unknown entry types are counted and skipped, never fatal.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    block_texts,
    clip,
    label,
    origin,
    read_json_lines,
    safe_session_id,
    tool_call_text,
    tool_result_text,
)
from models import InvalidSession

__all__ = ["CHANNEL", "NAME", "default_paths", "is_candidate", "looks_like", "looks_like_store", "parse"]

NAME = "openclaw"
CHANNEL = "openclaw"
ID_PREFIX = "openclaw"
# how the agent reopens one of its sessions (`recall resume`): a command, or None and why not
RESUME = (None, ("OpenClaw sessions are picked up again from OpenClaw itself (its chat channels "
                 "or dashboard); the transcript is at the path given"))
STORE_NAME = "sessions.json"
TITLE_CHARS = 80
_BOOKKEEPING = {"model_change", "thinking_level_change", "custom", "label", "session_state"}


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    return [home / ".openclaw" / "agents"]


def is_candidate(path: Path) -> bool:
    """A session transcript (`sessions.json` beside them is metadata)."""
    return path.suffix == ".jsonl"


def looks_like(item: Any) -> bool:
    """The header line of a pi / OpenClaw session file."""
    return isinstance(item, dict) and item.get("type") == "session" and (
        "version" in item or ("id" in item and "timestamp" in item))


def looks_like_store(value: Any) -> bool:
    """sessions.json: session key -> {sessionId, updatedAt, ...}; metadata, not a transcript."""
    if not isinstance(value, dict) or not value or "messages" in value:
        return False
    entries = list(value.values())
    return all(isinstance(e, dict) for e in entries) and any("sessionId" in e for e in entries)


def parse(path: Path, text: str, options: ImportOptions) -> list[Transcript]:
    items, torn = read_json_lines(text)
    if not items:
        raise NothingToImport("the file is empty")
    header = items[0][1]
    if not looks_like(header):
        raise InvalidSession(
            'not an OpenClaw session: the first line is not a {"type": "session"} header')
    skipped: Counter[str] = Counter()
    if torn:
        skipped["torn last line"] += 1
    entries = []
    for _, item in items[1:]:
        if isinstance(item, dict):
            entries.append(item)
        else:
            skipped["non-object line"] += 1
    reader = _Reader(options, skipped)
    for entry in _current_path(entries, skipped):
        reader.add(entry)
    if not reader.messages:
        raise NothingToImport("no conversation messages" + (
            f" ({', '.join(f'{n}× {r}' for r, n in skipped.most_common(3))})" if skipped else ""))

    header_id = header.get("id")
    if not isinstance(header_id, str) or not header_id.strip():
        header_id = None
    # Telegram topics keep one file per thread, named <sessionId>-topic-<threadId>.jsonl
    topic_file = bool(header_id) and path.stem.startswith(header_id) and path.stem != header_id
    raw_id = header_id if header_id and not topic_file else path.stem
    meta = _store_entry(path.parent, header_id or path.stem, path.name)
    record: dict[str, Any] = {
        "sessionId": safe_session_id(ID_PREFIX, raw_id),
        "channel": _channel(meta) or CHANNEL,
        "messages": reader.messages,
        "origin": origin(NAME, raw_id, header.get("cwd"), path),
    }
    if isinstance(header.get("timestamp"), str):
        record["date"] = header["timestamp"][:10]
    if reader.summary:
        record["summary"] = reader.summary
    first_prompt = next((m["content"] for m in reader.messages if m["role"] == "user"), None)
    title = _display_name(meta) or reader.name or (
        clip(first_prompt.split("\n", 1)[0], TITLE_CHARS) if first_prompt else None)
    if title:
        record["title"] = title
    return [Transcript.build(record, skipped)]


def _current_path(entries: list[dict[str, Any]], skipped: Counter[str]) -> list[dict[str, Any]]:
    """The entries from the root to the last one written, oldest first."""
    by_id = {e["id"]: e for e in entries if isinstance(e.get("id"), str)}
    if not by_id or not any("parentId" in e for e in entries):
        return entries  # version 1: a plain sequence
    leaf = next(e for e in reversed(entries) if isinstance(e.get("id"), str))
    path, seen = [], set()
    node: dict[str, Any] | None = leaf
    while node is not None and node["id"] not in seen:
        seen.add(node["id"])
        path.append(node)
        parent = node.get("parentId")
        node = by_id.get(parent) if isinstance(parent, str) else None
    off_path = [e for e in entries if not (isinstance(e.get("id"), str) and e["id"] in seen)]
    abandoned = sum(1 for e in off_path if e.get("type") == "message")
    if abandoned:
        skipped["message on an abandoned branch"] += abandoned
    if len(off_path) > abandoned:
        skipped["other entry off the current branch"] += len(off_path) - abandoned
    return path[::-1]


class _Reader:
    def __init__(self, options: ImportOptions, skipped: Counter[str]) -> None:
        self.options = options
        self.skipped = skipped
        self.messages: list[dict[str, Any]] = []
        self.summary: str | None = None
        self.name: str | None = None

    def add(self, entry: dict[str, Any]) -> None:
        kind = entry.get("type") if isinstance(entry.get("type"), str) else None
        if kind == "message":
            self._message(entry)
        elif kind == "compaction":
            if isinstance(entry.get("summary"), str) and entry["summary"].strip():
                self.summary = entry["summary"].strip()
        elif kind == "branch_summary":
            if isinstance(entry.get("summary"), str) and entry["summary"].strip():
                self._emit(entry, "system", f"[branch summary] {entry['summary'].strip()}")
        elif kind == "custom_message":
            if entry.get("display") is not False:
                self._emit(entry, "system", _text(entry.get("content")))
        elif kind == "session_info":
            if isinstance(entry.get("name"), str) and entry["name"].strip():
                self.name = entry["name"].strip()
        elif kind in _BOOKKEEPING:
            pass
        else:
            self.skipped[f"unknown entry type {label(kind)}" if kind else "entry without type"] += 1

    def _message(self, entry: dict[str, Any]) -> None:
        message = entry.get("message")
        if not isinstance(message, dict):
            self.skipped["message entry without message"] += 1
            return
        role = message.get("role")
        limit = self.options.tool_chars
        if role == "user":
            self._emit(entry, "user", _text(message.get("content")))
        elif role == "assistant":
            self._emit(entry, "assistant", self._assistant(message.get("content")))
        elif role == "toolResult":
            self._emit(entry, "tool", tool_result_text(
                message.get("toolName") if isinstance(message.get("toolName"), str) else None,
                _text(message.get("content")), message.get("isError") is True, limit))
        elif role == "bashExecution":
            command = message.get("command") if isinstance(message.get("command"), str) else ""
            output = message.get("output") if isinstance(message.get("output"), str) else ""
            failed = message.get("exitCode") not in (0, None)
            shown = f"$ {command}\n{output}"
            self._emit(entry, "tool", tool_result_text("bash", shown, failed, limit))
        elif role == "custom":
            if message.get("display") is not False:
                self._emit(entry, "system", _text(message.get("content")))
        elif role == "branchSummary":
            if isinstance(message.get("summary"), str):
                self._emit(entry, "system", f"[branch summary] {message['summary'].strip()}")
        elif role == "compactionSummary":
            if isinstance(message.get("summary"), str) and message["summary"].strip():
                self.summary = message["summary"].strip()
        else:
            self.skipped[f"message role {label(role)}"] += 1

    def _assistant(self, content: Any) -> str:
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            return ""
        parts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind == "thinking":
                thinking = block.get("thinking")
                if self.options.thinking and isinstance(thinking, str) and thinking.strip():
                    parts.append(f"[thinking] {thinking.strip()}")
                else:
                    self.skipped["thinking block"] += 1
            elif kind == "toolCall":
                parts.append(tool_call_text(block.get("name"), block.get("arguments"),
                                            self.options.tool_chars))
            elif kind == "image":
                parts.append("[image]")
            else:
                self.skipped[f"block type {label(kind)}"] += 1
        return "\n".join(p for p in parts if p)

    def _emit(self, entry: dict[str, Any], role: str, content: str) -> None:
        if not content.strip():
            self.skipped["message left empty"] += 1
            return
        message: dict[str, Any] = {"role": role, "content": content}
        if isinstance(entry.get("id"), str) and entry["id"]:
            message["id"] = entry["id"]
        when = entry.get("timestamp")
        if not isinstance(when, str | int | float) and isinstance(entry.get("message"), dict):
            when = entry["message"].get("timestamp")
        if isinstance(when, str | int | float) and not isinstance(when, bool):
            message["time"] = when
        self.messages.append(message)


def _text(content: Any) -> str:
    return "\n".join(p for p in block_texts(content, ("image",)) if p)


def _store_entry(folder: Path, session_id: str, file_name: str) -> dict[str, Any]:
    store = folder / STORE_NAME
    try:
        stat = store.stat()
    except OSError:
        return {}
    entries = _read_store(str(store), stat.st_mtime_ns, stat.st_size)
    return entries.get(session_id) or entries.get(file_name) or {}


@lru_cache(maxsize=8)
def _read_store(path: str, mtime_ns: int, size: int) -> dict[str, dict[str, Any]]:
    """Entries by session id and by transcript file name (mtime and size key the cache)."""
    try:
        value = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if isinstance(value, dict) and isinstance(value.get("sessions"), list | dict):
        value = value["sessions"]
    if isinstance(value, dict):
        entries = [dict(v, sessionKey=k) for k, v in value.items() if isinstance(v, dict)]
    elif isinstance(value, list):
        entries = [v for v in value if isinstance(v, dict)]
    else:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for entry in entries:
        sid = entry.get("sessionId") or entry.get("session_id") or entry.get("id")
        if isinstance(sid, str):
            out[sid] = entry
        sfile = entry.get("sessionFile")
        if isinstance(sfile, str):
            out.setdefault(Path(sfile.replace("\\", "/")).name, entry)
    return out


def _channel(meta: dict[str, Any]) -> str | None:
    nested = [meta.get(k) for k in ("deliveryContext", "origin")]
    candidates = [meta.get("channel"), meta.get("lastChannel"), meta.get("provider")]
    candidates += [n.get(k) for n in nested if isinstance(n, dict) for k in ("channel", "provider")]
    return next((c.strip().lower() for c in candidates if isinstance(c, str) and c.strip()), None)


def _display_name(meta: dict[str, Any]) -> str | None:
    origin = meta.get("origin")
    origin = origin if isinstance(origin, dict) else {}
    candidates = [meta.get(k) for k in ("displayName", "label", "subject")] + [origin.get("label")]
    return next((c.strip() for c in candidates if isinstance(c, str) and c.strip()), None)
