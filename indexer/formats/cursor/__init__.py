"""Cursor: the editor's chats in its SQLite state (`<config>/Cursor/User/globalStorage/state.vscdb`,
`workspaceStorage/<hash>/state.vscdb`), and the agent transcripts the Cursor CLI (and newer
editors) write as JSON lines (`~/.cursor/projects/<project>/agent-transcripts/<id>/<id>.jsonl`).

Two readers: editor.py reads an editor database (composers, their bubbles, the old chat
panel) and cli.py an agent transcript. This module finds the files, tells them apart,
builds the session records and says why a database has nothing to import. Choices:

- A composer's or chat tab's session id is `cursor-<its id>`; a transcript's is
  `cursor-transcript-<id>`: an editor chat may also have a transcript, and two files must not
  give one session id different content.
- The title is the editor's name for the chat, else the first prompt's first line; the working
  folder's last part is the topic; the channel is `cursor`. The origin agent tells the two apart
  for `recall resume`: `cursor` (the CLI: `agent --resume <id>`) and `cursor-editor` (the editor
  reopens a chat from its chat history, not by a command).
- What a database leaves out (composers and tabs without a prompt, sub-agents', unreadable rows)
  is logged as counts, never its content; every record's fate is in the file's ledger
  (indexer/formats/ledger.py), each composer's and tab's records also in its session's own.
"""

from __future__ import annotations

import logging
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
    safe_session_id,
)
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.cursor import cli, editor
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["CHANNEL", "EDITOR_AGENT", "FORMAT", "ID_PREFIX", "NAME", "default_paths",
           "holds_composers", "is_candidate", "looks_like", "looks_like_database", "parse",
           "parse_database"]

log = logging.getLogger(__name__)

NAME = "cursor"
CHANNEL = "cursor"
ID_PREFIX = "cursor"
TITLE_CHARS = 80
EDITOR_AGENT = "cursor-editor"  # the origin agent of the editor's chats; the CLI's is NAME


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The editor's databases on Linux, macOS and Windows, and the agent transcripts."""
    return list(dict.fromkeys([*editor.default_paths(home, env),
                               *cli.default_roots(home, env)]))


def is_candidate(path: Path) -> bool:
    """An editor database, or an agent transcript that is not a sub-agent's."""
    return path.name == editor.DATABASE_NAME or cli.is_transcript(path)


def looks_like(item: Any) -> bool:
    """One line of an agent transcript."""
    return cli.looks_like_line(item)


def looks_like_database(tables: set[str]) -> bool:
    return "cursorDiskKV" in tables


def holds_composers(connection: sqlite3.Connection, tables: set[str]) -> bool:
    """A workspace database of Cursor with no `cursorDiskKV`, whose `ItemTable` lists its
    composers (`composer.composerData`, a key only Cursor writes): told apart from the same
    file of another VS Code-family editor by that key, not by its tables."""
    if "ItemTable" not in tables:
        return False
    found = connection.execute("SELECT 1 FROM ItemTable WHERE key = 'composer.composerData' "
                               "LIMIT 1").fetchone()
    return found is not None


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    chat = cli.read_transcript(path, text, options, ledger)
    return [_transcript(path, NAME, f"transcript-{chat.chat_id}", chat.chat_id, chat.cwd, None,
                        None, chat.messages, ledger)]


def parse_database(path: Path, connection: sqlite3.Connection, options: ImportOptions,
                   ledger: Ledger) -> list[Transcript]:
    database = editor.StateDatabase(path, connection, options, ledger)
    if not database.kv and not database.items:
        raise InvalidSession("not a Cursor database: no cursorDiskKV or ItemTable key-value table")
    transcripts = [_transcript(path, EDITOR_AGENT, chat.chat_id, chat.chat_id, chat.cwd,
                               chat.title, chat.day, chat.messages, chat.ledger)
                   for chat in database.chats()]
    left_out = ledger.left_out_reasons()
    if left_out:  # counts only: what was left out is never logged
        log.info("%s: left out %s", path, ledger.describe())
    if transcripts:
        return transcripts
    if database.listed_only and set(left_out) == {editor.LISTED_ONLY}:
        raise NothingToImport(f"a Cursor workspace's state: the {database.listed_only} "
                              "composer(s) it lists keep their conversations in "
                              "globalStorage/state.vscdb")
    if left_out:
        raise NothingToImport(f"no Cursor conversations ({ledger.describe()})")
    raise NothingToImport("no Cursor composers or chats in this database")


def _transcript(path: Path, agent: str, raw_id: str, chat_id: str, cwd: str | None,
                title: str | None, day: str | None, messages: list[dict[str, Any]],
                ledger: Ledger) -> Transcript:
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": messages, "origin": origin(agent, chat_id, cwd, path)}
    project = folder_name(cwd)
    if project:
        record["topics"] = [project]
    first_prompt = next((m["content"] for m in messages if m["role"] == "user"), None)
    title = title or (clip(first_prompt.split("\n", 1)[0], TITLE_CHARS) if first_prompt else None)
    if title:
        record["title"] = title
    if day:
        record["date"] = day
    return Transcript.build(record, ledger)


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES, Storage.DATABASE),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("XDG_CONFIG_HOME", "APPDATA", "CURSOR_CONFIG_DIR"),
    resume=Resume("agent --resume {id}", "Cursor CLI chats reopen by id (`cursor-agent --resume` "
                                         "on older installs): run it in cwd"),
    agents={EDITOR_AGENT: Resume(None, "a chat of the Cursor editor reopens from the editor's "
                                       "chat history (open cwd in Cursor); the transcript path "
                                       "is the editor database it was read from")},
    sniff_line=looks_like, sniff_tables=looks_like_database, sniff_connection=holds_composers,
    read_lines=parse, read_database=parse_database)
