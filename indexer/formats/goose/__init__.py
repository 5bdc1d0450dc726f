"""Goose (Block's agent, CLI and desktop): the SQLite database `<data>/sessions/sessions.db` it
keeps since release 1.10, and the JSON-lines session files `<data>/sessions/<id>.jsonl` of the
releases before (first line the session's metadata, then one message a line).

`<data>` is `$GOOSE_PATH_ROOT/data` when that is an absolute path, else the XDG data folder
(`${XDG_DATA_HOME:-~/.local/share}/goose`, on macOS too), or on Windows
`%APPDATA%\\Block\\goose\\data` (crates/goose/src/config/paths.rs: etcetera's app strategy).

Two readers: database.py reads the database; this module reads a session file, finds both and
builds the records; content.py turns messages into the archive's. Choices:

- One session per `sessions` row or session file, sub-agent and scheduled sessions included;
  its id is goose's own (`20251108_1`, or the old file's name), prefixed `goose-`.
- The title is goose's name for the session (older releases: its description) unless it is
  still a default ("CLI Session", "New Chat"); then the first prompt's first line. The working
  folder's last part is the topic.
- goose copies every session file into a new `sessions.db` once, under the file's name, and
  leaves the file: a session file with `sessions.db` beside it has nothing to import, so that
  a session is read once.
"""

from __future__ import annotations

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
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.goose import database
from indexer.formats.goose.content import BLOCK_TYPES, Conversation
from indexer.formats.ledger import Ledger

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like_header",
           "looks_like_line", "parse_database", "parse_lines"]

NAME = "goose"
CHANNEL = "goose"
ID_PREFIX = "goose"
TITLE_CHARS = 80
DATABASE_NAME = "sessions.db"
# the names goose gives a session before it names it from the conversation
_DEFAULT_NAMES = {"", "cli session", "acp session", "new chat", "new session"}
# the first line of a session file: SessionMetadata (the older crates/goose/src/session/storage.rs)
_METADATA_KEYS = {"working_dir", "description", "schedule_id", "message_count", "total_tokens",
                  "input_tokens", "output_tokens", "accumulated_total_tokens",
                  "accumulated_input_tokens", "accumulated_output_tokens", "extension_data",
                  "recipe", "user_recipe_values"}
_MESSAGE_KEYS = {"id", "role", "created", "content", "metadata"}


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    root, xdg, appdata = env.get("GOOSE_PATH_ROOT"), env.get("XDG_DATA_HOME"), env.get("APPDATA")
    if root and Path(root).is_absolute():  # goose ignores a relative GOOSE_PATH_ROOT
        return [Path(root) / "data" / "sessions"]
    data = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".local" / "share"
    found = [data / "goose" / "sessions"]
    if appdata:  # Windows
        found.append(Path(appdata) / "Block" / "goose" / "data" / "sessions")
    return found


def is_candidate(path: Path) -> bool:
    """The database, or a session file of the sessions folder (not a backup of the database)."""
    return path.name == DATABASE_NAME or (path.suffix == ".jsonl"
                                          and path.parent.name == "sessions")


def looks_like_header(item: Any) -> bool:
    """The metadata line a session file begins with."""
    return (isinstance(item, dict) and item.keys() <= _METADATA_KEYS
            and isinstance(item.get("description"), str)
            and isinstance(item.get("message_count"), int))


def looks_like_line(item: Any) -> bool:
    """A message line: goose's own keys, and content blocks of goose's own types."""
    if not (isinstance(item, dict) and item.keys() <= _MESSAGE_KEYS
            and item.get("role") in ("user", "assistant") and isinstance(item.get("created"), int)):
        return False
    content = item.get("content")
    return isinstance(content, list) and bool(content) and all(
        isinstance(b, dict) and b.get("type") in BLOCK_TYPES for b in content)


def parse_lines(path: Path, text: str, options: ImportOptions,
                ledger: Ledger) -> list[Transcript]:
    if (path.parent / DATABASE_NAME).exists():
        raise NothingToImport(f"a goose session file copied into {DATABASE_NAME} beside it when "
                              "goose moved to its database: it is read from there")
    items = read_transcript_lines(text, ledger)
    meta: dict[str, Any] = items[0][1] if looks_like_header(items[0][1]) else {}
    conversation = Conversation(options, ledger)
    for number, item in items[1:] if meta else items:
        ident = item.get("id") if isinstance(item, dict) else None
        conversation.add(f"line {number}", ident if isinstance(ident, str) and ident
                         else f"line-{number}", item)
    header = f"line {items[0][0]}" if meta else None
    return [_transcript(path, path.stem, conversation, header, meta.get("description"),
                        meta.get("working_dir"))]


def parse_database(path: Path, connection: sqlite3.Connection, options: ImportOptions,
                   ledger: Ledger) -> list[Transcript]:
    transcripts, empty = [], 0
    for session in database.read_sessions(connection, options.since):
        if not session.passed_over:
            conversation = Conversation(options, session.ledger)
            for row in session.rows:
                conversation.add(row.where, row.ident, row.value)
            info = session.info
            title = info["name"] if info["user_set_name"] or (
                str(info["name"] or "").strip().lower() not in _DEFAULT_NAMES) else None
            try:
                transcripts.append(_transcript(path, session.id, conversation, database.SESSION_ROW,
                                               title or info["description"], info["working_dir"]))
            except NothingToImport:
                empty += 1
        ledger.absorb(session.ledger, prefix=f"session {session.id}: ")
    database.orphans(connection, ledger)
    if not transcripts:
        raise NothingToImport(f"no session with conversation messages ({empty} sessions)")
    return transcripts


def _transcript(path: Path, session_id: str, conversation: Conversation, header: str | None,
                title: Any, cwd: Any) -> Transcript:
    """The session record; `header` is the record that holds the session's metadata."""
    ledger, messages = conversation.ledger, conversation.messages
    if not messages:
        if header:
            ledger.left_out(header, "session without conversation")
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    if header:
        ledger.imported(header, "session metadata")
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, session_id),
                              "channel": CHANNEL, "messages": messages,
                              "origin": origin(NAME, session_id, cwd, path)}
    project = folder_name(cwd) if isinstance(cwd, str) else None
    if project:
        record["topics"] = [project]
    title = title.strip() if isinstance(title, str) else ""
    if not title or title.lower() in _DEFAULT_NAMES:
        first_prompt = next((m["content"] for m in messages if m["role"] == "user"), "")
        title = clip(first_prompt.split("\n", 1)[0], TITLE_CHARS)
    if title:
        record["title"] = title
    return Transcript.build(record, ledger)


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES, Storage.DATABASE),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("GOOSE_PATH_ROOT", "XDG_DATA_HOME", "APPDATA"),
    # crates/goose-cli/src/cli.rs: `goose session --resume --session-id <id>`
    resume=Resume("goose session --resume --session-id {id}",
                  "goose finds the session in its database from any folder; a session of the "
                  "older files was copied into it under the file's name"),
    sniff_header=looks_like_header, sniff_line=looks_like_line,
    sniff_connection=database.looks_like,
    read_lines=parse_lines, read_database=parse_database)
