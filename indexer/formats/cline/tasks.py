"""Cline, Roo Code and Kilo Code tasks: `<editor>/User/globalStorage/<extension>/tasks/<taskId>/
api_conversation_history.json`, one task per folder, read into the parts of a session record
(__init__.py builds the record).

The history is the list of messages the extension sends to the model (content.py reads
them), rewritten whole on every change (cline/cline src/core/storage/disk.ts `GlobalFileNames`;
Roo-Code src/core/task-persistence/apiMessages.ts). Choices:

- Times: each message's own `ts` (recent releases), else the first `ui_messages.json` entry
  recorded at or after it (`conversationHistoryIndex`), else the task's start (its id when that
  is a ms time or a UUIDv7, else the file's time) on the first message only.
- The title and folder come from the extension's task list (`history_item.json` of Roo and Kilo,
  Cline's `state/taskHistory.json`, Kilo's `task_history.json`, Roo's `tasks/_index.json`), else
  from the first prompt and the `# Current Working Directory (...)` of the environment details.
  The origin's agent is cline, roo-code or kilo-code by the extension's folder.
- The task folder's other files (ui_messages.json, task_metadata.json, context_history.json, ...)
  and the task lists are recognized and have nothing to import.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from indexer.formats.cline.content import (
    Renderer,
    epoch_ms,
    first_text,
    modified_time,
    read_json,
)
from indexer.formats.common import ImportOptions
from indexer.formats.editors import user_dirs
from indexer.formats.ledger import Ledger
from models import parse_time

__all__ = ["EXTENSIONS", "HISTORY_FILES", "Task", "default_roots", "is_history",
           "is_history_file", "metadata", "read_task"]

HISTORY_FILES = ("api_conversation_history.json", "claude_messages.json")  # the second: 2024
# the VS Code extension folders (ids as VS Code lowercases them) and the agent each one is
EXTENSIONS = {"saoudrizwan.claude-dev": "cline", "rooveterinaryinc.roo-cline": "roo-code",
              "kilocode.kilo-code": "kilo-code"}
_EDITORS = ("Code", "Code - Insiders", "Code - OSS", "VSCodium", "Cursor", "Windsurf")
_SERVERS = (".vscode-server", ".vscode-server-insiders", ".cursor-server", ".windsurf-server")
_UUID7 = re.compile(r"([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-", re.IGNORECASE)


@dataclasses.dataclass
class Task:
    """What a task folder holds, before it becomes a session record."""

    task_id: str
    agent: str
    cwd: str | None
    started: str | None
    title: str | None
    latest_ms: int | None  # the newest time the task's files record: its last activity
    messages: list[dict[str, Any]]


def default_roots(home: Path, env: dict[str, str]) -> list[Path]:
    """The tasks folder of each extension in each editor's user data on Linux, macOS and Windows
    (VSCODE_APPDATA replaces the three, VSCODE_PORTABLE adds a portable install) and in the
    remote servers' data."""
    users = user_dirs(home, env, _EDITORS)
    users += [home / server / "data" / "User" for server in _SERVERS]
    return [user / "globalStorage" / ext / "tasks" for user in users for ext in EXTENSIONS]


def is_history_file(path: Path) -> bool:
    """`tasks/<taskId>/api_conversation_history.json` (or 2024's `claude_messages.json`)."""
    return path.name in HISTORY_FILES and path.parent.parent.name == "tasks"


def is_history(value: Any) -> bool:
    return isinstance(value, list) and any(
        isinstance(m, dict) and m.get("role") in ("user", "assistant") and "content" in m
        for m in value[:20])


def metadata(value: Any, path: Path) -> str | None:
    """What a file beside the tasks is, by its name and shape; None for anything else."""
    name = path.name
    if name == "ui_messages.json" and _all(value, lambda m: "ts" in m and "type" in m):
        return "a task's interface messages (ui_messages.json)"
    if name == "task_metadata.json" and isinstance(value, dict) and {
            "files_in_context", "model_usage", "environment_history"} & value.keys():
        return "a task's file and model record (task_metadata.json)"
    if name == "context_history.json" and isinstance(value, list):
        return "a task's context edits (context_history.json)"
    if name in ("taskHistory.json", "task_history.json") and _all(value, _history_entry):
        return f"the extension's task list ({name})"
    if name == "history_item.json" and _history_entry(value):
        return "a task's history entry (history_item.json)"
    if name == "_index.json" and isinstance(value, dict) and isinstance(value.get("entries"), list):
        return "the extension's task list index (tasks/_index.json)"
    if name == "settings.json" and path.parent.parent.name == "tasks" and isinstance(value, dict):
        return "a task's settings (settings.json)"
    return None


def read_task(path: Path, history: list[Any], options: ImportOptions, ledger: Ledger) -> Task:
    """The task of a history file; each stored message is a record of `ledger` (`messages[N]`),
    its id `m<N>` (stored messages have none of their own)."""
    task_id = path.parent.name
    info = _task_info(path, task_id)
    ui = None if all(isinstance(m, dict) and epoch_ms(m.get("ts")) for m in history) \
        else _ui_times(path)
    renderer = Renderer(options, ledger)
    stamps = [t for t in (ui.first if ui else None, _id_time(task_id)) if t]
    for index, message in enumerate(history):
        stamp = None if not isinstance(message, dict) \
            else epoch_ms(message.get("ts")) or (ui.at(index) if ui else None)
        stamps += [stamp] if stamp else []
        renderer.add(f"messages[{index}]", f"m{index}", message, parse_time(stamp))
    start = parse_time(min(stamps)) if stamps else modified_time(path)
    if renderer.out and "time" not in renderer.out[0] and start:
        renderer.out[0]["time"] = start  # the task's start; later messages without one get none
    cwd = first_text(info, "cwdOnTaskInitialization", "workspace") or renderer.cwd
    latest = [t for t in (ui.last if ui else None, epoch_ms(info.get("ts")), *stamps) if t]
    return Task(task_id, _agent(path), cwd, start, first_text(info, "task"),
                max(latest) if latest else None, renderer.out)


def _history_entry(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("id"), str) and "ts" in value
            and "task" in value)


def _all(value: Any, test: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, dict) and test(v) for v in value)


# what is beside a task -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class _UiTimes:
    """When the interface recorded something (ms), by the history's last index at that moment."""

    indexes: list[int]  # conversationHistoryIndex values, sorted
    times: list[int]  # the earliest time recorded at each
    first: int | None
    last: int | None

    def at(self, index: int) -> int | None:
        """A message's time: the first record made once the history reached it (records made
        while message k was the last carry k; the one that asks for message k carries k-1)."""
        position = bisect.bisect_left(self.indexes, index - 1)
        return self.times[position] if position < len(self.times) else None


def _ui_times(path: Path) -> _UiTimes | None:
    value = read_json(path.parent / "ui_messages.json")
    if not isinstance(value, list):
        return None
    earliest: dict[int, int] = {}
    stamps = []
    for item in value:
        stamp = epoch_ms(item.get("ts")) if isinstance(item, dict) else None
        if not stamp:
            continue
        stamps.append(stamp)
        index = item.get("conversationHistoryIndex")
        if isinstance(index, int) and not isinstance(index, bool):
            earliest[index] = min(stamp, earliest.get(index, stamp))
    indexes = sorted(earliest)
    return _UiTimes(indexes, [earliest[i] for i in indexes], min(stamps, default=None),
                    max(stamps, default=None))


def _task_info(path: Path, task_id: str) -> dict[str, Any]:
    """The extension's history entry for the task (its prompt, folder and last activity)."""
    folder = path.parent
    item = read_json(folder / "history_item.json")
    if _history_entry(item) and item["id"] == task_id:
        return dict(item)
    storage = folder.parent.parent
    for listing in (storage / "state" / "taskHistory.json", storage / "task_history.json",
                    folder.parent / "_index.json"):
        try:
            st = listing.stat()
        except OSError:
            continue
        entries = _task_list(str(listing), st.st_mtime_ns, st.st_size)
        if task_id in entries:
            return entries[task_id]
    return {}


@lru_cache(maxsize=4)
def _task_list(path: str, mtime_ns: int, size: int) -> dict[str, dict[str, Any]]:
    """A task list read once for all its tasks (it is rewritten whole; mtime and size key it)."""
    value = read_json(Path(path))
    if isinstance(value, dict):  # Roo's _index.json
        value = value.get("entries")
    if not isinstance(value, list):
        return {}
    return {item["id"]: item for item in value if _history_entry(item)}


def _agent(path: Path) -> str:
    """cline, roo-code or kilo-code by the extension's folder; cline when it cannot be told."""
    return next((EXTENSIONS[p.lower()] for p in path.parts if p.lower() in EXTENSIONS), "cline")


def _id_time(task_id: str) -> int | None:
    """When a task began (ms), from its id: Cline's are ms times, Roo's and Kilo's UUIDv7."""
    if task_id.isdigit() and len(task_id) == 13:
        return int(task_id)
    match = _UUID7.match(task_id)
    return int(match.group(1) + match.group(2), 16) if match else None
