"""Windsurf (Codeium's VS Code fork): the chat panel's conversations in the editor's SQLite state,
`<config>/Windsurf/User/workspaceStorage/<hash>/state.vscdb` and `globalStorage/state.vscdb`,
read in place and read-only (database.py).

Windsurf is closed source; the layout is the one kenn-io/agentsview reads
(internal/parser/windsurf_provider.go @ b2c441f9d58435edac14237ae3b046f7077c027e, MIT): the
`ItemTable` keys `aiChat.chatdata` and `workbench.panel.aichat.view.aichat.chatdata` each hold a
chat panel, `{tabs: [{tabId, chatTitle, bubbles: [{type, text, rawText}]}]}` (the shape of
Cursor's old chat panel, read by the same bubble reader: cursor/bubbles.py), or one VS Code chat
session `{sessionId, creationDate, customTitle, requests[...]}` (read as Copilot Chat's is:
copilot/vscode.py). chats.py reads both. Choices:

- Recognized by content, never by where the file is: a state database with `aiChat.chatdata`,
  or with the chat panel's key beside a key of Windsurf's own extension (`codeium.*`,
  `windsurf*`), and without Cursor's `cursorDiskKV` table or `composer.composerData` key, so
  that the two editors never claim one database.
- One session per tab (or chat session), id `windsurf-<tab id>`; the title is the tab's, else
  the first prompt's first line; the folder is the one `workspace.json` beside the database
  names, and its last part the topic. A tab without a prompt is left out and counted.
- Cascade, Windsurf's agent, keeps its conversations in `~/.codeium/windsurf/cascade/*.pb`,
  encrypted: they cannot be read, and `recall sources` names them with their count
  (`Format.unreadable`) rather than passing over them in silence.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    folder_name,
    origin,
    safe_session_id,
)
from indexer.formats.contract import Format, Resume, Storage, Unreadable
from indexer.formats.cursor.folders import workspace_folder
from indexer.formats.editors import user_dirs
from indexer.formats.ledger import Ledger
from indexer.formats.windsurf.chats import CHAT_KEYS, PanelChat, read_chats
from models import InvalidSession, parse_time

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "holds_chats", "is_candidate",
           "parse_database"]

NAME = "windsurf"
CHANNEL = "windsurf"
ID_PREFIX = "windsurf"
DATABASE_NAME = "state.vscdb"
# keys Windsurf's own extension (`codeium.windsurf`) keeps in a workspace's state
_OWN_KEYS = "SELECT 1 FROM ItemTable WHERE key LIKE 'codeium%' OR key LIKE 'windsurf%' LIMIT 1"


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The global database and the workspaces' folder, on Linux, macOS and Windows."""
    return [p for user in user_dirs(home, env, ("Windsurf",))
            for p in (user / "globalStorage" / DATABASE_NAME, user / "workspaceStorage")]


def is_candidate(path: Path) -> bool:
    return path.name == DATABASE_NAME


def cascade_folders(home: Path, env: dict[str, str]) -> list[Path]:
    """Where Cascade keeps its conversations (encrypted protocol buffers)."""
    return [home / ".codeium" / "windsurf" / "cascade"]


def holds_chats(connection: sqlite3.Connection, tables: set[str]) -> bool:
    """A Windsurf state database holding a chat panel, told from Cursor's by its keys."""
    if "ItemTable" not in tables or "cursorDiskKV" in tables:
        return False
    keys = {row[0] for row in connection.execute(
        "SELECT key FROM ItemTable WHERE key IN (?, ?, 'composer.composerData')", CHAT_KEYS)}
    if "composer.composerData" in keys or not keys:
        return False
    return "aiChat.chatdata" in keys or connection.execute(_OWN_KEYS).fetchone() is not None


def parse_database(path: Path, connection: sqlite3.Connection, options: ImportOptions,
                   ledger: Ledger) -> list[Transcript]:
    chats = read_chats(path, connection, options, ledger)
    if chats is None:
        raise InvalidSession("not a Windsurf database: no ItemTable key-value table")
    cwd = workspace_folder(path)
    transcripts = [_transcript(path, chat, cwd) for chat in chats]
    if transcripts:
        return transcripts
    if ledger.left_out_reasons():
        raise NothingToImport(f"no Windsurf chats ({ledger.describe()})")
    raise NothingToImport("no Windsurf chat panel in this database (Cascade's conversations "
                          "are kept encrypted under ~/.codeium/windsurf/cascade)")


def _transcript(path: Path, chat: PanelChat, cwd: str | None) -> Transcript:
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, chat.chat_id), "channel": CHANNEL,
              "messages": chat.messages, "origin": origin(NAME, chat.chat_id, cwd, path)}
    if chat.title:
        record["title"] = chat.title
    if folder_name(cwd):
        record["topics"] = [folder_name(cwd)]
    day = chat.day or _written_day(path)  # a session needs a day; a tab may keep no time
    if day:
        record["date"] = day
    return Transcript.build(record, chat.ledger)


def _written_day(path: Path) -> str | None:
    try:
        return (parse_time(path.stat().st_mtime) or "")[:10] or None
    except OSError:
        return None


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.DATABASE,),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("VSCODE_PORTABLE", "VSCODE_APPDATA", "XDG_CONFIG_HOME", "APPDATA"),
    resume=Resume(None, "a Windsurf chat reopens from the editor's chat history (open cwd in "
                        "Windsurf); the transcript path is the database it was read from"),
    sniff_connection=holds_chats, read_database=parse_database,
    unreadable=(Unreadable("Cascade conversations (encrypted)", cascade_folders, "*.pb"),))
