"""The Cursor editor's chats, in its SQLite state (`<config>/Cursor/User/globalStorage/state.vscdb`,
`workspaceStorage/<hash>/state.vscdb`), read key by key into the parts of session records
(__init__.py builds the records and says why a database has nothing to import).

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
  are left out; their counts are logged, never their content (their bubble rows are counted by
  key, never read). Other keys (auth tokens,
  checkpoints, diffs) are never read.
- A workspace's `ItemTable` key `composer.composerData` lists its composers
  (`allComposers[{composerId, name, createdAt, ...}]`); in some releases an entry holds its
  conversation inline (`conversation[{type, bubbleId, text, context, timestamp}]`, the shape
  thomas-pedersen/cursor-chat-browser reads): such a composer is read like the others, once
  when cursorDiskKV holds it too, this database's or the global one beside the workspace
  folder (its row wins). A workspace database whose list only names
  composers has nothing to import (their conversations are in the global one).
- `ItemTable` key `workbench.panel.aichat.view.aichat.chatdata` is the chat panel of releases
  before composers: one session per tab. A workspace's folder is in `workspace.json` beside its
  database.
- Each bubble becomes messages as bubbles.py says (tool calls, thinking, images).
- Every row, list entry and bubble read is a record of the file's ledger, under `composer <id>: `
  or `chat tab <id>: ` (`composerData`, `bubble <id>`, `conversation[N]`, `tab`,
  `bubbles[N]`): imported, merged (a composer's list entry when its row is read) or left out
  with its reason; bubble rows whose composer row is gone are counted too. Headers without
  their bubble, and thinking, are pieces of kept records.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.formats.common import ImportOptions
from indexer.formats.cursor.bubbles import Bubbles
from indexer.formats.cursor.folders import workspace, workspace_folder
from indexer.formats.cursor.state import UNREADABLE, KeyValues
from indexer.formats.editors import application_data
from indexer.formats.ledger import IMPORTED, Ledger
from models import parse_time

__all__ = ["DATABASE_NAME", "LISTED_ONLY", "EditorChat", "StateDatabase", "default_paths"]

DATABASE_NAME = "state.vscdb"
_COMPOSER = "composerData:"
_CHAT_PANEL = "workbench.panel.aichat.view.aichat.chatdata"
_BUBBLE = "bubbleId:"
_COMPOSER_LIST = "composer.composerHeaders"  # Cursor 3: every composer, in the sidebar's order
_WORKSPACE_COMPOSERS = "composer.composerData"  # a workspace's composer list, some inline
_OWN_ROW = "composerData"  # how a composer's own row is named in its ledger
_LIST_ENTRY = "allComposers entry"  # and its entry in a workspace's list
LISTED_ONLY = "listed composer: its conversation is kept in globalStorage/state.vscdb"


@dataclass
class EditorChat:
    """A composer or a chat-panel tab, before it becomes a session record."""

    chat_id: str  # the composer's or the tab's id
    title: str | None
    cwd: str | None
    day: str | None
    messages: list[dict[str, Any]]
    ledger: Ledger  # the fates of its own records (the file's ledger holds them too)


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The global database and the workspaces' folder, on Linux, macOS and Windows."""
    users = [base / "Cursor" / "User" for base in application_data(home, env)]
    return [p for user in users
            for p in (user / "globalStorage" / DATABASE_NAME, user / "workspaceStorage")]


class StateDatabase(KeyValues):
    """One state.vscdb, read key by key: a global one holds gigabytes of bubbles. Every record
    read gets its fate in `ledger`, the file's: a composer's and a tab's records under
    `composer <id>: ` and `chat tab <id>: `."""

    def __init__(self, path: Path, connection: sqlite3.Connection, options: ImportOptions,
                 ledger: Ledger) -> None:
        super().__init__(connection)
        self.path = path
        self.options = options
        self.ledger = ledger
        self.listed_only = 0  # composers a workspace lists whose conversation is elsewhere
        self.cwd = workspace_folder(path)

    def chats(self) -> list[EditorChat]:
        """The composers, then the old chat panel's tabs."""
        return self.composers() + self.chat_tabs()

    def composers(self) -> list[EditorChat]:
        listing = self.get("ItemTable", _COMPOSER_LIST)
        entries = [c for c in _list(_dict(listing).get("allComposers")) if isinstance(c, dict)]
        listed = {c["composerId"]: c for c in entries if isinstance(c.get("composerId"), str)}
        rank = {composer_id: n for n, composer_id in enumerate(listed)}
        stored = [key[len(_COMPOSER):] for key in self.keys(_COMPOSER)]
        inline = self.workspace_list(set(stored))
        found: list[tuple[int, str, str]] = []
        for composer_id in stored:
            data = self.get("cursorDiskKV", _COMPOSER + composer_id)
            if not isinstance(data, dict):
                self.drop(composer_id, _OWN_ROW, "unreadable composer",
                          "bubble of an unreadable composer")
                continue
            found.append((rank.get(composer_id, len(rank)), parse_time(data.get("createdAt"))
                          or "", composer_id))
        found += [(rank.get(composer_id, len(rank)), parse_time(entry.get("createdAt")) or "",
                   composer_id) for composer_id, entry in inline.items()]
        out = []
        # the list's order, then creation; each row is read again rather than all kept at once
        # (and no read transaction is held open: Cursor may be writing)
        for _, _, composer_id in sorted(found):
            if composer_id in inline:
                chat = self.composer(composer_id, inline[composer_id], {}, _LIST_ENTRY)
            else:
                data = self.get("cursorDiskKV", _COMPOSER + composer_id)
                if not isinstance(data, dict):  # rewritten since the first read
                    self.drop(composer_id, _OWN_ROW, "unreadable composer",
                              "bubble of an unreadable composer")
                    continue
                chat = self.composer(composer_id, data, listed.get(composer_id, {}), _OWN_ROW)
            if chat is not None:
                out.append(chat)
        self.orphan_bubbles({*stored, *inline})
        return out

    def workspace_list(self, stored: set[str]) -> dict[str, dict[str, Any]]:
        """The composers of `ItemTable['composer.composerData']` (a workspace's list) that keep
        their conversation inline and are not in cursorDiskKV too, by id. Each entry is a record:
        one also in cursorDiskKV, this database's or the global one's, is merged into that
        composer (read once, from its row), one without a conversation is left out (the global
        database holds it)."""
        value = self.get("ItemTable", _WORKSPACE_COMPOSERS)
        if value is UNREADABLE:
            self.ledger.left_out(f"row {_WORKSPACE_COMPOSERS}", "unreadable composer list")
            return {}
        out: dict[str, dict[str, Any]] = {}
        entries = _list(_dict(value).get("allComposers"))
        elsewhere = _in_global_database(self.path, {
            e["composerId"] for e in entries if isinstance(e, dict)
            and isinstance(e.get("composerId"), str) and _inline(e, list_entry=True)})
        seen: set[str] = set()
        for n, entry in enumerate(entries):
            composer_id = _dict(entry).get("composerId")
            if not isinstance(composer_id, str) or not composer_id:
                self.ledger.left_out(f"{_WORKSPACE_COMPOSERS} allComposers[{n}]",
                                     "composer entry without id")
                continue
            assert isinstance(entry, dict)
            conversation = _inline(entry, list_entry=True)
            twin = (f"composer {composer_id}: {_LIST_ENTRY}" if composer_id in seen
                    else f"composer {composer_id}: {_OWN_ROW}" if composer_id in stored
                    else f"{_COMPOSER}{composer_id} in globalStorage/{DATABASE_NAME}"
                    if composer_id in elsewhere and conversation else None)
            where = (f"{_WORKSPACE_COMPOSERS} allComposers[{n}] " if composer_id in seen
                     else f"composer {composer_id}: ")
            seen.add(composer_id)
            if twin is not None:  # the same composer, read from its other place
                self.ledger.merged(where + _LIST_ENTRY, twin)
                for i in range(len(conversation)):
                    self.ledger.merged(f"{where}{_inline_place(_LIST_ENTRY)}[{i}]", twin)
            elif conversation:
                out[composer_id] = entry
            else:
                self.ledger.left_out(where + _LIST_ENTRY, LISTED_ONLY)
                self.listed_only += 1
        return out

    def composer(self, composer_id: str, data: dict[str, Any], entry: dict[str, Any],
                 own: str) -> EditorChat | None:
        """A composer from its row (`own` is _OWN_ROW) or its workspace list entry."""
        if isinstance(data.get("subagentInfo"), dict) or composer_id.startswith("task-"):
            self.drop(composer_id, own, "sub-agent composer", "bubble of a sub-agent composer",
                      data)
            return None
        ledger = Ledger()
        ledger.read(own)
        bubbles = self.bubbles(composer_id, data, ledger, rows=own == _OWN_ROW)
        reader = Bubbles(composer_id, self.options, ledger)
        messages = [m for place, bubble_id, kind, bubble in bubbles
                    for m in reader.render(place, bubble_id, kind, bubble)]
        if not any(m["role"] == "user" for m in messages):
            _drop_all(ledger, own, "composer without a prompt",
                      "bubble of a composer without a prompt")
            self.ledger.absorb(ledger, f"composer {composer_id}: ")
            return None
        ledger.imported(own, "the session's title and metadata")
        self.ledger.absorb(ledger, f"composer {composer_id}: ")
        cwd = (workspace(data) or workspace(entry) or reader.workspace or self.cwd)
        title = next((n.strip() for n in (data.get("name"), entry.get("name"))
                      if isinstance(n, str) and n.strip()), None)
        day = self.day(messages, data.get("createdAt"), data.get("lastUpdatedAt"),
                       entry.get("createdAt"))
        return EditorChat(composer_id, title, cwd, day, messages, ledger)

    def drop(self, composer_id: str, own: str, reason: str, each: str,
             data: dict[str, Any] | None = None) -> None:
        """A composer left out whole, unread: its row (or list entry), and each of its bubbles
        for `each` reason."""
        prefix = f"composer {composer_id}: "
        self.ledger.left_out(prefix + own, reason)
        for n in range(len(_inline(data or {}, list_entry=own == _LIST_ENTRY))):
            self.ledger.left_out(f"{prefix}{_inline_place(own)}[{n}]", each)
        if own == _OWN_ROW:
            for key in self.keys(f"{_BUBBLE}{composer_id}:"):
                self.ledger.left_out(f"{prefix}bubble {key.rsplit(':', 1)[-1]}", each)

    def bubbles(self, composer_id: str, data: dict[str, Any], ledger: Ledger,
                rows: bool) -> list[tuple[str, str, Any, Any]]:
        """(place, bubble id, header type, bubble) in the order Cursor shows them; each bubble
        row or inline bubble is a record of the composer's `ledger`."""
        headers = data.get("fullConversationHeadersOnly")
        inline = _inline(data, list_entry=not rows)
        prefix = f"{_BUBBLE}{composer_id}:"
        stored = [key[len(prefix):] for key in self.keys(prefix)] if rows else []
        if not (isinstance(headers, list) and headers) and (inline or not rows):
            out = [(f"{_inline_place(_OWN_ROW if rows else _LIST_ENTRY)}[{n}]",
                    _bubble_id(b, composer_id, n + 1), None, b) for n, b in enumerate(inline)]
            for place, *_ in out:
                ledger.read(place)
            for bubble_id in stored:  # rows beside an inline conversation: not shown
                ledger.left_out(f"bubble {bubble_id}", "bubble not in the conversation")
            return out
        if not isinstance(headers, list) or not headers:  # releases before the header list
            found = [(f"bubble {b}", b, None, self.get("cursorDiskKV", prefix + b))
                     for b in sorted(stored)]
            for place, *_ in found:
                ledger.read(place)
            return sorted(found, key=lambda r: parse_time(_dict(r[3]).get("createdAt")) or "")
        out = []
        seen: set[str] = set()
        rows_kept = set(stored)
        for header in headers:
            named = _dict(header).get("bubbleId")
            if not isinstance(named, str) or named in seen:
                ledger.part_left_out("repeated or unnamed header")
                continue
            seen.add(named)
            if named not in rows_kept:
                ledger.part_left_out("header without its bubble")
                continue
            ledger.read(f"bubble {named}")
            out.append((f"bubble {named}", named, _dict(header).get("type"),
                        self.get("cursorDiskKV", prefix + named)))
        for bubble_id in stored:
            if bubble_id not in seen:  # pruned turns Cursor no longer shows
                ledger.left_out(f"bubble {bubble_id}", "bubble not in the conversation")
        return out

    def orphan_bubbles(self, composers: set[str]) -> None:
        """Bubble rows whose composer is gone (its row deleted): counted, never read."""
        for key in self.keys(_BUBBLE):
            composer_id, _, bubble_id = key[len(_BUBBLE):].partition(":")
            if composer_id not in composers:
                self.ledger.left_out(f"composer {composer_id}: bubble {bubble_id}",
                                     "bubble without its composer")

    def chat_tabs(self) -> list[EditorChat]:
        """The chat panel of releases before composers: each tab a session."""
        panel = self.get("ItemTable", _CHAT_PANEL)
        if panel is UNREADABLE:
            self.ledger.left_out(f"row {_CHAT_PANEL}", "unreadable chat panel")
        out = []
        for n, tab in enumerate(_list(_dict(panel).get("tabs"))):
            tab_id = _dict(tab).get("tabId")
            if not isinstance(tab_id, str) or not tab_id:
                self.ledger.left_out(f"chat panel tabs[{n}]", "chat tab without id")
                continue
            assert isinstance(tab, dict)
            ledger = Ledger()
            ledger.read("tab")
            reader = Bubbles(tab_id, self.options, ledger)
            messages = [m for i, bubble in enumerate(_list(tab.get("bubbles")))
                        for m in reader.render(f"bubbles[{i}]", _bubble_id(bubble, tab_id, i + 1),
                                               None, bubble)]
            if not any(m["role"] == "user" for m in messages):
                _drop_all(ledger, "tab", "chat tab without a prompt",
                          "bubble of a chat tab without a prompt")
                self.ledger.absorb(ledger, f"chat tab {tab_id}: ")
                continue
            ledger.imported("tab", "the session's title and metadata")
            self.ledger.absorb(ledger, f"chat tab {tab_id}: ")
            title = tab.get("chatTitle")
            out.append(EditorChat(
                tab_id, title.strip() if isinstance(title, str) and title.strip() else None,
                self.cwd, self.day(messages, tab.get("lastSendTime")), messages, ledger))
        return out

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


def _in_global_database(path: Path, composers: set[str]) -> set[str]:
    """Which of a workspace database's composers the global database beside its folder
    (`User/globalStorage/state.vscdb`) holds as rows too: those are read from there. Only looked
    up in place: when Cursor holds the global database locked, none (a copy of gigabytes to
    check a few keys is not worth it)."""
    folder = path.parent.parent
    if not composers or folder.name != "workspaceStorage":
        return set()
    global_db = folder.parent / "globalStorage" / DATABASE_NAME
    try:
        connection = sqlite3.connect(f"{global_db.absolute().as_uri()}?mode=ro", uri=True,
                                     timeout=0.2)
    except (sqlite3.Error, ValueError):
        return set()
    try:
        return {c for c in composers if connection.execute(
            "SELECT 1 FROM cursorDiskKV WHERE key = ?", (_COMPOSER + c,)).fetchone()}
    except sqlite3.Error:  # locked, absent, not a database, no cursorDiskKV
        return set()
    finally:
        connection.close()


def _drop_all(ledger: Ledger, own: str, reason: str, each: str) -> None:
    """A chat left out after its bubbles were read: its own record, and the bubbles that would
    have been imported (those left out already keep their reason)."""
    ledger.left_out(own, reason)
    for fate in ledger.fates():
        if fate.fate == IMPORTED:
            ledger.left_out(fate.where, each)


def _inline(data: dict[str, Any], list_entry: bool) -> list[Any]:
    """A composer's inline conversation: `conversation` (older composerData rows and the
    workspace list's entries, thomas-pedersen/cursor-chat-browser src/types/workspace.ts at
    4a508921ada0), or a list entry's `messages` of `{role, content}` (some builds, per
    DavidBerdik/cursor-view cursor_view/sources/item_table.py at 19682f00470c)."""
    conversation = data.get("conversation")
    if isinstance(conversation, list):
        return conversation
    messages = data.get("messages") if list_entry else None
    return messages if isinstance(messages, list) else []


def _inline_place(own: str) -> str:
    """How the bubbles inline in a composer are named: apart from those of its list entry."""
    return "conversation" if own == _OWN_ROW else "allComposers conversation"


def _bubble_id(bubble: Any, owner: str, position: int) -> str:
    own = _dict(bubble).get("bubbleId") or _dict(bubble).get("id")
    return own if isinstance(own, str) and own else f"{owner}-{position}"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
