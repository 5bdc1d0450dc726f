"""Codex CLI rollouts: `${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`,
one session per file, and the same under `archived_sessions/`.

Each line is `{timestamp, type, payload}` (codex-rs/protocol: `RolloutLine`, `RolloutItem`); each
line is a record of the ledger (`line N`). Choices:

- `session_meta` gives the id, the working folder and the start time (imported as the session's
  metadata; a later one of the same id is merged into it, one of another id, the source of a
  fork, is left out). The project (the last part of `cwd`) is the session's topic.
- Messages come from `response_item` lines: `message` (user and assistant text; `developer`
  messages and the context Codex injects as user text, such as `<environment_context>` and
  AGENTS.md instructions, are left out), `function_call` / `custom_tool_call` /
  `local_shell_call` / `web_search_call` with their outputs, kept compactly like Claude Code's
  tools, and `reasoning`, left out unless asked for.
- The IDE extension (and the desktop app) send the user's turn as what they add
  ("# Context from my IDE setup:" with open tabs and the selection, or "# Files mentioned by
  the user:") followed by "## My request for Codex:" and what the user typed. The user's message
  is only what follows the marker, as Codex itself reads it; what came before is counted as a
  piece left out, and the title never comes from it.
- `event_msg` lines are the interface's copies of the same messages: each is merged into the
  message it repeats (one that repeats none is left out), never imported again. Only a file
  without any `response_item` message (older releases) takes its user and agent messages from
  them.
- `compacted` lines become the session summary (the last one; an earlier one is merged into
  it); `thread_name_updated` events give the title (the last one), else the first prompt does.
  `turn_context` lines, other events and unknown types are left out with their reason.
- Files from releases before the envelope (a first line `{id, timestamp, instructions}`, then
  bare response items and `{"record_type": "state"}` lines) are read the same way.
- A message without an id of its own gets `l<line number>`: stable across re-imports.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from indexer.formats.codex.rollout import ENVELOPES, Reader
from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    clip,
    folder_name,
    origin,
    read_transcript_lines,
    safe_session_id,
)
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like", "parse"]

NAME = "codex"
CHANNEL = "codex"
ID_PREFIX = "codex"
TITLE_CHARS = 80
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
    kind = item.get("type")
    return (isinstance(kind, str) and kind in ENVELOPES and isinstance(item.get("payload"), dict)
            and isinstance(item.get("timestamp"), str))


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    items = read_transcript_lines(text, ledger)
    reader = Reader(options, ledger)
    for number, item in items:
        reader.add(number, item)
    if not reader.recognized:
        raise InvalidSession("not a Codex rollout: no session_meta, response_item or event_msg lines")
    messages = reader.messages()
    title, summary = reader.title(), reader.summary()
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    raw_id = reader.session_id or _file_uuid(path) or path.stem
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": messages,
                              "origin": origin(NAME, raw_id, reader.cwd, path)}
    if reader.started:
        record["date"] = reader.started[:10]
    project = folder_name(reader.cwd)
    if project:
        record["topics"] = [project]
    if summary:
        record["summary"] = summary
    first_prompt = next((m["content"] for m in messages if m["role"] == "user"), None)
    title = title or (clip(first_prompt.split("\n", 1)[0], TITLE_CHARS) if first_prompt else None)
    if title:
        record["title"] = title
    return [Transcript.build(record, ledger)]


def _file_uuid(path: Path) -> str | None:
    match = _UUID_AT_END.search(path.stem)
    return match.group(1) if match else None


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES,),
    default_paths=default_paths, is_candidate=is_candidate, environment=("CODEX_HOME",),
    resume=Resume("codex resume {id}", "Codex finds the session by its id; run it in cwd to keep "
                                       "the same working folder"),
    sniff_line=looks_like, read_lines=parse)
