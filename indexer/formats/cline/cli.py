"""Cline CLI sessions: `~/.cline/data/sessions/<id>/<id>.messages.json`, one session per folder,
read into the parts of a session record (__init__.py builds the record).

The CLI's `messages.json` (cline/cline sdk/packages/core/docs/messages-contract-v1.md) holds the
extension's message blocks (content.py reads them) in `{version, sessionId, agent,
messages}`. Choices:

- Each message keeps its own `id` and `ts`. The folder and title come from the session's
  manifest (`<id>.json`: `cwd` or `workspace_root`, `metadata.title`), else from the first prompt
  and the environment details; the start is the manifest's `started_at`, else the first message
  with a time, else the file's `updated_at`, else the file's time.
- The manifest, the compaction state and a sub-agent's messages are recognized and have nothing
  to import: the lead session holds the sub-agent's task and its result.
- Each message is a record of the ledger (`messages[N]`); a user-role message the SDK inserted
  on its own (`metadata.kind`: a completion reminder, a recovery notice, ...) is left out as
  injected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.formats.cline.content import (
    INJECTED,
    Renderer,
    epoch_ms,
    first_text,
    modified_time,
    read_json,
)
from indexer.formats.common import ImportOptions, NothingToImport, label
from indexer.formats.ledger import Ledger
from models import parse_time

__all__ = ["CliSession", "default_roots", "is_messages_file", "is_session", "metadata",
           "read_session"]

# user-role messages the SDK inserts itself (`metadata.kind`), which hold none of the user's words
# (cline/cline sdk/packages/core/src/session/user-run-messages.ts SYNTHETIC_USER_MESSAGE_KINDS,
# commit 21cb8d2525bc); a `compaction` message keeps the user's folded turns and is read
_SYNTHETIC = {"auto_compaction", "compaction_budget_emergency", "completion_reminder",
              "loop_detection_notice", "manual_compaction", "mistake_stop_notice",
              "recovery_notice"}


@dataclass
class CliSession:
    """What a Cline CLI session holds, before it becomes a session record."""

    session_id: str
    cwd: str | None
    started: str | None
    title: str | None
    messages: list[dict[str, Any]]


def default_roots(home: Path, env: dict[str, str]) -> list[Path]:
    """The CLI's tasks (task folders as the extension writes them) and its sessions
    (CLINE_DATA_DIR, CLINE_DIR, CLINE_SESSION_DATA_DIR)."""
    cline_dir = Path(env["CLINE_DIR"]).expanduser() if env.get("CLINE_DIR") else home / ".cline"
    data = Path(env["CLINE_DATA_DIR"]).expanduser() if env.get("CLINE_DATA_DIR") \
        else cline_dir / "data"
    sessions = Path(env["CLINE_SESSION_DATA_DIR"]).expanduser() \
        if env.get("CLINE_SESSION_DATA_DIR") else data / "sessions"
    return [data / "tasks", sessions]


def is_messages_file(path: Path) -> bool:
    """A session's own messages, `<id>/<id>.messages.json` (not a sub-agent's)."""
    return path.name == f"{path.parent.name}.messages.json"


def is_session(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("sessionId"), str)
            and isinstance(value.get("messages"), list) and isinstance(value.get("version"), int)
            and ("agent" in value or "updated_at" in value))


def metadata(value: Any, path: Path) -> str | None:
    """What a file beside a session's messages is, by its name and shape; None for anything
    else."""
    name = path.name
    if (name.endswith(".compaction.json") and isinstance(value, dict)
            and "source_message_count" in value):
        return "a CLI session's compacted context (.compaction.json)"
    if (name == f"{path.parent.name}.json" and isinstance(value, dict)
            and isinstance(value.get("session_id"), str) and "started_at" in value):
        return "a CLI session's manifest"
    return None


def read_session(path: Path, value: dict[str, Any], options: ImportOptions,
                 ledger: Ledger) -> CliSession:
    """The session of a messages file; each message is a record of `ledger` (`messages[N]`)."""
    messages = value["messages"]
    if value.get("agent") not in (None, "lead"):
        for index in range(len(messages)):
            ledger.left_out(f"messages[{index}]", "a sub-agent's message")
        raise NothingToImport(f"a {label(value.get('agent'))}'s messages: the lead session holds "
                              "its task and its result")
    raw_id = value["sessionId"]
    manifest = _dict(read_json(path.parent / f"{raw_id}.json"))
    meta = _dict(manifest.get("metadata"))
    renderer = Renderer(options, ledger)
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        kind = _dict(_dict(message).get("metadata")).get("kind")
        if isinstance(kind, str) and kind in _SYNTHETIC:
            ledger.left_out(where, INJECTED)
            continue
        own = _dict(message).get("id")
        renderer.add(where, own if isinstance(own, str) and own else f"m{index}", message,
                     parse_time(epoch_ms(_dict(message).get("ts"))))
    cwd = first_text(manifest, "cwd", "workspace_root") or renderer.cwd
    first = next((m["time"] for m in renderer.out if "time" in m), None)
    start = (parse_time(manifest.get("started_at")) or first
             or parse_time(value.get("updated_at")) or modified_time(path))
    return CliSession(raw_id, cwd, start, first_text(meta, "title"), renderer.out)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
