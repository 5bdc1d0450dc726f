"""Claude Code transcripts: `~/.claude/projects/<project-slug>/<sessionId>.jsonl`, one session
per file.

Each line is an envelope (`type`, `uuid`, `parentUuid`, `sessionId`, `timestamp`, `cwd`,
`gitBranch`, `isSidechain`) around an API `message` whose `content` is a string or a list of
blocks (text, thinking, tool_use, tool_result, image). Choices:

- Lines are kept in file order. Assistant lines that share `message.id` are one reply that was
  written block by block, so they become one message (the first line's uuid and time).
- Sidechain lines (`isSidechain: true`, a sub-agent's own conversation) are left out and counted:
  the main transcript already holds the Task call and the sub-agent's final report as its tool
  result. A file of sidechain lines only (`agent-*.jsonl`) has nothing to import.
- Tool calls and results are kept compactly (name and input or output cut to `tool_chars`);
  a user line holding only tool results becomes a `tool` message. Thinking is left out unless
  asked for. Meta lines (`isMeta`, e.g. the local-command caveat) are left out.
- `summary` lines become the session summary (the one whose `leafUuid` is in this file, else the
  last one); a compacted conversation's continuation prompt (`isCompactSummary`) is kept as a
  `system` message. Other `system` lines are kept, cut like tool output; `compact_boundary`
  markers are counted. Any other line type is counted and skipped, never fatal.
- The project is the last part of `cwd`; it is the session's topic. The title is the first
  prompt (as `claude --resume` shows it), or a `custom-title` line when there is one.
"""

from __future__ import annotations

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
    read_json_lines,
    safe_session_id,
    tool_call_text,
    tool_result_text,
)
from models import InvalidSession

__all__ = ["CHANNEL", "NAME", "default_paths", "is_candidate", "looks_like", "parse"]

NAME = "claude-code"
CHANNEL = "claude-code"
ID_PREFIX = "claude-code"
# how the agent reopens one of its sessions (`recall resume`): a command, or None and why not
RESUME = ("claude --resume {id}",
          "Claude Code resumes sessions of the folder it runs in: run it in cwd")
TITLE_CHARS = 80
# line types Claude Code writes that hold no conversation; skipped without being called unknown
_BOOKKEEPING = {"file-history-snapshot", "queue-operation", "progress", "custom-title"}


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    config = env.get("CLAUDE_CONFIG_DIR")
    return [Path(config).expanduser() / "projects" if config else home / ".claude" / "projects"]


def is_candidate(path: Path) -> bool:
    """A session transcript: a `.jsonl` file under the default location."""
    return path.suffix == ".jsonl"


def looks_like(item: Any) -> bool:
    """One decoded line that only Claude Code writes."""
    if not isinstance(item, dict):
        return False
    kind = item.get("type")
    if kind == "summary" and "leafUuid" in item:
        return True
    if kind == "file-history-snapshot" and "snapshot" in item:
        return True
    return isinstance(kind, str) and "uuid" in item and "sessionId" in item


def parse(path: Path, text: str, options: ImportOptions) -> list[Transcript]:
    items, torn = read_json_lines(text)
    skipped: Counter[str] = Counter()
    if torn:
        skipped["torn last line"] += 1
    builder = _Builder(options, skipped)
    summaries: list[tuple[str, Any]] = []
    session_ids: list[str] = []
    cwd = None
    title = None
    recognized = 0
    for _, item in items:
        if not isinstance(item, dict):
            skipped["non-object line"] += 1
            continue
        kind = item.get("type") if isinstance(item.get("type"), str) else None
        if kind == "summary":
            recognized += 1
            if isinstance(item.get("summary"), str) and item["summary"].strip():
                summaries.append((item["summary"].strip(), item.get("leafUuid")))
            continue
        if kind == "custom-title" and isinstance(item.get("customTitle"), str):
            recognized += 1
            title = item["customTitle"].strip() or title
            continue
        if kind in _BOOKKEEPING:
            recognized += 1
            skipped[f"line type {label(kind)}"] += 1
            continue
        if kind not in ("user", "assistant", "system"):
            skipped[f"unknown line type {label(kind)}" if kind else "line without type"] += 1
            continue
        recognized += 1
        if item.get("isSidechain") is True:
            skipped["sidechain line"] += 1
            continue
        if isinstance(item.get("sessionId"), str):
            session_ids.append(item["sessionId"])
        if cwd is None and isinstance(item.get("cwd"), str) and item["cwd"].strip():
            cwd = item["cwd"].strip()
        builder.add(kind, item)
    if not items:
        raise NothingToImport("the file is empty")
    if not recognized:
        raise InvalidSession("not a Claude Code transcript: no user, assistant or summary lines")
    messages = builder.messages()
    if not messages:
        raise NothingToImport(f"no conversation messages ({describe_skipped(skipped)})")

    # the file is named by its session; lines copied from a resumed session may carry another id
    raw_id = path.stem if path.stem in session_ids or not session_ids else session_ids[0]
    record: dict[str, Any] = {
        "sessionId": safe_session_id(ID_PREFIX, raw_id),
        "channel": CHANNEL,
        "messages": messages,
        "origin": origin(NAME, raw_id, cwd, path),
    }
    project = folder_name(cwd)
    if project:
        record["topics"] = [project]
    summary = _summary(summaries, builder.uuids)
    if summary:
        record["summary"] = summary
    # the first prompt names the session, as in `claude --resume`; slash commands do not
    first_prompt = next((m["content"] for m in messages
                         if m["role"] == "user" and not m["content"].startswith("<")), None)
    title = title or (clip(first_prompt.split("\n", 1)[0], TITLE_CHARS) if first_prompt else None)
    if title:
        record["title"] = title
    return [Transcript.build(record, skipped)]


class _Builder:
    """Collects messages in order, merging assistant lines that share a message id."""

    def __init__(self, options: ImportOptions, skipped: Counter[str]) -> None:
        self.options = options
        self.skipped = skipped
        self.entries: list[dict[str, Any]] = []
        self.by_message_id: dict[str, dict[str, Any]] = {}
        self.tool_names: dict[str, str] = {}
        self.uuids: set[str] = set()

    def add(self, kind: str, item: dict[str, Any]) -> None:
        if isinstance(item.get("uuid"), str):
            self.uuids.add(item["uuid"])
        if item.get("isMeta") is True:
            self.skipped["meta line"] += 1
            return
        if kind == "system":
            self._system(item)
            return
        message = item.get("message")
        if not isinstance(message, dict):
            self.skipped[f"{kind} line without message"] += 1
            return
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            self.skipped[f"{kind} line with unreadable content"] += 1
            return
        if kind == "assistant":
            key = message.get("id")
            if isinstance(key, str) and key in self.by_message_id:
                self.by_message_id[key]["blocks"].extend(blocks)
                return
            entry = self._entry(item, "assistant", blocks)
            if isinstance(key, str):
                self.by_message_id[key] = entry
            return
        role = "system" if item.get("isCompactSummary") is True else "user"
        if role == "user" and blocks and all(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
            role = "tool"
        self._entry(item, role, blocks)

    def _system(self, item: dict[str, Any]) -> None:
        if item.get("subtype") == "compact_boundary":
            self.skipped["compaction marker"] += 1
            return
        content = item.get("content")
        if not isinstance(content, str) or not content.strip():
            self.skipped["system line without text"] += 1
            return
        text = clip(content, self.options.tool_chars)
        self._entry(item, "system", [{"type": "text", "text": text}])

    def _entry(self, item: dict[str, Any], role: str, blocks: list[Any]) -> dict[str, Any]:
        entry = {"id": item.get("uuid"), "role": role, "time": item.get("timestamp"),
                 "blocks": blocks}
        self.entries.append(entry)
        return entry

    def messages(self) -> list[dict[str, Any]]:
        out = []
        for entry in self.entries:
            content = "\n".join(t for t in (self._block(b) for b in entry["blocks"]) if t)
            if not content.strip():
                self.skipped["message left empty"] += 1
                continue
            message = {"role": entry["role"], "content": content}
            if isinstance(entry["id"], str) and entry["id"]:
                message["id"] = entry["id"]
            if isinstance(entry["time"], str | int | float):
                message["time"] = entry["time"]
            out.append(message)
        return out

    def _block(self, block: Any) -> str:
        limit = self.options.tool_chars
        if isinstance(block, str):
            return block
        if not isinstance(block, dict):
            self.skipped["unreadable block"] += 1
            return ""
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            return text if isinstance(text, str) else ""
        if kind in ("thinking", "redacted_thinking"):
            thinking = block.get("thinking")
            if self.options.thinking and isinstance(thinking, str) and thinking.strip():
                return f"[thinking] {thinking.strip()}"
            self.skipped["thinking block"] += 1
            return ""
        if kind in ("tool_use", "server_tool_use"):
            if isinstance(block.get("id"), str) and isinstance(block.get("name"), str):
                self.tool_names[block["id"]] = block["name"]
            return tool_call_text(block.get("name"), block.get("input"), limit)
        if kind == "tool_result":
            use_id = block.get("tool_use_id")
            name = self.tool_names.get(use_id) if isinstance(use_id, str) else None
            return tool_result_text(name, _result_text(block.get("content")),
                                    block.get("is_error") is True, limit)
        if kind in ("image", "document"):
            return f"[{kind}]"
        self.skipped[f"block type {label(kind)}"] += 1
        return ""


def _result_text(content: Any) -> str:
    return "\n".join(block_texts(content, ("image", "document")))


def _summary(summaries: list[tuple[str, Any]], uuids: set[str]) -> str | None:
    own = [text for text, leaf in summaries if isinstance(leaf, str) and leaf in uuids]
    if own:
        return own[-1]
    return summaries[-1][0] if summaries else None
