"""Warp's agent conversations: the SQLite database `warp.sqlite` (Linux
`~/.local/state/warp-terminal/`, macOS the group container `2BBY89MBSN.dev.warp/.../
dev.warp.Warp-Stable/`, Windows `%LOCALAPPDATA%\\warp\\Warp\\data\\`), read in place, read-only.

Warp is closed source: the tables and their JSON are as public readers of the file have them
(rows.py and exchanges.py cite them). rows.py reads the conversations and their exchanges,
exchanges.py turns an exchange into messages, and this module builds the records. Choices:

- One session per conversation id. Warp keeps the user's prompts and the tool results it sent
  back (`ai_queries`); the agent's words only where the database has `ai_blocks`. A conversation
  whose exchanges give no message (the agent's side only lives on Warp's servers) has nothing to
  import, and says so.
- The title is the first prompt; the project (the last part of the first working folder) is the
  topic. The conversation row's usage metadata is imported with it as metadata.
- Every row read is a record of the database's ledger, places prefixed `conversation <id>: `.
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
    safe_session_id,
)
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.ledger import Ledger
from indexer.formats.warp import rows
from indexer.formats.warp.exchanges import read_exchange

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "parse_database"]

NAME = "warp"
CHANNEL = "warp"
TITLE_CHARS = 80
DATABASE_NAME = "warp.sqlite"
_MACOS_GROUP = Path("Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support")


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The stable and preview channels' databases on Linux, macOS and Windows: every layout is
    listed, so a copy from another system is found too."""
    state = Path(env["XDG_STATE_HOME"]) if env.get("XDG_STATE_HOME") else home / ".local/state"
    local = Path(env["LOCALAPPDATA"]) if env.get("LOCALAPPDATA") else home / "AppData/Local"
    return [state / "warp-terminal" / DATABASE_NAME,
            state / "warp-terminal-preview" / DATABASE_NAME,
            home / _MACOS_GROUP / "dev.warp.Warp-Stable" / DATABASE_NAME,
            home / _MACOS_GROUP / "dev.warp.Warp-Preview" / DATABASE_NAME,
            local / "warp" / "Warp" / "data" / DATABASE_NAME,
            local / "warp.preview" / "Warp" / "data" / DATABASE_NAME]


def is_candidate(path: Path) -> bool:
    return path.name == DATABASE_NAME


def parse_database(path: Path, connection: sqlite3.Connection, options: ImportOptions,
                   ledger: Ledger) -> list[Transcript]:
    transcripts, empty = [], 0
    for conversation in rows.read_conversations(connection, options.since):
        try:
            if not conversation.passed_over:
                transcripts.append(_transcript(path, conversation, options))
        except NothingToImport:
            empty += 1
            if conversation.metadata:
                conversation.ledger.left_out(rows.CONVERSATION_ROW,
                                             "conversation without messages")
        ledger.absorb(conversation.ledger, prefix=f"conversation {conversation.id}: ")
    if not transcripts:
        raise NothingToImport(f"no conversation with messages ({empty} conversations)")
    return transcripts


def _transcript(path: Path, conversation: rows.Conversation,
                options: ImportOptions) -> Transcript:
    ledger = conversation.ledger
    messages = [message for exchange in conversation.exchanges
                for message in read_exchange(exchange, options, ledger)]
    if not messages:
        raise NothingToImport("conversation without messages")
    if conversation.metadata:
        ledger.imported(rows.CONVERSATION_ROW, "conversation metadata")
    cwd = next((e.cwd for e in conversation.exchanges if isinstance(e.cwd, str) and e.cwd), None)
    record: dict[str, Any] = {"sessionId": safe_session_id(NAME, conversation.id),
                              "channel": CHANNEL, "messages": messages,
                              "origin": origin(NAME, conversation.id, cwd, path)}
    first = next((m["content"] for m in messages if m["role"] == "user"), messages[0]["content"])
    record["title"] = clip(first.split("\n", 1)[0], TITLE_CHARS)
    if folder_name(cwd):
        record["topics"] = [folder_name(cwd)]
    if conversation.last_modified and not any(m.get("time") for m in messages):
        record["date"] = conversation.last_modified[:10]
    return Transcript.build(record, ledger)


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.DATABASE,),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("XDG_STATE_HOME", "LOCALAPPDATA"),
    resume=Resume(None, "Warp has no command that opens a conversation by its id: reopen it "
                        "from Warp's conversation list (agent mode)"),
    sniff_connection=rows.looks_like_warp, read_database=parse_database)
