"""The turns of a Cursor editor chat (a composer's bubbles, or a chat-panel tab's) as the
archive's messages (editor.py reads them from the database in order). Choices:

- A bubble's role is its `type` (1 user, 2 assistant; `user` / `ai` in the old chat panel, or a
  `{role, content}` entry); its text is `text` (`rawText` first for the panel's answers).
- A tool call becomes `[tool: name] args` in the assistant message and its result a `tool`
  message, both cut to `tool_chars`; thinking is kept only with --thinking. The images of a
  bubble (`context.selectedImages`, or the older `images`) are `[image]` lines: a screenshot sent
  without words is a user turn of its own.
- Each bubble's fate goes to the chat's ledger: imported, or left out with its reason (an
  unreadable bubble, an unknown type, a message left empty); thinking left out is a piece.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.cursor.cli import tool_output
from indexer.formats.cursor.folders import bubble_workspace
from indexer.formats.cursor.state import UNREADABLE
from indexer.formats.ledger import Ledger
from models import parse_time

__all__ = ["THINKING", "Bubbles"]

THINKING = "thinking"
_ROLES = {1: "user", 2: "assistant"}
_PANEL_ROLES = {"user": "user", "ai": "assistant"}


class Bubbles:
    """Bubbles (a composer's turns, or a chat tab's) as the archive's messages; each bubble's
    fate goes to `ledger`."""

    def __init__(self, owner: str, options: ImportOptions, ledger: Ledger) -> None:
        self.owner = owner
        self.options = options
        self.ledger = ledger
        self.workspace: str | None = None  # the folder a bubble names, when the composer does not

    def render(self, place: str, bubble_id: str, header_kind: Any,
               bubble: Any) -> list[dict[str, Any]]:
        if bubble is UNREADABLE or not isinstance(bubble, dict):
            self.ledger.left_out(place, "unreadable bubble")
            return []
        kind = bubble.get("type", header_kind)
        role = (_ROLES.get(kind) if type(kind) is int
                else _PANEL_ROLES.get(kind) if isinstance(kind, str) else None)
        if kind is None and bubble.get("role") in ("user", "assistant"):  # {role, content}
            role = bubble["role"]
        if role is None:
            self.ledger.left_out(place, f"bubble type {label(kind)}")
            return []
        self.workspace = self.workspace or bubble_workspace(bubble)
        limit = self.options.tool_chars
        pieces: Counter[str] = Counter()
        lines = []
        thought = _dict(bubble.get("thinking")).get("text")
        if role == "assistant" and isinstance(thought, str) and thought.strip():
            if self.options.thinking:
                lines.append(f"[thinking] {thought.strip()}")
            else:
                pieces[THINKING] += 1
        order = ("rawText", "text") if kind == "ai" else ("text", "rawText", "content")
        lines.append(next((bubble[k].strip() for k in order if isinstance(bubble.get(k), str)
                           and bubble[k].strip()), ""))
        lines += ["[image]"] * _images(bubble)  # a screenshot sent without words stays a turn
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
        if result is not None:
            out.append({"id": f"{bubble_id}-result", "role": "tool", "content": result, **base})
        if out:
            self.ledger.imported(place)
        elif set(pieces) == {THINKING}:
            self.ledger.left_out(place, THINKING)
            return []
        else:
            self.ledger.left_out(place, "message left empty")
        for piece, count in pieces.items():
            self.ledger.part_left_out(piece, count)
        return out


def _images(bubble: dict[str, Any]) -> int:
    """How many images a bubble carries: `context.selectedImages` (`{uuid, path, dimension}`,
    the file Cursor saved) and the older `images` (`{uuid, dimension, data}`, the bytes inline);
    an image in both counts once (the shapes DavidBerdik/cursor-view reads,
    cursor_view/images/refs.py at 982d6af95f6c)."""
    seen: set[str] = set()
    count = 0
    for entry in [*_list(_dict(bubble.get("context")).get("selectedImages")),
                  *_list(bubble.get("images"))]:
        uuid = _dict(entry).get("uuid")
        if not entry or (isinstance(uuid, str) and uuid in seen):
            continue
        if isinstance(uuid, str):
            seen.add(uuid)
        count += 1
    return count


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


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
