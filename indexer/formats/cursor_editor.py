"""The Cursor editor's chats, in its SQLite state (`<config>/Cursor/User/globalStorage/state.vscdb`,
`workspaceStorage/<hash>/state.vscdb`), read key by key into the parts of session records
(cursor.py builds the records and says why a database has nothing to import).

Cursor is closed source: the layout is the one open-source readers of these files agree on
(cursor-view, git-ai, franken_agent_detection, agentsview). Choices:

- Table `cursorDiskKV(key, value)`: `composerData:<id>` is one composer (a chat) with `name`,
  `createdAt`, `workspaceIdentifier` and `fullConversationHeadersOnly[{bubbleId, type}]`, the
  order Cursor shows its turns in; each turn is a row `bubbleId:<composer>:<bubble>` (`type` 1
  user / 2 assistant, `text`, `createdAt`, `thinking`, `toolFormerData`). Messages follow the
  header list: bubble rows it does not name (turns Cursor pruned on a restart or summary),
  repeated headers and headers whose row is gone are left out and counted. Older composers keep
  their turns inline in `conversation[]`.
- Composers come in the order of the `composer.composerHeaders` list (Cursor 3), then by
  creation. Composers without a prompt (opened and never sent, or an assistant turn only),
  sub-agent composers (the parent's tool call holds their task and result) and unreadable rows
  are left out; their counts are logged, never their content. Other keys (auth tokens,
  checkpoints, diffs) are never read.
- `ItemTable` key `workbench.panel.aichat.view.aichat.chatdata` is the chat panel of releases
  before composers: one session per tab. A workspace's folder is in `workspace.json` beside its
  database; a workspace database holding only its composer list has nothing to import (the
  conversations are in the global one).
- A tool call becomes `[tool: name] args` in the assistant message and its result a `tool`
  message, both cut to `tool_chars`; thinking is kept only with --thinking.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.cursor_cli import tool_output
from indexer.formats.editors import application_data
from models import parse_time

__all__ = ["DATABASE_NAME", "EditorChat", "StateDatabase", "default_paths"]

DATABASE_NAME = "state.vscdb"
_COMPOSER = "composerData:"
_CHAT_PANEL = "workbench.panel.aichat.view.aichat.chatdata"
_COMPOSER_LIST = "composer.composerHeaders"  # Cursor 3: every composer, in the sidebar's order
_WORKSPACE_COMPOSERS = "composer.composerData"  # a workspace's composer list (metadata)
_ROLES = {1: "user", 2: "assistant"}
_PANEL_ROLES = {"user": "user", "ai": "assistant"}
_BAD = object()  # a row whose value is not readable JSON


@dataclass
class EditorChat:
    """A composer or a chat-panel tab, before it becomes a session record."""

    chat_id: str  # the composer's or the tab's id
    title: str | None
    cwd: str | None
    day: str | None
    messages: list[dict[str, Any]]
    skipped: Counter[str]


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The global database and the workspaces' folder, on Linux, macOS and Windows."""
    users = [base / "Cursor" / "User" for base in application_data(home, env)]
    return [p for user in users
            for p in (user / "globalStorage" / DATABASE_NAME, user / "workspaceStorage")]


class StateDatabase:
    """One state.vscdb, read key by key: a global one holds gigabytes of bubbles."""

    def __init__(self, path: Path, connection: sqlite3.Connection, options: ImportOptions) -> None:
        self.path = path
        self.connection = connection
        self.options = options
        self.kv = _has_kv(connection, "cursorDiskKV")
        self.items = _has_kv(connection, "ItemTable")
        self.dropped: Counter[str] = Counter()  # composers and tabs left out, by reason
        self.cwd = _workspace_folder(path)

    def get(self, table: str, key: str) -> Any:
        """A key's JSON value: None when there is no such row, _BAD when it does not parse."""
        if not (self.kv if table == "cursorDiskKV" else self.items):
            return None
        row = self.connection.execute(f"SELECT value FROM {table} WHERE key = ?",
                                      (key,)).fetchone()
        return None if row is None else _decode(row[0])

    def keys(self, prefix: str) -> list[str]:
        """The cursorDiskKV keys that start with prefix (a range, so the key index serves it)."""
        if not self.kv:
            return []
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        rows = self.connection.execute(
            "SELECT key FROM cursorDiskKV WHERE key >= ? AND key < ?", (prefix, upper))
        return [row[0] for row in rows if isinstance(row[0], str)]

    def composers(self) -> list[EditorChat]:
        listing = self.get("ItemTable", _COMPOSER_LIST)
        entries = [c for c in _dict(listing).get("allComposers") or [] if isinstance(c, dict)]
        listed = {c["composerId"]: c for c in entries if isinstance(c.get("composerId"), str)}
        rank = {composer_id: n for n, composer_id in enumerate(listed)}
        found: list[tuple[int, str, str]] = []
        for key in self.keys(_COMPOSER):
            data = self.get("cursorDiskKV", key)
            if not isinstance(data, dict):
                self.dropped["unreadable composer"] += 1
                continue
            composer_id = key[len(_COMPOSER):]
            created = parse_time(data.get("createdAt")) or ""
            found.append((rank.get(composer_id, len(rank)), created, composer_id))
        out = []
        # the list's order, then creation; each row is read again rather than all kept at once
        # (and no read transaction is held open: Cursor may be writing)
        for _, _, composer_id in sorted(found):
            data = self.get("cursorDiskKV", _COMPOSER + composer_id)
            if not isinstance(data, dict):  # rewritten since the first read
                self.dropped["unreadable composer"] += 1
                continue
            chat = self.composer(composer_id, data, listed.get(composer_id, {}))
            if chat is not None:
                out.append(chat)
        return out

    def composer(self, composer_id: str, data: dict[str, Any],
                 entry: dict[str, Any]) -> EditorChat | None:
        if isinstance(data.get("subagentInfo"), dict) or composer_id.startswith("task-"):
            self.dropped["sub-agent composer"] += 1
            return None
        skipped: Counter[str] = Counter()
        bubbles = self.bubbles(composer_id, data, skipped)
        reader = _Bubbles(composer_id, self.options, skipped)
        messages = [m for bubble_id, kind, bubble in bubbles
                    for m in reader.render(bubble_id, kind, bubble)]
        if not any(m["role"] == "user" for m in messages):
            self.dropped["composer without a prompt"] += 1
            return None
        cwd = (_workspace(data) or _workspace(entry) or reader.workspace or self.cwd)
        title = next((n.strip() for n in (data.get("name"), entry.get("name"))
                      if isinstance(n, str) and n.strip()), None)
        day = self.day(messages, data.get("createdAt"), data.get("lastUpdatedAt"),
                       entry.get("createdAt"))
        return EditorChat(composer_id, title, cwd, day, messages, skipped)

    def bubbles(self, composer_id: str, data: dict[str, Any],
                skipped: Counter[str]) -> list[tuple[str, Any, Any]]:
        """(bubble id, header type, bubble) in the order Cursor shows them."""
        headers = data.get("fullConversationHeadersOnly")
        inline = data.get("conversation")
        if not (isinstance(headers, list) and headers) and isinstance(inline, list):
            return [(_bubble_id(b, composer_id, n), None, b) for n, b in enumerate(inline, 1)]
        prefix = f"bubbleId:{composer_id}:"
        stored = {key[len(prefix):] for key in self.keys(prefix)}
        if not isinstance(headers, list) or not headers:  # releases before the header list
            rows = [(b, None, self.get("cursorDiskKV", prefix + b)) for b in sorted(stored)]
            return sorted(rows, key=lambda r: parse_time(_dict(r[2]).get("createdAt")) or "")
        out: list[tuple[str, Any, Any]] = []
        seen: set[str] = set()
        for header in headers:
            bubble_id = _dict(header).get("bubbleId")
            if not isinstance(bubble_id, str) or bubble_id in seen:
                skipped["repeated or unnamed header"] += 1
                continue
            seen.add(bubble_id)
            if bubble_id not in stored:
                skipped["header without its bubble"] += 1
                continue
            out.append((bubble_id, _dict(header).get("type"),
                        self.get("cursorDiskKV", prefix + bubble_id)))
        if stored - seen:  # pruned turns Cursor no longer shows
            skipped["bubble not in the conversation"] += len(stored - seen)
        return out

    def chat_tabs(self) -> list[EditorChat]:
        """The chat panel of releases before composers: each tab a session."""
        panel = self.get("ItemTable", _CHAT_PANEL)
        if panel is _BAD:
            self.dropped["unreadable chat panel"] += 1
        out = []
        for tab in _dict(panel).get("tabs") or []:
            tab_id = _dict(tab).get("tabId")
            if not isinstance(tab_id, str) or not tab_id:
                self.dropped["chat tab without id"] += 1
                continue
            skipped: Counter[str] = Counter()
            reader = _Bubbles(tab_id, self.options, skipped)
            messages = [m for n, bubble in enumerate(tab.get("bubbles") or [], 1)
                        for m in reader.render(_bubble_id(bubble, tab_id, n), None, bubble)]
            if not any(m["role"] == "user" for m in messages):
                self.dropped["chat tab without a prompt"] += 1
                continue
            title = tab.get("chatTitle")
            out.append(EditorChat(
                tab_id, title.strip() if isinstance(title, str) and title.strip() else None,
                self.cwd, self.day(messages, tab.get("lastSendTime")), messages, skipped))
        return out

    def workspace_composers(self) -> int:
        listing = self.get("ItemTable", _WORKSPACE_COMPOSERS)
        return len([c for c in _dict(listing).get("allComposers") or [] if isinstance(c, dict)])

    def day(self, messages: list[dict[str, Any]], *candidates: Any) -> str | None:
        """The session's day: its own creation time, else its first message's, else the day the
        database was last written (a session needs one)."""
        day = next((t[:10] for t in map(parse_time, candidates) if t), None)
        day = day or next((m["time"][:10] for m in messages if m.get("time")), None)
        if day is None:
            try:
                day = parse_time(self.path.stat().st_mtime)
            except OSError:
                day = None
        return day[:10] if day else None


class _Bubbles:
    """Bubbles (a composer's turns, or a chat tab's) as the archive's messages."""

    def __init__(self, owner: str, options: ImportOptions, skipped: Counter[str]) -> None:
        self.owner = owner
        self.options = options
        self.skipped = skipped
        self.workspace: str | None = None  # the folder a bubble names, when the composer does not

    def render(self, bubble_id: str, header_kind: Any, bubble: Any) -> list[dict[str, Any]]:
        if bubble is _BAD or not isinstance(bubble, dict):
            self.skipped["unreadable bubble"] += 1
            return []
        kind = bubble.get("type", header_kind)
        role = (_ROLES.get(kind) if type(kind) is int
                else _PANEL_ROLES.get(kind) if isinstance(kind, str) else None)
        if role is None:
            self.skipped[f"bubble type {label(kind)}"] += 1
            return []
        self.workspace = self.workspace or _bubble_workspace(bubble)
        limit = self.options.tool_chars
        lines = []
        thought = _dict(bubble.get("thinking")).get("text")
        if role == "assistant" and isinstance(thought, str) and thought.strip():
            if self.options.thinking:
                lines.append(f"[thinking] {thought.strip()}")
            else:
                self.skipped["thinking"] += 1
        order = ("rawText", "text") if kind == "ai" else ("text", "rawText")
        lines.append(next((bubble[k].strip() for k in order if isinstance(bubble.get(k), str)
                           and bubble[k].strip()), ""))
        result = None
        tool = _dict(bubble.get("toolFormerData"))
        if role == "assistant" and isinstance(tool.get("name"), str) and tool["name"]:
            lines.append(tool_call_text(tool["name"], _tool_arguments(tool), limit))
            if tool.get("result") not in (None, ""):
                result = tool_result_text(tool["name"], tool_output(tool["result"]),
                                          tool.get("status") == "error", limit)
        time = parse_time(bubble.get("createdAt") or bubble.get("timestamp"))
        base = {"time": time} if time else {}
        out = []
        content = "\n".join(line for line in lines if line)
        if content:
            out.append({"id": bubble_id, "role": role, "content": content, **base})
        elif result is None:
            self.skipped["message left empty"] += 1
        if result is not None:
            out.append({"id": f"{bubble_id}-result", "role": "tool", "content": result, **base})
        return out



def _has_kv(connection: sqlite3.Connection, table: str) -> bool:
    """Whether the database has this key-value table (releases differ in which they have)."""
    columns = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
    return {"key", "value"} <= columns


def _decode(raw: Any) -> Any:
    """A value column as JSON (TEXT or BLOB); _BAD when it is missing or does not parse."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        value = json.loads(text) if isinstance(text, str) else None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return _BAD
    return _BAD if value is None else value


def _bubble_id(bubble: Any, owner: str, position: int) -> str:
    own = _dict(bubble).get("bubbleId") or _dict(bubble).get("id")
    return own if isinstance(own, str) and own else f"{owner}-{position}"


def _tool_arguments(tool: dict[str, Any]) -> Any:
    """A tool call's arguments: `rawArgs` (the model's JSON), else the `params` Cursor kept."""
    for key in ("rawArgs", "params"):
        value = tool.get(key)
        if isinstance(value, str) and value.strip():
            try:
                return json.loads(value)
            except (json.JSONDecodeError, RecursionError):
                return value
        if isinstance(value, dict) and value:
            return value
    return None



def _workspace(value: dict[str, Any]) -> str | None:
    """The folder of a composer's `workspaceIdentifier.uri` (`fsPath`, else its URI)."""
    uri = _dict(_dict(value.get("workspaceIdentifier")).get("uri"))
    if isinstance(uri.get("fsPath"), str) and uri["fsPath"].strip():
        return str(uri["fsPath"]).strip()
    return _uri_path(uri.get("external") or uri.get("path"))


def _bubble_workspace(bubble: dict[str, Any]) -> str | None:
    folder = bubble.get("workspaceProjectDir")
    if isinstance(folder, str) and folder.strip():
        return folder.strip()
    uris = bubble.get("workspaceUris")
    return _uri_path(uris[0]) if isinstance(uris, list) and uris else None


def _workspace_folder(path: Path) -> str | None:
    """The folder a workspace database belongs to, from `workspace.json` beside it."""
    try:
        value = json.loads((path.parent / "workspace.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return _uri_path(_dict(value).get("folder"))


def _uri_path(uri: Any) -> str | None:
    """`file:///home/lin/x` -> /home/lin/x, `file:///c%3A/x` -> c:/x; a bare path as it is."""
    if not isinstance(uri, str) or not uri.strip():
        return None
    if "://" not in uri:
        return uri.strip()
    path = unquote(urlparse(uri).path)
    if re.match(r"/[A-Za-z]:", path):
        path = path[1:]
    return path or None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
