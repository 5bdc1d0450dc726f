"""Sourcegraph Amp threads kept on disk: `~/.local/share/amp/threads/T-<uuid>.json` (under
`$XDG_DATA_HOME` when it is set), one JSON document per thread. Newer releases keep threads on
Amp's servers; these are the files local-first releases wrote.

Amp is not open source: the shape is the one public readers of these files agree on
(kenn-io/agentsview internal/parser/amp.go at 08a272b6 and amp_test.go at 5e4471a9;
skillsynchq/txcript tests/amp.rs, a fixture "shaped like a real legacy local-first file"):

    {"v": 42, "id": "T-...", "created": <epoch ms>, "title"?, "agentMode", "nextMessageId",
     "env": {"initial": {"trees": [{"displayName", "uri": "file:///..."}], "platform": {...}}},
     "meta": {"traces": [...]},
     "messages": [{"role": "user" | "assistant", "messageId": n, "content": [block...],
                   "meta"?: {"sentAt": <epoch ms>}, "state"?, "usage"?: {"timestamp", ...}}]}

A block is `text`, `thinking` {thinking} (kept only with --thinking), `redacted_thinking`,
`image`, `tool_use` {id, name, input} or `tool_result`: Amp's own {toolUseID, run: {status,
result | error}} or the API's {tool_use_id, content}. A user message's tool results become a
`tool` message (cut to tool_chars); a message of another role is left out and counted.
The title is the thread's, else the first prompt; the project is the first tree's folder.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

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
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.ledger import Ledger
from models import InvalidSession, parse_time

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like", "parse"]

NAME = "amp"
CHANNEL = "amp"
ID_PREFIX = "amp"
TITLE_CHARS = 80
_THREAD_ID = re.compile(r"T-[A-Za-z0-9-]+")
_ROLES = {"user": "user", "assistant": "assistant"}
# what a tool result holds, in the order readers show it: a shell's output, a file, a diff
_RESULT_FIELDS = ("output", "content", "diff")


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    data = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    return [data / "amp" / "threads"]


def is_candidate(path: Path) -> bool:
    return path.suffix == ".json" and path.name.startswith("T-")


def looks_like(value: Any, path: Path | None = None) -> bool:
    """A thread: a `T-` id, its list of messages, and its creation time or format version."""
    return (isinstance(value, dict) and isinstance(value.get("id"), str)
            and _THREAD_ID.fullmatch(value["id"]) is not None
            and isinstance(value.get("messages"), list)
            and (isinstance(value.get("created"), int | float) or isinstance(value.get("v"), int)))


def parse(path: Path, value: Any, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    if not looks_like(value):
        raise InvalidSession("not an Amp thread: no T- id, messages and created time or version")
    messages: list[dict[str, Any]] = []
    tool_names: dict[str, str] = {}
    for n, message in enumerate(value["messages"]):
        where = f"messages[{n}]"
        ledger.read(where)
        rendered = _render(message, n, tool_names, options, ledger, where)
        if rendered:
            ledger.imported(where)
            messages += rendered
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    cwd = _folder(value)
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, value["id"]),
                              "channel": CHANNEL, "messages": messages,
                              "origin": origin(NAME, value["id"], cwd, path)}
    started = parse_time(value.get("created"))
    if not started and not any("time" in m for m in messages):
        started = _modified(path)  # a thread without its creation time: when it was last written
    if started:
        record["date"] = started[:10]
    project = folder_name(cwd) or _tree(value).get("displayName")
    if isinstance(project, str) and project:
        record["topics"] = [project]
    title = value.get("title").strip() if isinstance(value.get("title"), str) else ""
    if not title:
        first = next((m["content"] for m in messages if m["role"] == "user"), "")
        title = clip(first.split("\n", 1)[0], TITLE_CHARS)
    if title:
        record["title"] = title
    return [Transcript.build(record, ledger)]


def _render(message: Any, n: int, tool_names: dict[str, str], options: ImportOptions,
            ledger: Ledger, where: str) -> list[dict[str, Any]]:
    """A message as the archive's: its text (with tool calls and, on request, thinking), and its
    tool results as a `tool` message."""
    if not isinstance(message, dict):
        ledger.left_out(where, "unreadable message (not an object)")
        return []
    role = _ROLES.get(message["role"]) if isinstance(message.get("role"), str) else None
    if role is None:
        ledger.left_out(where, f"{label(message.get('role'))} message (not conversation)")
        return []
    content = message.get("content")
    if content is not None and not isinstance(content, list):
        ledger.left_out(where, "unreadable message (content not a list)")
        return []
    lines, results = [], []
    for block in content or []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            lines.append(block["text"])
        elif kind == "thinking":
            thought = block.get("thinking")
            if options.thinking and isinstance(thought, str) and thought.strip():
                lines.append(f"[thinking] {thought.strip()}")
            else:
                ledger.part_left_out("thinking")
        elif kind == "tool_use":
            if isinstance(block.get("id"), str) and isinstance(block.get("name"), str):
                tool_names[block["id"]] = block["name"]
            lines.append(tool_call_text(block.get("name"), block.get("input"), options.tool_chars))
        elif kind == "tool_result":
            results.append(_result(block, tool_names, options))
        elif kind == "image":
            lines.append("[image]")
        else:
            ledger.part_left_out(f"{label(kind)} block")
    own = message.get("messageId")
    base_id = str(own) if isinstance(own, int | str) and str(own).strip() else str(n)
    time = _time(message)
    out = []
    text = "\n".join(line.strip() for line in lines if line.strip())
    if text:
        out.append(_message(f"m{base_id}", role, text, time))
    if results:
        out.append(_message(f"m{base_id}-results", "tool", "\n".join(results), time))
    if not out:
        ledger.left_out(where, "message left empty")
    return out


def _result(block: dict[str, Any], tool_names: dict[str, str], options: ImportOptions) -> str:
    tool_id = block.get("toolUseID") or block.get("tool_use_id")
    name = tool_names.get(tool_id) if isinstance(tool_id, str) else None
    run = _object(block.get("run"))
    status = run.get("status")
    if "run" in block:
        error = _object(run.get("error"))
        output = _shown(run.get("result")) or _shown(error.get("message")) \
            or _shown(run.get("reason")) or (f"({status})" if isinstance(status, str) else "")
    else:
        output = _shown(block.get("content"))
    failed = status in ("error", "cancelled", "rejected-by-user") or block.get("is_error") is True
    return tool_result_text(name, output, failed, options.tool_chars)


def _shown(value: Any) -> str:
    """A result as text: a string as it is, a shell's output, a file's content or a diff, else
    compact JSON; a list of content blocks gives its text (an image a marker)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in _RESULT_FIELDS:
            if value.get(key) not in (None, ""):
                return _shown(value[key])
    if isinstance(value, list) and value and all(isinstance(b, dict) and "type" in b
                                                 for b in value):
        return "\n".join(b["text"] if isinstance(b.get("text"), str) else f"[{label(b['type'])}]"
                         for b in value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _modified(path: Path) -> str | None:
    try:
        return parse_time(path.stat().st_mtime)
    except OSError:
        return None


def _time(message: dict[str, Any]) -> str | None:
    """When a user message was sent, or when an answer's inference ran."""
    meta = _object(message.get("meta"))
    usage = _object(message.get("usage"))
    return parse_time(meta.get("sentAt")) or parse_time(usage.get("timestamp"))


def _message(message_id: str, role: str, text: str, time: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"id": message_id, "role": role, "content": text}
    if time:
        message["time"] = time
    return message


def _tree(value: dict[str, Any]) -> dict[str, Any]:
    trees = _object(_object(value.get("env")).get("initial")).get("trees")
    trees = trees if isinstance(trees, list) else []
    return trees[0] if trees and isinstance(trees[0], dict) else {}


def _object(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one (a field of the wrong type)."""
    return value if isinstance(value, dict) else {}


def _folder(value: dict[str, Any]) -> str | None:
    """The folder the thread ran in, from its first tree's `file://` URI."""
    uri = _tree(value).get("uri")
    if not isinstance(uri, str) or not uri.startswith("file://"):
        return None
    return unquote(urlparse(uri).path) or None


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.DOCUMENT,),
    default_paths=default_paths, is_candidate=is_candidate, environment=("XDG_DATA_HOME",),
    resume=Resume("amp threads continue {id}",
                  "Amp continues a thread by its id (T-...)"),
    sniff_document=looks_like, read_document=parse)
