"""Cursor's agent transcripts, which the Cursor CLI (and newer editors) write as JSON lines:
`~/.cursor/projects/<project>/agent-transcripts/<id>/<id>.jsonl` (or `<id>.jsonl` directly in
`agent-transcripts/`), one chat per file, read into the parts of a session record (__init__.py
builds the record).

Cursor is closed source: the layout is the one open-source readers of these files agree on
(cursor-view, git-ai, franken_agent_detection, agentsview). Choices:

- Lines are `{role, message: {content: [blocks]}}` without times: every message takes the file's
  modification time (a line's own `timestamp`, should one appear). The prompt is the text inside
  `<user_query>`; the `[REDACTED]` Cursor writes in a reply where its reasoning was is left out;
  a `tool_use` block becomes `[tool: name] args` in the assistant message and a `tool_result` a
  `tool` message, both cut to `tool_chars`; thinking is kept only with --thinking.
- The chat's id is the file's name. The project is the transcript folder's name (the working
  folder with `/` and `.` as `-`), decoded against the folders that exist.
- Sub-agents' transcripts (`<id>/subagents/`) are left out like Claude Code's.
- Each line is a record of the ledger (`line N`): imported, or left out with its reason; what a
  kept line leaves out (thinking, the context around `<user_query>`) is counted as pieces.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    label,
    read_transcript_lines,
    tool_call_text,
    tool_result_text,
)
from indexer.formats.ledger import Ledger
from models import InvalidSession, parse_time

__all__ = ["AgentTranscript", "default_roots", "is_transcript", "looks_like_line", "project_folder",
           "read_transcript", "tool_output"]

_QUERY = re.compile(r"<user_query>(.*?)</user_query>", re.DOTALL)
THINKING = "thinking"
# what Cursor writes in a reply's text where its reasoning was, alone or after the text: not the
# assistant's words. On every assistant line of the real transcript in tests/data/real/cursor
# (git-ai-project/git-ai tests/fixtures/cursor-session-simple.jsonl at e8ac35b29c18), and
# described as Cursor's own marker by another reader of these files (hippo's Cursor ingestion
# design, "A trailing bare `[REDACTED]` marker is stripped").
_HIDDEN = "[REDACTED]"
HIDDEN_REASONING = "hidden reasoning ([REDACTED])"


@dataclass
class AgentTranscript:
    """What an agent transcript holds, before it becomes a session record."""

    chat_id: str  # the CLI's own id for the chat: the file's name
    cwd: str | None
    messages: list[dict[str, Any]]


def default_roots(home: Path, env: dict[str, str]) -> list[Path]:
    """The folders of the projects' transcripts: `CURSOR_CONFIG_DIR` first when it is set."""
    cli = [Path(env["CURSOR_CONFIG_DIR"]) / "projects"] if env.get("CURSOR_CONFIG_DIR") else []
    return [*cli, home / ".cursor" / "projects"]


def is_transcript(path: Path) -> bool:
    """An agent transcript that is not a sub-agent's."""
    return (path.suffix == ".jsonl" and "agent-transcripts" in path.parts
            and path.parent.name != "subagents")


def looks_like_line(item: Any) -> bool:
    """One line of an agent transcript: `{role, message: {content}}` and no envelope fields
    (Claude Code's lines carry `type` and `uuid`, the archive's own `content` at the top)."""
    return (isinstance(item, dict) and item.get("role") in ("user", "assistant")
            and isinstance(item.get("message"), dict) and "content" in item["message"]
            and not {"type", "content", "uuid", "sessionId"} & item.keys())


def read_transcript(path: Path, text: str, options: ImportOptions,
                    ledger: Ledger) -> AgentTranscript:
    """The chat of a transcript; each line is a record of `ledger` (`line N`), its messages'
    ids `l<N>` (lines have none of their own)."""
    items = read_transcript_lines(text, ledger)
    if path.parent.name == "subagents":
        for number, _ in items:
            ledger.left_out(f"line {number}", "a sub-agent's transcript")
        raise NothingToImport("a Cursor sub-agent's transcript: its parent's holds the task and "
                              "its result")
    time = _modified(path)
    messages: list[dict[str, Any]] = []
    tools: dict[str, str] = {}  # tool_use id -> name, for the results that follow
    recognized = 0
    for number, item in items:
        where = f"line {number}"
        if not isinstance(item, dict):
            ledger.left_out(where, "non-object line")
            continue
        role, message = item.get("role"), item.get("message")
        if not isinstance(role, str) or not isinstance(message, dict):
            ledger.left_out(where, "unknown line")
            continue
        recognized += 1
        if role not in ("user", "assistant"):
            ledger.left_out(where, f"{label(role)} line")
            continue
        pieces: Counter[str] = Counter()
        texts, results = _blocks(role, message.get("content"), tools, options, pieces)
        base = {"role": role, "time": parse_time(item.get("timestamp")) or time}
        content = "\n".join(texts)
        if content:
            messages.append({"id": f"l{number}", **base, "content": content})
        if results:
            messages.append({"id": f"l{number}-results", **base, "role": "tool",
                             "content": "\n".join(results)})
        if content or results:
            ledger.imported(where)
            for piece, count in pieces.items():
                ledger.part_left_out(piece, count)
        elif set(pieces) == {THINKING}:
            ledger.left_out(where, THINKING)
        else:
            ledger.left_out(where, "message left empty")
            for piece, count in pieces.items():
                ledger.part_left_out(piece, count)
    if not recognized:
        raise InvalidSession("not a Cursor agent transcript: no {role, message} lines")
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    return AgentTranscript(path.stem, _transcript_folder(path), messages)


def _blocks(role: str, content: Any, tools: dict[str, str], options: ImportOptions,
            pieces: Counter[str]) -> tuple[list[str], list[str]]:
    """A line's text (the prompt, or the reply with its tool calls) and its tool results; what
    is left out of it goes to `pieces`."""
    limit = options.tool_chars
    texts: list[str] = []
    results: list[str] = []
    blocks = [content] if isinstance(content, str) else content if isinstance(content, list) \
        else []
    if not isinstance(content, str | list) and content is not None:
        pieces["unreadable content"] += 1
    for raw in blocks:
        if not isinstance(raw, str | dict):
            pieces["unreadable block"] += 1
            continue
        block = {"type": "text", "text": raw} if isinstance(raw, str) else raw
        kind, body = block.get("type"), block.get("text")
        if kind == "text" and isinstance(body, str):
            texts.append(_prompt(body, pieces) if role == "user" else _reply(body, pieces))
        elif kind == "thinking" and role == "assistant":
            thought = block.get("thinking") or body
            if options.thinking and isinstance(thought, str) and thought.strip():
                texts.append(f"[thinking] {thought.strip()}")
            else:
                pieces[THINKING] += 1
        elif kind == "tool_use" and role == "assistant":
            name, call_id = block.get("name"), block.get("id")
            if isinstance(call_id, str) and isinstance(name, str):
                tools[call_id] = name
            texts.append(tool_call_text(name, block.get("input"), limit))
        elif kind == "tool_result":
            call_id = block.get("tool_use_id")
            name = tools.get(call_id) if isinstance(call_id, str) else None
            results.append(tool_result_text(name, tool_output(block.get("content", body)),
                                            block.get("is_error") is True, limit))
        elif kind == "image":
            texts.append("[image]")
        else:
            pieces[f"content block {label(kind)}"] += 1
    return [t for t in texts if t], results


def tool_output(value: Any) -> str:
    """A tool result as text: a JSON string is opened and its output field taken when it has
    one (`{"contents": ...}`, `{"output": ...}`); blocks are joined. The editor's tool results
    (editor.py) are read the same way."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.lstrip()[:1] in ("{", "[") else value
        except (json.JSONDecodeError, RecursionError):
            return value
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("output", "contents", "content", "result", "text", "error"):
            if isinstance(value.get(key), str) and value[key].strip():
                return str(value[key])
    if isinstance(value, list) and all(isinstance(_dict(b).get("text"), str) for b in value):
        return "\n".join(b["text"] for b in value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _prompt(text: str, pieces: Counter[str]) -> str:
    """What the user typed: the `<user_query>` parts when Cursor wrapped it with context (the
    context is counted as a piece left out)."""
    queries = _QUERY.findall(text)
    if not queries:
        return text.strip()
    if _QUERY.sub("", text).strip():
        pieces["context Cursor added to the prompt"] += 1
    return "\n".join(q.strip() for q in queries).strip()


def _reply(text: str, pieces: Counter[str]) -> str:
    """The assistant's text without the `[REDACTED]` Cursor writes where its reasoning was (a
    block of its own, or after the text: `"Reading the script.\\n\\n[REDACTED]"`)."""
    text = text.strip()
    if text == _HIDDEN or text.endswith("\n" + _HIDDEN):
        pieces[HIDDEN_REASONING] += 1
        return text.removesuffix(_HIDDEN).rstrip()
    return text


def _modified(path: Path) -> str:
    try:
        time = parse_time(path.stat().st_mtime)
    except OSError as exc:
        raise InvalidSession(f"no time for the transcript: cannot read its modification time "
                             f"({exc.strerror or exc})") from None
    if time is None:
        raise InvalidSession("no time for the transcript: its modification time is out of range")
    return time


def _transcript_folder(path: Path) -> str | None:
    """The working folder a transcript's project folder names, when that folder exists."""
    holder = next((p for p in path.parents if p.name == "agent-transcripts"), None)
    return project_folder(holder.parent.name) if holder else None


def project_folder(slug: str) -> str | None:
    """The folder a project slug encodes (`home-lin-my-app` for /home/lin/my-app: `/` and `.`
    both became `-`, so the reading is checked against the folders that exist)."""
    parts = slug.split("-")
    if not parts[0] or len(parts) > 64:
        return None
    drive = os.name == "nt" and len(parts[0]) == 1 and parts[0].isalpha() and len(parts) > 1
    found = _existing(Path(f"{parts[0]}:/"), parts[1:]) if drive else None  # c-Users-lin-x
    found = found or _existing(Path("/"), parts)
    return str(found) if found else None


def _existing(base: Path, parts: list[str]) -> Path | None:
    """The first reading of parts as a path under base whose every folder exists."""
    if not parts:
        return base
    names = [parts[0]]
    for used in range(1, len(parts) + 1):
        for name in names:
            if name and (base / name).exists():
                found = _existing(base / name, parts[used:])
                if found:
                    return found
        if used < len(parts):  # the next part was in the same name, after a `-` or a `.`
            names = [n + joint + parts[used] for n in names for joint in "-."][:64]
    return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
