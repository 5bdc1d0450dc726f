"""opencode's legacy JSON tree under `<data>/storage/`, which releases before the database wrote,
read from a session file into the session with its messages and parts (opencode_parts.py turns
those into the archive's messages, opencode.py builds the record).

The tree holds the database's objects as files: `storage/session/<projectID>/<sessionID>.json`,
`storage/message/<sessionID>/<messageID>.json`, `storage/part/<messageID>/<partID>.json`, and in
the oldest releases `project/<project>/storage/session/{info,message,part}/...` with the parts
inside each message. Choices:

- One session per session file, child sessions included; its message and part files, and the
  tree's metadata files (projects, todo lists, file changes, share links), are recognized and
  have nothing to import on their own.
- A message or part file that does not parse is counted.
- opencode copies the tree into the database once and leaves it: a session file with
  `opencode.db` in the data folder above it (or an oldest-tree session copied into the newer
  tree) has nothing to import, so that a session is read once.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from indexer.formats.common import NothingToImport
from indexer.formats.opencode_parts import Message, Session, as_dict, loads
from models import InvalidSession

__all__ = ["kind", "read_session"]

_SAFE_ID = re.compile(r"ses_[A-Za-z0-9_-]+")


def kind(value: Any) -> str | None:
    """What a file of the tree holds, from its content."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        if all({"content", "status", "priority"} <= v.keys() for v in value):
            return "todo list"
        if all({"file", "additions", "deletions"} <= v.keys() for v in value):
            return "list of file changes"
        return None
    if not isinstance(value, dict) or "messages" in value:
        return None
    ident = value.get("id")
    if isinstance(value.get("secret"), str) and isinstance(value.get("url"), str) and (
            value.keys() <= {"id", "secret", "url"}):
        return "share link"
    if not isinstance(ident, str):
        return None
    if ident.startswith("ses_") and isinstance(value.get("title"), str) and (
            isinstance(value.get("time"), dict)):
        return "session"
    if ident.startswith("msg_") and value.get("role") in ("user", "assistant") and (
            isinstance(value.get("sessionID"), str) or isinstance(value.get("metadata"), dict)):
        return "message"
    if ident.startswith("prt_") and isinstance(value.get("type"), str) and (
            isinstance(value.get("messageID"), str)):
        return "part"
    if isinstance(value.get("worktree"), str) and isinstance(value.get("time"), dict):
        return "project"
    return None


def read_session(path: Path, value: dict[str, Any]) -> Session:
    """The session of a session file (`value`, its content), with the messages and parts in the
    folders beside it."""
    # files are named by their ids, which stay right when a file was moved (json-migration.ts)
    session_id = path.stem if path.stem.startswith("ses_") else value["id"]
    if not _SAFE_ID.fullmatch(session_id):  # it names the folders read next
        raise InvalidSession("not an opencode session: its id is not one opencode writes")
    layout = _layout(path, session_id)
    if layout is None:
        raise NothingToImport("an opencode session file outside its storage folder: its "
                              "messages are not beside it")
    copy = _migrated(path, session_id)
    if copy:
        raise NothingToImport(f"an opencode session copied into {copy} by a one-time migration "
                              "that left the old files: it is read from there")
    message_dir, part_dir = layout
    files = sorted(message_dir.glob("*.json"))
    if not files:
        raise NothingToImport(f"an opencode session without messages (none in {message_dir})")
    skipped: Counter[str] = Counter()
    messages = []
    for file in files:
        info = _read_json(file)
        if info is None:
            skipped["unreadable message file"] += 1
            continue
        if isinstance(info.get("parts"), list):  # the oldest releases kept the parts inside
            parts = _v1_parts(info["parts"])
            info = {**info, **as_dict(info.get("metadata"))}
        else:
            parts = []
            for part_file in sorted(part_dir(file.stem).glob("*.json")):
                part = _read_json(part_file)
                if part is None:
                    skipped["unreadable part file"] += 1
                else:
                    parts.append(part)
        messages.append(Message(file.stem, info, parts))
    return Session(session_id, value.get("title"), value.get("directory"),
                   as_dict(value.get("time")).get("created"), messages, skipped)


def _layout(path: Path, session_id: str) -> tuple[Path, Callable[[str], Path]] | None:
    """The session's message folder, and the part folder of a message, from where the session
    file is: `storage/session/<project>/` now, `storage/session/info/` in the oldest releases."""
    folder = path.parent
    if folder.name == "info" and folder.parent.name == "session":
        root = folder.parent
        return root / "message" / session_id, lambda m: root / "part" / session_id / m
    if folder.parent.name == "session" and folder.parent.parent.name == "storage":
        storage = folder.parent.parent
        return storage / "message" / session_id, lambda m: storage / "part" / m
    return None


def _migrated(path: Path, session_id: str) -> str | None:
    """Where a newer opencode copied the session, if it did: on first start it copies the tree
    into `<data>/opencode.db` (json-migration.ts), and before that it copied the oldest tree into
    `<data>/storage/session/<project>/` (storage.ts). Neither removes what it copied."""
    parents = path.parents
    if path.parent.name == "info" and len(parents) > 5:  # <data>/project/<p>/storage/session/info
        newer = parents[5] / "storage" / "session"
        if newer.is_dir() and any((p / f"{session_id}.json").is_file() for p in newer.iterdir()):
            return "storage/session"
    elif len(parents) > 3 and (parents[3] / "opencode.db").exists():  # <data>/storage/session/<p>
        return "opencode.db"
    return None


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        return loads(path.read_bytes())
    except OSError:
        return None


def _v1_parts(parts: list[Any]) -> list[dict[str, Any]]:
    """The parts of the oldest messages (AI SDK UI parts) in today's shape (MessageV2.fromV1)."""
    out = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        call = as_dict(part.get("toolInvocation"))
        if part.get("type") == "tool-invocation":
            done = call.get("state") == "result"
            out.append({"type": "tool", "tool": call.get("toolName"), "state": {
                "status": "completed" if done else "running", "input": call.get("args"),
                "output": call.get("result")}})
        elif part.get("type") == "file":
            out.append({**part, "mime": part.get("mediaType")})
        else:
            out.append(part)
    return out
