"""OpenClaw transcripts: `~/.openclaw/agents/<agentId>/sessions/<sessionId>.jsonl` in the pi
session format (v3; pi-coding-agent sessions are read the same way).

The first line is a header `{"type": "session", "version", "id", "timestamp", "cwd"}`; every
other line is an entry with `type`, `id`, `parentId` and `timestamp`. `message` entries hold
`message.role` user / assistant / toolResult with content blocks text / thinking / toolCall;
`compaction` entries hold a summary of what came before. Each line is a record of the ledger
(`line N`). Choices:

- The header is imported as the session's metadata.
- The entries form a tree (`id`/`parentId`): branching appends the new branch to the same file.
  The transcript is the path from the root to the current leaf, which is the last entry in the
  file (what pi itself resumes from). Entries on abandoned branches are left out of the session
  with their reason; a `branch_summary` on the path (pi's summary of a branch left behind) is
  kept as a `system` message. Where an entry's parent was on a damaged line, the path goes on
  from the entry written before it. Files without ids (version 1, linear) are read in order.
- The newest `compaction` summary on the path becomes the session summary (the older ones are
  merged into it).
- `sessions.json` beside the transcripts, when present, gives the channel and the session's
  name (`label`, `displayName` or `subject`, as OpenClaw titles a session; else the first
  prompt); its shape is read liberally (a map of session key to entry, or a list of entries).
- The gateway wraps what a user wrote in metadata for the model ("Sender (untrusted
  metadata):" and a JSON block, the envelope's "[Sun 2026-03-08 22:03 GMT+9]" time, trailing
  untrusted channel context): the user's message is what they wrote, as OpenClaw shows it; the
  wrapping is counted as a piece left out.
- Tool calls and results are cut to `tool_chars`; thinking is left out unless asked for.
  Bookkeeping entries (model and thinking-level changes, labels, extension state) and unknown
  entry types are left out with their reason, never fatal. A message entry without an id gets
  `l<line number>`.
- Reset and deleted transcripts. OpenClaw never deletes a transcript: resetting a session
  (`/reset`, `/new`) mints a new session id for the chat and renames the old transcript
  `<file>.jsonl.reset.<time>`; deleting a session renames it `<file>.jsonl.deleted.<time>`
  (`<time>` an ISO instant with ':' made '-': openclaw/openclaw src/config/sessions/artifacts.ts
  @ 0849551642f081db8079b70b4cd472cd57b594dc, archiveFileOnDisk in
  src/gateway/session-transcript-files.fs.ts @ 031513da4801b7525c2d910bd09e1cfc3b94c66d). The
  live file after a reset holds the new session (a new header and id, resetSessionByKey in
  src/gateway/session-reset-service.ts); its name is usually `<newId>.jsonl`, but a transcript
  placed under a custom name keeps that name. A `.reset` transcript is imported as the session
  it was, under its own id (so a session read while it was live stays one session); if that id
  would collide with the live file of the same name (a transcript without a header id, named by
  its file), it gets `<id>-reset-<time>` instead, and the log says so. A `.deleted` transcript
  is left out ("transcript deleted in OpenClaw") unless ImportOptions.deleted asks for it. The
  zstd-compressed archives of newer releases (`….zst`) are not read.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    clip,
    origin,
    read_json_lines,
    safe_session_id,
)
from indexer.formats.contract import Format, Metadata, Resume, Storage
from indexer.formats.ledger import Ledger
from indexer.formats.openclaw.entries import Reader, current_path
from indexer.formats.openclaw.store import channel, display_name, looks_like_store, store_entry
from models import InvalidSession

__all__ = ["CHANNEL", "FORMAT", "NAME", "STORE", "default_paths", "is_candidate", "looks_like",
           "parse", "renamed_transcript"]

log = logging.getLogger(__name__)

NAME = "openclaw"
CHANNEL = "openclaw"
ID_PREFIX = "openclaw"
TITLE_CHARS = 80
# `<file>.jsonl.reset.<time>` / `<file>.jsonl.deleted.<time>` (see the module docstring)
_RENAMED = re.compile(r"^(?P<base>.+)\.jsonl\.(?P<mark>reset|deleted)\.(?P<time>[^/\\]+)$")
DELETED = "transcript deleted in OpenClaw"


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    return [home / ".openclaw" / "agents"]


def is_candidate(path: Path) -> bool:
    """A session transcript, live or renamed by a reset or a deletion (`sessions.json` beside
    them is metadata)."""
    return path.suffix == ".jsonl" or renamed_transcript(path) is not None


def renamed_transcript(path: Path) -> tuple[str, str, str] | None:
    """(the live file's name without `.jsonl`, "reset" or "deleted", the time) for a transcript
    OpenClaw renamed; None for any other name (a compressed `.zst` archive included)."""
    match = _RENAMED.match(path.name)
    if match is None or match["time"].endswith(".zst"):
        return None
    return match["base"], match["mark"], match["time"]


def looks_like(item: Any) -> bool:
    """The header line of a pi / OpenClaw session file."""
    return isinstance(item, dict) and item.get("type") == "session" and (
        "version" in item or ("id" in item and "timestamp" in item))


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    items, _ = read_json_lines(text, ledger)
    if not items:
        raise NothingToImport("the file is empty" if not ledger.fates() else ledger.describe())
    header_line, header = items[0]
    if not looks_like(header):
        raise InvalidSession(
            'not an OpenClaw session: the first line is not a {"type": "session"} header')
    renamed = renamed_transcript(path)
    if renamed is not None and renamed[1] == "deleted" and not options.deleted:
        for number, _ in items:
            ledger.left_out(f"line {number}", DELETED)
        raise NothingToImport(f"{DELETED} (read only when deleted transcripts are asked for)")
    ledger.imported(f"line {header_line}", "session header")
    entries = []
    for number, item in items[1:]:
        if isinstance(item, dict):
            entries.append((f"line {number}", item))
        else:
            ledger.left_out(f"line {number}", "non-object line")
    reader = Reader(options, ledger)
    for where, entry in current_path(entries, ledger):
        reader.add(where, entry)
    summary = reader.summary()
    if not reader.messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")

    stem = renamed[0] if renamed else path.stem
    raw_id = _raw_id(header, stem)
    session_raw_id = raw_id
    if renamed is not None and _live_id(path.with_name(f"{stem}.jsonl")) == raw_id:
        session_raw_id = f"{raw_id}-{renamed[1]}-{renamed[2]}"
        log.info("%s: the live transcript beside it holds the id %s too; imported as %s",
                 path, raw_id, session_raw_id)
    header_id = header.get("id") if isinstance(header.get("id"), str) else None
    meta = store_entry(path.parent, (header_id or "").strip() or stem, path.name)
    record: dict[str, Any] = {
        "sessionId": safe_session_id(ID_PREFIX, session_raw_id),
        "channel": channel(meta) or CHANNEL,
        "messages": reader.messages,
        "origin": origin(NAME, raw_id, header.get("cwd"), path),
    }
    if isinstance(header.get("timestamp"), str):
        record["date"] = header["timestamp"][:10]
    if summary:
        record["summary"] = summary
    first_prompt = next((m["content"] for m in reader.messages if m["role"] == "user"), None)
    title = display_name(meta)
    if title:
        reader.names_not_used()
    else:
        title = reader.name() or (clip(first_prompt.split("\n", 1)[0], TITLE_CHARS)
                                  if first_prompt else None)
    if title:
        record["title"] = title
    return [Transcript.build(record, ledger)]


def _raw_id(header: dict[str, Any], stem: str) -> str:
    """The session's own id: the header's, or the file's name for a file without one (and for a
    Telegram topic, whose file is `<sessionId>-topic-<threadId>.jsonl`)."""
    header_id = header.get("id")
    header_id = header_id.strip() if isinstance(header_id, str) and header_id.strip() else None
    topic_file = bool(header_id) and stem.startswith(header_id or "") and stem != header_id
    return header_id if header_id and not topic_file else stem


def _live_id(live: Path) -> str | None:
    """The id the live transcript of that name is imported under; None when there is none."""
    try:
        with live.open("r", encoding="utf-8", errors="replace") as handle:
            first = handle.readline(1 << 20)
    except OSError:
        return None
    try:
        header = json.loads(first)
    except (json.JSONDecodeError, RecursionError):
        header = {}
    return _raw_id(header if isinstance(header, dict) else {}, live.stem)


STORE = Metadata("openclaw-store", "OpenClaw session index (sessions.json)", looks_like_store)
FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES,),
    default_paths=default_paths, is_candidate=is_candidate,
    resume=Resume(None, "OpenClaw sessions are picked up again from OpenClaw itself (its chat "
                        "channels or dashboard); the transcript is at the path given"),
    sniff_header=looks_like, read_lines=parse, metadata=(STORE,),
    lines_named=lambda path: renamed_transcript(path) is not None)
