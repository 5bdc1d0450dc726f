"""Grok Build (xai-org/grok-build): one session a folder,
`~/.grok/sessions/<URL-encoded working folder>/<session id>/`, `~/.grok` moved by `GROK_HOME`
(crates/codegen/xai-grok-pager/docs/user-guide/17-sessions.md and xai-grok-shell's
session/persistence.rs @ 19d42e35c07a9c9244f03f6df0c4c353f970d4f9).

The folder holds `updates.jsonl`, "the authoritative conversation log that drives /resume"
(what updates.py reads), `summary.json` (the session's id, folder, title and times),
`chat_history.jsonl` (the messages as last sent to the model, rewritten by compaction) and
files of state (plan, signals, rewind points, feedback). Choices:

- The session is read from `updates.jsonl` alone; `summary.json` beside it gives the id, the
  working folder and the title (`generated_title`, else `session_summary`), else the folder's
  names do and the title is the first prompt. `summary.json` and the files of state beside the
  log (side_files.py: chat history, plan, signals, prompt context, rewind points, feedback, /btw
  side questions, compaction checkpoints, sub-agents' records) are recognized by content and
  have nothing to import, as have the JSON files at the top of `~/.grok` (home_files.py). A
  sub-agent's session is a session folder of its own, read as any other.
- Prompts, replies with their tool calls (compact), each tool's result or failure; thinking only
  with `--thinking`; turns a rewind abandoned, plans, interface events and unknown update types
  are left out and counted.
- Ids `grok-<session id>`, reopened with `grok --resume <id>` in the session's folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

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
from indexer.formats.contract import Format, Metadata, Resume, Storage
from indexer.formats.grok import home_files
from indexer.formats.grok.side_files import METADATA, side_lines, starts_side_lines
from indexer.formats.grok.updates import Reader, is_update
from indexer.formats.ledger import Ledger

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "parse"]

NAME = "grok"
CHANNEL = "grok"
ID_PREFIX = "grok"
TITLE_CHARS = 80
UPDATES = "updates.jsonl"


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    root = Path(env["GROK_HOME"]).expanduser() if env.get("GROK_HOME") else home / ".grok"
    return [root / "sessions"]


def is_candidate(path: Path) -> bool:
    return path.name == UPDATES


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    items = read_transcript_lines(text, ledger)
    side = side_lines(items[0][1])
    if side is not None:
        what, each = side
        for number, _ in items:
            ledger.left_out(f"line {number}", each)
        raise NothingToImport(what)
    reader = Reader(options, ledger)
    for number, item in items:
        reader.add(number, item)
    messages = reader.result()
    if not reader.recognized:
        raise NothingToImport(f"no Grok Build session updates ({ledger.describe()})")
    if not any(m["role"] == "user" for m in messages):
        raise NothingToImport(f"no prompt in this Grok Build session ({ledger.describe()})")
    summary = _summary(path)
    info = summary["info"] if isinstance(summary.get("info"), dict) else {}
    raw_id = _text(info.get("id")) or path.parent.name
    cwd = _text(info.get("cwd")) or unquote(path.parent.parent.name)
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": messages, "origin": origin(NAME, raw_id, cwd, path)}
    first = next(m["content"] for m in messages if m["role"] == "user")
    record["title"] = (_text(summary.get("generated_title")) or _text(summary.get(
        "session_summary")) or clip(first.split("\n", 1)[0], TITLE_CHARS))
    if folder_name(cwd):
        record["topics"] = [folder_name(cwd)]
    return [Transcript.build(record, ledger)]


def _summary(path: Path) -> dict[str, Any]:
    try:
        value = json.loads((path.parent / "summary.json").read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _session_summary(value: Any) -> bool:
    """`summary.json`: `{info: {id, cwd}, session_summary, created_at, ...}` (Summary in
    session/persistence.rs)."""
    info = value.get("info") if isinstance(value, dict) else None
    return (isinstance(info, dict) and isinstance(info.get("cwd"), str)
            and "id" in info and "session_summary" in value)


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES,),
    default_paths=default_paths, is_candidate=is_candidate, environment=("GROK_HOME",),
    resume=Resume("grok --resume {id}", "Grok looks a session up in its folder: run it in cwd"),
    sniff_line=is_update, sniff_header=starts_side_lines, read_lines=parse,
    metadata=(Metadata("grok-summary", "Grok Build session summary (summary.json)",
                       _session_summary), *METADATA, *home_files.METADATA))
