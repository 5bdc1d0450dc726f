"""Gemini CLI chats: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl` (sub-agents in
`chats/<parentId>/<id>.jsonl`), and the older whole-file `session-*.json`.

The JSONL file is a log that the reader replays, as gemini-cli's own loader does
(packages/core/src/services/chatRecordingService.ts, loadConversationRecord):

- the first line is the metadata `{sessionId, projectHash, startTime, lastUpdated, kind, ...}`;
- a line with an `id` is a message, written again in full whenever its tool calls, thoughts or
  tokens change: the last write wins, the first write keeps its place;
- `{"$set": {...}}` patches the metadata (`summary`, `lastUpdated`, ...). A `$set` of `messages`
  is the model's context after a compression (a `<state_snapshot>` in place of what came
  before): the archive keeps what was said, so it is used only by a log without messages of its
  own, and its new messages are otherwise counted;
- `{"$rewindTo": id}` drops that message and every later one (an unknown id drops them all); the
  rewound messages are not imported and are counted.

Messages of type `user` and `gemini` are kept; `info`, `error` and `warning` notices are left
out and counted. A user message keeps what the user typed (`displayContent`, e.g. `/init`)
rather than the prompt Gemini CLI expanded it into; the turn Gemini CLI sends on its own
("System: Please continue.") is left out. A message without an id (older releases) gets one
from its place in the chat. A gemini message's tool calls become `[tool: name] args` lines, and their
results a `tool` message after it, cut to `tool_chars`; thoughts are kept only with --thinking.
The project is the folder's path from `~/.gemini/projects.json` when it names it, else the
folder's own name (unless that is a hash); the metadata summary becomes the session summary.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    clip,
    folder_name,
    label,
    origin,
    read_transcript_lines,
    safe_session_id,
    tool_call_text,
    tool_result_text,
)
from indexer.formats.contract import Format, Metadata, Resume, Storage
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["CHANNEL", "FORMAT", "NAME", "PROJECTS", "default_paths", "is_candidate", "looks_like", "looks_like_document",
           "looks_like_projects", "parse", "parse_value", "written_by_qwen"]

NAME = "gemini"
CHANNEL = "gemini"
ID_PREFIX = "gemini"
TITLE_CHARS = 80
_KEPT = {"user": "user", "gemini": "assistant"}
# what Gemini CLI sends as the user when it continues on its own (a turn nobody typed)
_INJECTED = {"System: Please continue."}
_HASH = re.compile(r"[0-9a-f]{64}")


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    return [home / ".gemini" / "tmp"]


def is_candidate(path: Path) -> bool:
    """A project's chat: a log, or the whole-file chat of older releases."""
    return "chats" in path.parts and (path.suffix == ".jsonl" or path.name.startswith("session-"))


def looks_like(item: Any) -> bool:
    """One decoded line that only Gemini CLI writes: its metadata line or a log operation."""
    if not isinstance(item, dict):
        return False
    if isinstance(item.get("$rewindTo"), str) or isinstance(item.get("$set"), dict):
        return True
    return isinstance(item.get("sessionId"), str) and isinstance(item.get("projectHash"), str)


def looks_like_projects(value: Any) -> bool:
    """`~/.gemini/projects.json`: which folder each project directory is; no conversation."""
    return (isinstance(value, dict) and set(value) == {"projects"}
            and isinstance(value["projects"], dict)
            and all(isinstance(v, str) for v in value["projects"].values()))


def looks_like_document(value: Any) -> bool:
    """A whole-file session of older releases: the metadata with its `messages` list."""
    return looks_like(value) and isinstance(value.get("messages"), list)


def written_by_qwen(value: Any, path: Path) -> bool:
    """A whole-file chat of older Qwen Code releases, which kept Gemini CLI's shape: its model's
    messages are of type `qwen`. One without any reply is told by where it is (`~/.qwen`)."""
    if not looks_like_document(value):
        return False
    kinds = {m.get("type") for m in value["messages"]
             if isinstance(m, dict) and isinstance(m.get("type"), str)}
    return "qwen" in kinds or ("gemini" not in kinds and ".qwen" in path.parts)


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    items = read_transcript_lines(text, ledger)
    log = _Log(ledger)
    for number, item in items:
        log.apply(item, f"line {number}")
    if not log.metadata.get("sessionId"):
        raise InvalidSession("not a Gemini CLI chat: no line with sessionId and projectHash")
    return [_transcript(path, log.metadata, log.conversation(), options, ledger)]


def parse_value(path: Path, value: Any, options: ImportOptions,
                ledger: Ledger) -> list[Transcript]:
    if not looks_like_document(value):
        raise InvalidSession("not a Gemini CLI chat: no sessionId, projectHash and messages")
    messages = []
    for n, message in enumerate(value["messages"]):
        where = f"messages[{n}]"
        ledger.read(where)
        if isinstance(message, dict):
            messages.append((where, message))
        else:
            ledger.left_out(where, "unreadable message (not an object)")
    return [_transcript(path, value, messages, options, ledger)]


class _Log:
    """The replayed state of a chat log: metadata and messages by id, in first-write order."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.metadata: dict[str, Any] = {}
        self.messages: dict[str, tuple[str, dict[str, Any]]] = {}  # id -> (where, message)
        self.checkpoint: list[tuple[str, dict[str, Any]]] = []  # the last $set of messages

    def apply(self, item: Any, where: str) -> None:
        if not isinstance(item, dict):
            self.ledger.left_out(where, "non-object line")
        elif isinstance(item.get("$rewindTo"), str):
            self.ledger.left_out(where, "rewind marker (applied)")
            self._rewind(item["$rewindTo"])
        elif isinstance(item.get("id"), str):
            earlier = self.messages.get(item["id"])
            if earlier is not None:  # written again: the last write wins, in the first's place
                self.ledger.merged(earlier[0], f"its later write on {where}")
            self.messages[item["id"]] = (where, item)
        elif isinstance(item.get("$set"), dict):
            patch = dict(item["$set"])
            if isinstance(patch.get("messages"), list):
                self.checkpoint = [(where, m) for m in patch.pop("messages")
                                   if isinstance(m, dict) and isinstance(m.get("id"), str)]
            self.ledger.imported(where, "metadata update")
            self.metadata.update(patch)
        elif isinstance(item.get("sessionId"), str):
            self.ledger.imported(where, "session metadata")
            self.metadata.update({k: v for k, v in item.items() if k != "messages"})
        else:
            self.ledger.left_out(where, "unknown line")

    def conversation(self) -> list[tuple[str, dict[str, Any]]]:
        if not self.messages:
            return self.checkpoint
        unseen = sum(1 for _, m in self.checkpoint if m["id"] not in self.messages)
        if unseen:
            self.ledger.part_left_out("context checkpoint message", unseen)
        return list(self.messages.values())

    def _rewind(self, target: str) -> None:
        ids = list(self.messages)
        dropped = ids[ids.index(target):] if target in self.messages else ids
        for message_id in dropped:
            where, _ = self.messages.pop(message_id)
            self.ledger.left_out(where, "rewound message")


def _transcript(path: Path, metadata: dict[str, Any],
                messages: list[tuple[str, dict[str, Any]]], options: ImportOptions,
                ledger: Ledger) -> Transcript:
    out: list[dict[str, Any]] = []
    for n, (where, message) in enumerate(messages):
        out += _render(message, n, where, options, ledger)
    if not out:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, metadata["sessionId"]),
                              "channel": CHANNEL, "messages": out,
                              "origin": origin(NAME, metadata["sessionId"], _project_path(path),
                                               path)}
    if isinstance(metadata.get("startTime"), str):
        record["date"] = metadata["startTime"][:10]
    project = _project(path)
    if project:
        record["topics"] = [project]
    if isinstance(metadata.get("summary"), str) and metadata["summary"].strip():
        record["summary"] = metadata["summary"].strip()
    prompts = [m["content"] for m in out if m["role"] == "user"]
    # what the user asked first: a slash command names the session only when nothing else does
    first_prompt = next((p for p in prompts if not p.startswith("/")), prompts[0] if prompts else None)
    if first_prompt:
        record["title"] = clip(first_prompt.split("\n", 1)[0], TITLE_CHARS)
    return Transcript.build(record, ledger)


def _render(message: dict[str, Any], position: int, where: str, options: ImportOptions,
            ledger: Ledger) -> list[dict[str, Any]]:
    """A message as the archive's messages: its text (with tool call lines and, on request,
    thoughts), then its tool results as one `tool` message. A message without an id (older
    releases) gets one from its place in the chat."""
    kind = message.get("type")
    role = _KEPT.get(kind) if isinstance(kind, str) else None
    if role is None:
        ledger.left_out(where, f"{label(kind)} message (a notice, not conversation)")
        return []
    message_id = message["id"] if isinstance(message.get("id"), str) and message["id"] \
        else f"m{position + 1}"
    limit = options.tool_chars
    lines = []
    if role == "assistant":
        for thought in _listed(message, "thoughts", ledger):
            if not isinstance(thought, dict):
                continue
            text = ": ".join(str(thought[k]).strip() for k in ("subject", "description")
                             if isinstance(thought.get(k), str) and thought[k].strip())
            if options.thinking and text:
                lines.append(f"[thinking] {text}")
            else:
                ledger.part_left_out("thought")
    content = _parts_text(message.get("content"))
    if role == "user" and content in _INJECTED:
        ledger.left_out(where, "turn injected by the agent (System: Please continue.)")
        return []
    typed = _typed_text(message.get("displayContent"))
    if role == "user" and typed and typed != content:
        # what the user typed (`/init`), not the prompt Gemini CLI expanded it into
        ledger.part_left_out("prompt expanded from what the user typed")
        content = typed
    lines.append(content)
    calls = [c for c in _listed(message, "toolCalls", ledger) if isinstance(c, dict)]
    lines += [tool_call_text(c.get("name"), c.get("args"), limit) for c in calls]
    results = [tool_result_text(c.get("name") if isinstance(c.get("name"), str) else None,
                                _parts_text(c.get("result")), c.get("status") == "error", limit)
               for c in calls if c.get("result") is not None]
    base = {"time": message["timestamp"]} if isinstance(message.get("timestamp"), str) else {}
    out = []
    text = "\n".join(line for line in lines if line.strip())
    if text:
        out.append({"id": message_id, "role": role, "content": text, **base})
    if results:
        out.append({"id": f"{message_id}-results", "role": "tool",
                    "content": "\n".join(results), **base})
    if out:
        ledger.imported(where)
    else:
        ledger.left_out(where, "message left empty")
    return out


def _listed(message: dict[str, Any], key: str, ledger: Ledger) -> list[Any]:
    """A message's list under `key` (thoughts, tool calls); a value of another type is counted
    and read as none, so it costs that piece and never the message."""
    value = message.get(key)
    if value is None or isinstance(value, list):
        return value or []
    ledger.part_left_out(f"unreadable {key} (not a list)")
    return []


def _typed_text(value: Any) -> str:
    """The text parts of a `displayContent` (a string or parts): what the user typed; a function
    response shown there is not."""
    parts = [value] if isinstance(value, str | dict) else value if isinstance(value, list) else []
    texts = [p if isinstance(p, str) else p.get("text") for p in parts
             if isinstance(p, str) or (isinstance(p, dict) and isinstance(p.get("text"), str))]
    return "\n".join(t.strip() for t in texts if isinstance(t, str) and t.strip())


def _parts_text(value: Any) -> str:
    """The text of a PartListUnion: a string, a part, or a list of them. A function response
    gives its output (or error); inline data stands as a marker."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return ""
    texts = []
    for part in value:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict):
            if isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"].get("response")
                if isinstance(response, dict):
                    shown = response.get("output", response.get("error", response))
                    texts.append(shown if isinstance(shown, str)
                                 else json.dumps(shown, ensure_ascii=False, default=str))
            elif "inlineData" in part or "fileData" in part:
                texts.append("[file]")
    return "\n".join(t.strip() for t in texts if t.strip())


def _project(path: Path) -> str | None:
    """The chat's project name: its folder's from ~/.gemini/projects.json when that maps it,
    else the project folder's own name (`tmp/<slug>/chats/`) when it is not a hash of the path."""
    mapped = _project_path(path)
    if mapped:
        return folder_name(mapped)
    chats = _chats(path)
    slug = chats.parent.name if chats else None
    return None if not slug or _HASH.fullmatch(slug) else slug


def _project_path(path: Path) -> str | None:
    """The folder the chat's project is, when ~/.gemini/projects.json names it."""
    chats = _chats(path)
    if chats is None:
        return None
    return _projects_file(chats.parent.parent.parent / "projects.json").get(chats.parent.name)


def _chats(path: Path) -> Path | None:
    """The `chats` folder the chat is in (sub-agents' chats are one level deeper)."""
    return next((p for p in path.parents if p.name == "chats"), None)


def _projects_file(path: Path) -> dict[str, str]:
    """slug -> project path, from `{"projects": {path: slug}}` or `{path: slug}`; empty when the
    file is missing or unreadable."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if isinstance(data, dict) and isinstance(data.get("projects"), dict):
        data = data["projects"]
    if not isinstance(data, dict):
        return {}
    return {slug: folder for folder, slug in data.items()
            if isinstance(folder, str) and isinstance(slug, str)}


PROJECTS = Metadata("gemini-projects", "Gemini CLI project list (projects.json)",
                    looks_like_projects)
FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES, Storage.DOCUMENT),
    default_paths=default_paths, is_candidate=is_candidate,
    resume=Resume("gemini --resume {id}",
                  "Gemini CLI resumes sessions of its project folder: run it in cwd (releases "
                  "before session ids take a number from `gemini --list-sessions`)"),
    sniff_line=looks_like,
    sniff_document=lambda value, path: looks_like_document(value) and not written_by_qwen(value,
                                                                                           path),
    read_lines=parse, read_document=parse_value, metadata=(PROJECTS,))
