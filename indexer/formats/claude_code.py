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
- What the interface wrote into a user line is told apart from what the user typed: a slash
  command (`<command-name>/model</command-name>` and its arguments) becomes the command as typed
  (`/model sonnet`), a shell escape (`<bash-input>`) becomes `! git status`, their output
  (`<local-command-stdout>`, `<bash-stdout>`) a `tool` message, and the marker of an interrupted
  request (`[Request interrupted by user…]`) is left out and counted. The title is the first
  prompt that is not a command.
- `summary` lines become the session summary when their `leafUuid` is a line of this file (a
  resumed session's file also holds the summaries of the sessions before it, which are left
  out); a summary with no `leafUuid` at all is used when there is no such line. A compacted
  conversation's continuation prompt (`isCompactSummary`, or in 1.0 releases a plain user line
  opening "This session is being continued from a previous conversation") is kept as a
  `system` message. Other `system` lines are kept, cut like tool output; `compact_boundary`
  markers are counted. Any other line type is counted and skipped, never fatal.
- The project is the last part of `cwd`; it is the session's topic. The title is the first
  prompt (as `claude --resume` shows it), or a `custom-title` line when there is one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    block_texts,
    clip,
    folder_name,
    label,
    origin,
    read_json_lines,
    safe_session_id,
    tool_call_text,
    tool_result_text,
)
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like", "parse"]

NAME = "claude-code"
CHANNEL = "claude-code"
ID_PREFIX = "claude-code"
TITLE_CHARS = 80
# line types Claude Code writes that hold no conversation; skipped without being called unknown
_BOOKKEEPING = {"file-history-snapshot", "queue-operation", "progress", "custom-title",
                "last-prompt"}
# what Claude Code writes into a user line for a slash command, a shell escape and their output
_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_COMMAND_OUTPUT = re.compile(r"<local-command-std(?:out|err)>(.*?)</local-command-std(?:out|err)>",
                             re.DOTALL)
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.DOTALL)
_BASH_OUTPUT = re.compile(r"<bash-std(?:out|err)>(.*?)</bash-std(?:out|err)>", re.DOTALL)
_INTERRUPTED = re.compile(r"\[Request interrupted by user[^\]]*\]")
_CONTINUED = "This session is being continued from a previous conversation"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


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
    return isinstance(kind, str) and "uuid" in item and "sessionId" in item \
        and not _qwen_shaped(item)


def _qwen_shaped(item: dict[str, Any]) -> bool:
    """Qwen Code's records share the envelope, but carry an API Content (`parts`, never Claude
    Code's `content`), a `systemPayload` or a `tool_result` type."""
    message = item.get("message")
    return (isinstance(message, dict) and isinstance(message.get("parts"), list)) \
        or "systemPayload" in item or item.get("type") == "tool_result"


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    items, _ = read_json_lines(text, ledger)
    builder = _Builder(options, ledger)
    summaries: list[tuple[str, Any, str]] = []  # text, leafUuid, where
    titles: list[tuple[str, str]] = []
    session_ids: list[str] = []
    cwd = None
    recognized = 0
    for number, item in items:
        where = f"line {number}"
        if not isinstance(item, dict):
            ledger.left_out(where, "non-object line")
            continue
        kind = item.get("type") if isinstance(item.get("type"), str) else None
        if kind == "summary":
            recognized += 1
            if isinstance(item.get("summary"), str) and item["summary"].strip():
                summaries.append((item["summary"].strip(), item.get("leafUuid"), where))
            else:
                ledger.left_out(where, "empty summary line")
            continue
        if kind == "custom-title" and isinstance(item.get("customTitle"), str) \
                and item["customTitle"].strip():
            recognized += 1
            titles.append((item["customTitle"].strip(), where))
            continue
        if kind in _BOOKKEEPING:
            recognized += 1
            ledger.left_out(where, f"line type {label(kind)}")
            continue
        if kind not in ("user", "assistant", "system"):
            ledger.left_out(where, f"unknown line type {label(kind)}" if kind
                            else "line without type")
            continue
        recognized += 1
        if item.get("isSidechain") is True:
            ledger.left_out(where, "sidechain line")
            continue
        if isinstance(item.get("sessionId"), str):
            session_ids.append(item["sessionId"])
        if cwd is None and isinstance(item.get("cwd"), str) and item["cwd"].strip():
            cwd = item["cwd"].strip()
        builder.add(kind, item, where)
    if not items:
        raise NothingToImport("the file is empty")
    if not recognized:
        raise InvalidSession("not a Claude Code transcript: no user, assistant or summary lines")
    messages = builder.messages()
    summary = _summary(summaries, builder.uuids, ledger)
    title = _title(titles, ledger)
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")

    # the file is named by its session; lines copied from a resumed session carry the earlier
    # session's id before the file's own, which its last lines carry
    raw_id = path.stem if path.stem in session_ids or not session_ids else session_ids[-1]
    record: dict[str, Any] = {
        "sessionId": safe_session_id(ID_PREFIX, raw_id),
        "channel": CHANNEL,
        "messages": messages,
        "origin": origin(NAME, raw_id, cwd, path),
    }
    project = folder_name(cwd)
    if project:
        record["topics"] = [project]
    if summary:
        record["summary"] = summary
    # the first prompt names the session, as in `claude --resume`; a command only when the
    # session holds nothing else the user typed
    typed = [m["content"] for m in messages if m["role"] == "user"]
    first_prompt = next((t for t in typed if not t.startswith(("<", "/", "! "))),
                        typed[0] if typed else None)
    title = title or (clip(first_prompt.split("\n", 1)[0], TITLE_CHARS) if first_prompt else None)
    if title:
        record["title"] = title
    return [Transcript.build(record, ledger)]


class _Builder:
    """Collects messages in order, merging assistant lines that share a message id."""

    def __init__(self, options: ImportOptions, ledger: Ledger) -> None:
        self.options = options
        self.ledger = ledger
        self.entries: list[dict[str, Any]] = []
        self.by_message_id: dict[str, dict[str, Any]] = {}
        self.tool_names: dict[str, str] = {}
        self.uuids: set[str] = set()

    def add(self, kind: str, item: dict[str, Any], where: str) -> None:
        if isinstance(item.get("uuid"), str):
            self.uuids.add(item["uuid"])
        if item.get("isMeta") is True:
            self.ledger.left_out(where, "meta line")
            return
        if kind == "system":
            self._system(item, where)
            return
        message = item.get("message")
        if not isinstance(message, dict):
            self.ledger.left_out(where, f"{kind} line without message")
            return
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            self.ledger.left_out(where, f"{kind} line with unreadable content")
            return
        if kind == "assistant":
            key = message.get("id")
            if isinstance(key, str) and key in self.by_message_id:
                first = self.by_message_id[key]
                first["blocks"].extend(blocks)
                self.ledger.merged(where, f"the reply begun on {first['where']}")
                return
            entry = self._entry(item, "assistant", blocks, where)
            if isinstance(key, str):
                self.by_message_id[key] = entry
            return
        role = "system" if item.get("isCompactSummary") is True else "user"
        if role == "user" and blocks and all(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
            role = "tool"
        if role == "user":
            typed = self._typed(blocks, where)
            if typed is None:
                return
            role, blocks = typed
        self._entry(item, role, blocks, where)

    def _typed(self, blocks: list[Any], where: str) -> tuple[str, list[Any]] | None:
        """A user line as what the user typed, told apart from what the interface wrote into
        it: (role, blocks), or None when it holds only a marker (then left out)."""
        if not all(isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
                   for b in blocks):
            return "user", blocks  # images, documents, tool results: as they are
        text = "\n".join(b["text"] for b in blocks).strip()
        limit = self.options.tool_chars
        if _INTERRUPTED.fullmatch(text):
            self.ledger.left_out(where, "interruption marker")
            return None
        if text.startswith(_CONTINUED):
            return "system", blocks
        command = _COMMAND.search(text)
        if command:
            name = command.group(1).strip()
            name = name if name.startswith("/") else f"/{name}"
            args = _COMMAND_ARGS.search(text)
            typed = f"{name} {args.group(1).strip() if args else ''}".strip()
            return "user", [{"type": "text", "text": typed}]
        output = _COMMAND_OUTPUT.findall(text) or _BASH_OUTPUT.findall(text)
        if output and not _strip_tags(text):
            shown = _ANSI.sub("", "\n".join(o.strip() for o in output if o.strip()))
            kind = "command output" if _COMMAND_OUTPUT.search(text) else "shell output"
            return "tool", [{"type": "text", "text": f"[{kind}] {clip(shown, limit)}".rstrip()}]
        shell = _BASH_INPUT.search(text)
        if shell:
            return "user", [{"type": "text", "text": f"! {shell.group(1).strip()}"}]
        return "user", blocks

    def _system(self, item: dict[str, Any], where: str) -> None:
        if item.get("subtype") == "compact_boundary":
            self.ledger.left_out(where, "compaction marker")
            return
        content = item.get("content")
        if not isinstance(content, str) or not content.strip():
            self.ledger.left_out(where, "system line without text")
            return
        text = clip(content, self.options.tool_chars)
        self._entry(item, "system", [{"type": "text", "text": text}], where)

    def _entry(self, item: dict[str, Any], role: str, blocks: list[Any],
               where: str) -> dict[str, Any]:
        entry = {"id": item.get("uuid"), "role": role, "time": item.get("timestamp"),
                 "blocks": blocks, "where": where}
        self.entries.append(entry)
        return entry

    def messages(self) -> list[dict[str, Any]]:
        out = []
        for entry in self.entries:
            content = "\n".join(t for t in (self._block(b) for b in entry["blocks"]) if t)
            if not content.strip():
                self.ledger.left_out(entry["where"], "message left empty (thinking or "
                                                     "unknown blocks only)")
                continue
            self.ledger.imported(entry["where"])
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
            self.ledger.part_left_out("unreadable block")
            return ""
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            return text if isinstance(text, str) else ""
        if kind in ("thinking", "redacted_thinking"):
            thinking = block.get("thinking")
            if self.options.thinking and isinstance(thinking, str) and thinking.strip():
                return f"[thinking] {thinking.strip()}"
            self.ledger.part_left_out("thinking block")
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
        self.ledger.part_left_out(f"block type {label(kind)}")
        return ""


def _result_text(content: Any) -> str:
    return "\n".join(block_texts(content, ("image", "document")))


def _summary(summaries: list[tuple[str, Any, str]], uuids: set[str], ledger: Ledger) -> str | None:
    """The summary of this session: the last whose leaf is one of its lines; else the last one
    that names no leaf. Summaries of the sessions a resumed one continued are left out."""
    own = [(text, where) for text, leaf, where in summaries if isinstance(leaf, str) and leaf in uuids]
    unnamed = [(text, where) for text, leaf, where in summaries if not isinstance(leaf, str)]
    candidates = own or unnamed
    chosen = candidates[-1] if candidates else None
    for _, leaf, where in summaries:
        if chosen and where == chosen[1]:
            ledger.imported(where, "the session's summary")
        elif isinstance(leaf, str) and leaf not in uuids:
            ledger.left_out(where, "summary of another session")
        else:
            ledger.merged(where, "a later summary")
    return chosen[0] if chosen else None


def _title(titles: list[tuple[str, str]], ledger: Ledger) -> str | None:
    """The newest custom title; the earlier ones it replaced are merged into it."""
    for _, where in titles[:-1]:
        ledger.merged(where, "a later custom title")
    if titles:
        ledger.imported(titles[-1][1], "the session's title")
    return titles[-1][0] if titles else None


def _strip_tags(text: str) -> str:
    """What is left of a line once the command and shell output tags are taken out."""
    return _BASH_OUTPUT.sub("", _COMMAND_OUTPUT.sub("", text)).strip()


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES,),
    default_paths=default_paths, is_candidate=is_candidate, environment=("CLAUDE_CONFIG_DIR",),
    resume=Resume("claude --resume {id}",
                  "Claude Code resumes sessions of the folder it runs in: run it in cwd"),
    sniff_line=looks_like, read_lines=parse)
