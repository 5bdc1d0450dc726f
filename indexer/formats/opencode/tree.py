"""opencode's legacy JSON tree under `<data>/storage/`, which releases before the database wrote,
read from a session file into the session with its messages and parts (parts.py turns
those into the archive's messages, __init__.py builds the record).

The tree holds the database's objects as files: `storage/session/<projectID>/<sessionID>.json`,
`storage/message/<sessionID>/<messageID>.json`, `storage/part/<messageID>/<partID>.json`, and in
the oldest releases `project/<project>/storage/session/{info,message,part}/...` with the parts
inside each message. Choices:

- One session per session file, child sessions included; its message and part files, and the
  tree's metadata files (projects, todo lists, file changes, share links), are recognized and
  have nothing to import on their own.
- The session file, and each message and part file read with it, is a record of the session
  file's ledger (`session <id>`, `message <id>`, `part <id>`; the oldest releases' parts inside
  a message file are `message <id> parts[N]`). A message or part file that does not parse is
  left out, and so are the parts of a message file that could not be read.
- opencode copies the tree into the database once and leaves it: a session file with
  `opencode.db` in the data folder above it (or an oldest-tree session copied into the newer
  tree) has nothing to import, so that a session is read once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from indexer.formats.common import NothingToImport
from indexer.formats.ledger import Ledger
from indexer.formats.opencode.parts import Message, Part, Session, as_dict, loads
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
    # older releases keep the session's id in the message's metadata (goose's messages have
    # msg_ ids and a metadata of their own, without one)
    metadata = value.get("metadata")
    if ident.startswith("msg_") and value.get("role") in ("user", "assistant") and (
            isinstance(value.get("sessionID"), str)
            or (isinstance(metadata, dict) and isinstance(metadata.get("sessionID"), str))):
        return "message"
    if ident.startswith("prt_") and isinstance(value.get("type"), str) and (
            isinstance(value.get("messageID"), str)):
        return "part"
    if isinstance(value.get("worktree"), str) and isinstance(value.get("time"), dict):
        return "project"
    return None


def read_session(path: Path, value: dict[str, Any], ledger: Ledger) -> Session:
    """The session of a session file (`value`, its content), with the messages and parts in the
    folders beside it; their fates go to `ledger`."""
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
    own = f"session {session_id}"
    ledger.read(own)
    messages = []
    for file in files:
        where = f"message {file.stem}"
        ledger.read(where)
        info = _read_json(file)
        part_files = [] if info is not None and isinstance(info.get("parts"), list) else \
            sorted(part_dir(file.stem).glob("*.json"))
        if info is None:
            ledger.left_out(where, "unreadable message file")
            for part_file in part_files:
                ledger.read(f"part {part_file.stem}")
                ledger.left_out(f"part {part_file.stem}", "part of an unreadable message")
            continue
        parts: list[Part] = []
        if isinstance(info.get("parts"), list):  # the oldest releases kept the parts inside
            for number, part in enumerate(info["parts"]):
                ledger.read(f"{where} parts[{number}]")
                shaped = _v1_part(part)
                if shaped is None:
                    ledger.left_out(f"{where} parts[{number}]", "unreadable part")
                else:
                    parts.append(Part(f"{where} parts[{number}]", shaped))
            info = {**info, **as_dict(info.get("metadata"))}
        for part_file in part_files:
            ledger.read(f"part {part_file.stem}")
            part_value = _read_json(part_file)
            if part_value is None:
                ledger.left_out(f"part {part_file.stem}", "unreadable part file")
            else:
                parts.append(Part(f"part {part_file.stem}", part_value))
        messages.append(Message(file.stem, where, info, parts))
    return Session(session_id, own, value.get("title"), value.get("directory"),
                   as_dict(value.get("time")).get("created"), messages, ledger)


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


def _v1_part(part: Any) -> dict[str, Any] | None:
    """A part of the oldest messages (an AI SDK UI part) in today's shape (MessageV2.fromV1)."""
    if not isinstance(part, dict):
        return None
    call = as_dict(part.get("toolInvocation"))
    if part.get("type") == "tool-invocation":
        done = call.get("state") == "result"
        return {"type": "tool", "tool": call.get("toolName"), "state": {
            "status": "completed" if done else "running", "input": call.get("args"),
            "output": call.get("result")}}
    if part.get("type") == "file":
        return {**part, "mime": part.get("mediaType")}
    return part
