"""Kiro CLI sessions (the former Amazon Q Developer CLI), in the two stores its engines write
(aws/amazon-q-developer-cli at 16d05aa5, release 1.28.3):

- the session log `~/.kiro/sessions/cli/<id>.jsonl` (or `$KIRO_TEST_SESSIONS_DIR`, the one
  override crates/chat-cli-v2/src/util/paths.rs `sessions_dir` reads), replayed by log.py, with
  its metadata `<id>.json` beside it ({session_id, cwd, created_at, updated_at, title,
  session_state}: agent/session/mod.rs `SessionData`), which holds no conversation;
- the database `kiro-cli/data.sqlite3` in the user's data folder (`dirs::data_local_dir`:
  `$XDG_DATA_HOME` or `~/.local/share` on Linux, `~/Library/Application Support` on macOS),
  table `conversations_v2`, read by state.py;
- Kiro IDE's chats in its editor storage, `<config>/Kiro/User/globalStorage/kiro.kiroagent/`
  (`.chat` files and `workspace-sessions/<base64 folder>/<id>.json`), read by ide.py: their ids
  are `kiro-ide-<id>` and their origin agent `kiro-ide`.

The session's title is the metadata's (the first prompt, as Kiro CLI sets it) or the first
prompt; its project is the last part of the folder it ran in. Kiro CLI reopens a session of
the folder it starts in (`kiro-cli chat --resume` for the latest, `--resume-picker` to choose);
it takes no session id on its command line in this release.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

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
from indexer.formats.editors import user_dirs
from indexer.formats.kiro import ide, log, state
from indexer.formats.ledger import Ledger
from models import InvalidSession, parse_time

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like_database",
           "looks_like_metadata", "parse_database", "parse_log"]

NAME = "kiro"
CHANNEL = "kiro"
ID_PREFIX = "kiro"
TITLE_CHARS = 80
DATABASE = "data.sqlite3"


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The session logs' folder and the database, on Linux and macOS."""
    sessions = env.get("KIRO_TEST_SESSIONS_DIR")
    logs = Path(sessions) if sessions else home / ".kiro" / "sessions" / "cli"
    data = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    mac = home / "Library" / "Application Support"
    ide_stores = [user / "globalStorage" / ide.STORE for user in user_dirs(home, env, ("Kiro",))]
    return [logs, data / "kiro-cli" / DATABASE, mac / "kiro-cli" / DATABASE, *ide_stores]


def is_candidate(path: Path) -> bool:
    """A session log (not its metadata or lock file), the database, or a Kiro IDE chat."""
    return path.suffix == ".jsonl" or path.name == DATABASE or ide.is_candidate(path)


def looks_like_ide_chat(value: Any, path: Path) -> bool:
    return ide.looks_like_chat(value) or ide.looks_like_session(value, path)


def parse_ide_chat(path: Path, value: Any, options: ImportOptions,
                   ledger: Ledger) -> list[Transcript]:
    if ide.looks_like_chat(value):
        return ide.parse_chat(path, value, options, ledger)
    if looks_like_metadata(value):
        raise NothingToImport(f"{SESSION_METADATA.description}: metadata, not a transcript")
    return ide.parse_session(path, value, options, ledger)


def looks_like_metadata(value: Any) -> bool:
    """A session log's `<id>.json`: where and when it ran, its title and the agent's state."""
    return (isinstance(value, dict) and isinstance(value.get("session_id"), str)
            and isinstance(value.get("session_state"), dict) and "cwd" in value
            and "created_at" in value)


def looks_like_database(tables: set[str]) -> bool:
    return tables >= state.TABLES


def parse_log(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    items = read_transcript_lines(text, ledger)
    if not any(log.looks_like(item) for _, item in items):
        raise InvalidSession("not a Kiro CLI session log: no v1 entry of a known kind")
    replay = log.replay(items, options, ledger)
    metadata = _metadata(path)
    raw_id = metadata.get("session_id") if isinstance(metadata.get("session_id"), str) \
        else path.stem
    record = _record(raw_id, metadata.get("cwd"), path, replay.messages(), ledger)
    if replay.summary:
        record["summary"] = replay.summary
    _title(record, metadata.get("title"))
    started = parse_time(metadata.get("created_at"))
    if not started and not any("time" in m for m in record["messages"]):
        started = _modified(path)  # an earlier release's log, alone: when it was last written
    if started:
        record["date"] = started[:10]
    return [Transcript.build(record, ledger)]


def parse_database(path: Path, connection: sqlite3.Connection, options: ImportOptions,
                   ledger: Ledger) -> list[Transcript]:
    transcripts, empty = [], 0
    for conversation in state.read_conversations(connection):
        try:
            transcripts.append(_conversation(path, conversation, options))
        except NothingToImport:
            empty += 1
        ledger.absorb(conversation.ledger, prefix=f"conversation {conversation.conversation_id}: ")
    if not transcripts:
        raise NothingToImport(f"no conversation with messages ({empty} conversations)")
    return transcripts


def _conversation(path: Path, conversation: state.Conversation,
                  options: ImportOptions) -> Transcript:
    ledger, value = conversation.ledger, conversation.state
    if value is None:
        ledger.left_out(state.ROW, "unreadable conversation row")
        raise NothingToImport("unreadable conversation row")
    messages = state.render_history(value, options, ledger)
    try:
        record = _record(conversation.conversation_id, conversation.key, path, messages, ledger)
    except NothingToImport:
        ledger.left_out(state.ROW, "conversation without messages")
        raise
    ledger.imported(state.ROW, "session metadata")
    summary = value.get("latest_summary")
    if isinstance(summary, list) and summary and isinstance(summary[0], str) and summary[0].strip():
        record["summary"] = summary[0].strip()
    _title(record, None)
    started = parse_time(conversation.created)
    if started:
        record["date"] = started[:10]
    return Transcript.build(record, ledger)


def _record(raw_id: Any, cwd: Any, path: Path, messages: list[dict[str, Any]],
            ledger: Ledger) -> dict[str, Any]:
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": messages, "origin": origin(NAME, raw_id, cwd, path)}
    project = folder_name(cwd) if isinstance(cwd, str) else None
    if project:
        record["topics"] = [project]
    return record


def _title(record: dict[str, Any], given: Any) -> None:
    title = given.strip() if isinstance(given, str) else ""
    if not title:
        first = next((m["content"] for m in record["messages"] if m["role"] == "user"), "")
        title = clip(first.split("\n", 1)[0], TITLE_CHARS)
    if title:
        record["title"] = title


def _modified(path: Path) -> str | None:
    try:
        return parse_time(path.stat().st_mtime)
    except OSError:
        return None


def _metadata(path: Path) -> dict[str, Any]:
    """The log's `<id>.json` beside it; empty when it is missing or unreadable."""
    try:
        value = json.loads(path.with_suffix(".json").read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return value if looks_like_metadata(value) else {}


SESSION_METADATA = Metadata("kiro-session", "Kiro CLI session metadata (<id>.json)",
                            looks_like_metadata)
FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES, Storage.DATABASE, Storage.DOCUMENT),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("KIRO_TEST_SESSIONS_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "APPDATA",
                 "VSCODE_APPDATA", "VSCODE_PORTABLE"),
    # crates/chat-cli/src/cli/chat/mod.rs ChatArgs: --resume (latest), --resume-picker
    resume=Resume(None, "run `kiro-cli chat --resume-picker` in cwd and choose the session "
                        "(`--resume` reopens the folder's latest)"),
    agents={ide.AGENT: Resume(None, "a Kiro IDE chat reopens from the agent panel's session "
                                    "history (open cwd in Kiro); Kiro IDE takes no chat id")},
    sniff_line=log.looks_like, sniff_tables=looks_like_database,
    sniff_document=looks_like_ide_chat,
    read_lines=parse_log, read_database=parse_database, read_document=parse_ide_chat,
    metadata=(SESSION_METADATA,))
