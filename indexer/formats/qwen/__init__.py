"""Qwen Code chats: `~/.qwen/projects/<sanitized cwd>/chats/<sessionId>.jsonl` (releases before
the runtime folder kept them in `~/.qwen/tmp/<projectHash>/chats/`), and the whole-file
`session-*.json` chats of older releases. `QWEN_RUNTIME_DIR` moves `~/.qwen`
(packages/core/src/config/storage.ts, getRuntimeBaseDir).

The JSONL log is appended to and never rewritten (packages/core/src/services/
chatRecordingService.ts). Choices:

- `user`, `assistant` and `tool_result` records are the conversation: a user record keeps what
  the user typed (`systemPayload.displayText`) rather than the prompt Qwen Code expanded it
  into; an assistant record its text and `[tool: name] args` lines, its thoughts only with
  --thinking; a tool result is a `tool` message, cut to `tool_chars`. A user record Qwen Code
  sent on its own (a notification, a scheduled prompt) is left out and counted.
- `system` records are bookkeeping (telemetry, snapshots, the model in use) and are counted;
  a `custom_title` names the session (the last one wins), a slash command's invocation is the
  user's message (`/compress`) and its output is left out, a `chat_compression` checkpoint is
  the model's context, not what was said, and is left out.
- A `rewind` re-roots the chain: the records between the one it went back to and the rewind
  are on a dead branch and are left out as rewound, as `qwen --resume` leaves them.
- Sidechain records (a sub-agent's own) are left out and counted.
- The project is the last part of `cwd`; the title is the custom title, else the first prompt
  that is not a command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    folder_name,
    origin,
    read_transcript_lines,
    safe_session_id,
)
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.ledger import Ledger
from indexer.formats.qwen.legacy import read_legacy, written_by_qwen
from indexer.formats.qwen.records import first_line, read_chat
from models import InvalidSession

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like", "parse",
           "parse_value"]

NAME = "qwen"
CHANNEL = "qwen"
ID_PREFIX = "qwen"
TITLE_CHARS = 80
_TYPES = ("user", "assistant", "tool_result", "system")


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    runtime = env.get("QWEN_RUNTIME_DIR")
    base = Path(runtime).expanduser() if runtime else home / ".qwen"
    return [base / "projects", base / "tmp"]


def is_candidate(path: Path) -> bool:
    """A project's chat: a log, or the whole-file chat of older releases."""
    return "chats" in path.parts and (path.suffix == ".jsonl" or (
        path.name.startswith("session-") and path.suffix == ".json"))


def looks_like(item: Any) -> bool:
    """One decoded record that only Qwen Code writes: a ChatRecord whose message is an API
    Content (`parts`, where Claude Code's has `content`) or that carries a `systemPayload`."""
    if not isinstance(item, dict) or item.get("type") not in _TYPES:
        return False
    if not isinstance(item.get("uuid"), str) or not isinstance(item.get("sessionId"), str):
        return False
    message = item.get("message")
    return (isinstance(message, dict) and isinstance(message.get("parts"), list)) \
        or "systemPayload" in item or item["type"] == "tool_result"


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    chat = read_chat(read_transcript_lines(text, ledger), options, ledger)
    if not chat.recognized:
        raise InvalidSession("not a Qwen Code chat: no user, assistant, tool_result or system "
                             "records")
    for _, where in chat.titles[:-1]:
        ledger.merged(where, "a later custom title")
    if chat.titles:
        ledger.imported(chat.titles[-1][1], "the session's title")
    raw_id = chat.session_id or path.stem
    title = chat.titles[-1][0] if chat.titles else None
    return [_transcript(path, raw_id, chat.cwd, None, title, chat.messages, ledger)]


def parse_value(path: Path, value: Any, options: ImportOptions,
                ledger: Ledger) -> list[Transcript]:
    if not written_by_qwen(value, path):
        raise InvalidSession("not a Qwen Code chat: no sessionId, projectHash and messages of "
                             "type qwen")
    messages = read_legacy(value, options, ledger)
    start = value.get("startTime") if isinstance(value.get("startTime"), str) else None
    return [_transcript(path, value["sessionId"], None, start, None, messages, ledger)]


def _transcript(path: Path, raw_id: str, cwd: str | None, start: str | None,
                title: str | None, messages: list[dict[str, Any]],
                ledger: Ledger) -> Transcript:
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": messages, "origin": origin(NAME, raw_id, cwd, path)}
    if start:
        record["date"] = start[:10]
    project = folder_name(cwd)
    if project:
        record["topics"] = [project]
    prompts = [m["content"] for m in messages if m["role"] == "user"]
    first_prompt = next((p for p in prompts if not p.startswith("/")),
                        prompts[0] if prompts else None)
    title = title or (first_line(first_prompt, TITLE_CHARS) if first_prompt else None)
    if title:
        record["title"] = title
    return Transcript.build(record, ledger)


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES, Storage.DOCUMENT),
    default_paths=default_paths, is_candidate=is_candidate, environment=("QWEN_RUNTIME_DIR",),
    resume=Resume("qwen --resume {id}",
                  "Qwen Code resumes sessions of the project folder it runs in: run it in cwd"),
    sniff_line=looks_like, sniff_document=written_by_qwen, read_lines=parse,
    read_document=parse_value)
