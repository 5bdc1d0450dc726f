"""The chats of a Windsurf state database: each chat-data key of its `ItemTable` read once, as
chat-panel tabs or as one VS Code chat session (__init__.py says which keys and why). Every tab,
bubble and request read is a record of the file's ledger, under `chat <id>: `."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.formats.common import ImportOptions, NothingToImport, clip
from indexer.formats.copilot.vscode import read_chat
from indexer.formats.cursor.bubbles import Bubbles
from indexer.formats.cursor.state import UNREADABLE, KeyValues
from indexer.formats.ledger import IMPORTED, Ledger
from models import parse_time

__all__ = ["CHAT_KEYS", "PanelChat", "read_chats"]

CHAT_KEYS = ("aiChat.chatdata", "workbench.panel.aichat.view.aichat.chatdata")
TITLE_CHARS = 80


@dataclass
class PanelChat:
    """A tab of the chat panel, or a chat session, before it becomes a session record."""

    chat_id: str
    title: str | None
    day: str | None
    messages: list[dict[str, Any]]
    ledger: Ledger  # the fates of its own records (the file's ledger holds them too)


def read_chats(path: Path, connection: sqlite3.Connection, options: ImportOptions,
               ledger: Ledger) -> list[PanelChat] | None:
    """The chats of every chat-data key, in the keys' order; a chat found under both keys is
    read from the first. None for a database without `ItemTable`."""
    state = KeyValues(connection)
    if not state.items:
        return None
    found: dict[str, PanelChat] = {}
    seen: set[str] = set()
    for key in CHAT_KEYS:
        value = state.get("ItemTable", key)
        if value is None:
            continue
        if not isinstance(value, dict):
            ledger.left_out(f"row {key}", "unreadable chat data" if value is UNREADABLE
                            else "chat data of an unknown shape")
            continue
        if isinstance(value.get("requests"), list):  # one VS Code chat session
            chats = [_session(path, key, value, options)]
        elif isinstance(value.get("tabs"), list):
            chats = [_tab(n, tab, key, options, ledger) for n, tab in enumerate(value["tabs"])]
        else:
            ledger.left_out(f"row {key}", "chat data of an unknown shape")
            continue
        for chat in chats:
            if chat is None:
                continue
            prefix = f"chat {chat.chat_id}: "
            if chat.chat_id in seen:  # the same chat under the other key: read once
                for fate in chat.ledger.fates():
                    ledger.merged(prefix + f"{key} {fate.where}", f"chat {chat.chat_id}")
                continue
            seen.add(chat.chat_id)
            ledger.absorb(chat.ledger, prefix)
            if any(m["role"] == "user" for m in chat.messages):
                found[chat.chat_id] = chat
    return list(found.values())


def _tab(number: int, tab: Any, key: str, options: ImportOptions,
         ledger: Ledger) -> PanelChat | None:
    """A chat-panel tab: its bubbles as messages (cursor/bubbles.py)."""
    tab_id = tab.get("tabId") if isinstance(tab, dict) else None
    if not isinstance(tab_id, str) or not tab_id.strip():
        ledger.left_out(f"{key} tabs[{number}]", "chat tab without id")
        return None
    assert isinstance(tab, dict)
    own = Ledger()
    own.read("tab")
    reader = Bubbles(tab_id, options, own)
    bubbles = tab["bubbles"] if isinstance(tab.get("bubbles"), list) else []
    messages = [m for i, bubble in enumerate(bubbles)
                for m in reader.render(f"bubbles[{i}]", _bubble_id(bubble, tab_id, i), None,
                                       bubble)]
    if not any(m["role"] == "user" for m in messages):
        _drop_all(own, "chat tab without a prompt", "bubble of a chat tab without a prompt")
    else:
        own.imported("tab", "the session's title and metadata")
    title = tab.get("chatTitle")
    title = title.strip().split("\n", 1)[0] if isinstance(title, str) and title.strip() else None
    day = next((t[:10] for t in map(parse_time, (tab.get("lastSendTime"),
                                                 tab.get("lastUpdatedAt"))) if t), None)
    return PanelChat(tab_id, title or _first_prompt(messages), day or _first_day(messages),
                     messages, own)


def _session(path: Path, key: str, value: dict[str, Any],
             options: ImportOptions) -> PanelChat | None:
    """One VS Code chat session kept under the key (copilot/vscode.py reads it); without a
    session id of its own it is named after the workspace's folder."""
    own = Ledger()
    chat_id = value.get("sessionId")
    if not isinstance(chat_id, str) or not chat_id.strip():
        chat_id = f"workspace-{path.parent.name}"
    try:
        chat = read_chat(path, {**value, "sessionId": chat_id}, options, own)
    except NothingToImport:
        return None
    if not any(m["role"] == "user" for m in chat.messages):
        _drop_all(own, "chat session without a prompt", "request of a chat without a prompt")
    return PanelChat(chat.session_id, chat.title or _first_prompt(chat.messages),
                     (chat.created or "")[:10] or _first_day(chat.messages), chat.messages, own)


def _drop_all(ledger: Ledger, own: str, each: str) -> None:
    """A chat left out after its records were read: those that would have been imported."""
    for fate in ledger.fates():
        if fate.fate == IMPORTED or fate.where == "tab":
            ledger.left_out(fate.where, own if fate.where == "tab" else each)


def _first_prompt(messages: list[dict[str, Any]]) -> str | None:
    first = next((m["content"] for m in messages if m["role"] == "user"), None)
    return clip(first.split("\n", 1)[0], TITLE_CHARS) if first else None


def _first_day(messages: list[dict[str, Any]]) -> str | None:
    return next((m["time"][:10] for m in messages if m.get("time")), None)


def _bubble_id(bubble: Any, owner: str, position: int) -> str:
    own = bubble.get("id") or bubble.get("bubbleId") if isinstance(bubble, dict) else None
    return own if isinstance(own, str) and own else f"{owner}-{position + 1}"
