"""Kimi CLI (MoonshotAI/kimi-cli): one session a folder,
`~/.kimi/sessions/<md5 of the working folder>/<session id>/`, the share folder moved by
`KIMI_SHARE_DIR` (src/kimi_cli/share.py, metadata.py and session.py @
4a550effdfcb29a25a5d325bf935296cc50cd417).

The folder holds `wire.jsonl`, the log of everything the interface showed (what wire.py
reads), `context.jsonl`, the model's context (rewritten by /clear and compaction, rotated to
`context_1.jsonl`), `state.json` (the custom title, approvals) and `subagents/<id>/`, each
sub-agent's own wire and context. Choices:

- The session is read from `wire.jsonl` alone: it keeps every turn, with its times, after the
  context was compacted or cleared. A context file, a sub-agent's wire log and the metadata
  files have nothing to import (the parent's Agent tool call and its result hold a sub-agent's
  task and report).
- The session id is `kimi-<folder name>` (Kimi's own id: `kimi -r <id>`). The title is
  `state.json`'s `custom_title` (/title), else the first prompt's first line; the working
  folder comes from `kimi.json`'s `work_dirs` (the folder's md5 names the session's parent), and
  its last part is the topic.
- Each step of the model is one assistant message (its text and tool calls, compact); each tool
  result a `tool` message; thinking only with `--thinking`; the interface's events (steps,
  status, approvals, sub-agents' events) are left out and counted; an unknown type is counted,
  never fatal.
- Kimi Code (MoonshotAI/kimi-code, `~/.kimi-code/sessions/...`) writes another log shape
  (`turn.prompt`, `context.append_loop_event`); it is recognized and not read.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    folder_name,
    origin,
    read_transcript_lines,
    safe_session_id,
)
from indexer.formats.contract import Format, Metadata, Resume, Storage
from indexer.formats.kimi.wire import HEADER, Reader, is_record
from indexer.formats.ledger import Ledger

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "parse"]

NAME = "kimi"
CHANNEL = "kimi"
ID_PREFIX = "kimi"
TITLE_CHARS = 80
WIRE = "wire.jsonl"
_CONTEXT_ROLES = {"_system_prompt", "_checkpoint", "_usage"}  # context.jsonl's own records


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    share = Path(env["KIMI_SHARE_DIR"]).expanduser() if env.get("KIMI_SHARE_DIR") \
        else home / ".kimi"
    return [share / "sessions"]


def is_candidate(path: Path) -> bool:
    """A session's wire log, not a sub-agent's."""
    return path.name == WIRE and not _sub_agent(path)


def looks_like_header(item: Any) -> bool:
    """The first line of a wire log: `{"type": "metadata", "protocol_version": "1.10"}`."""
    return (isinstance(item, dict) and item.get("type") == HEADER
            and isinstance(item.get("protocol_version"), str)
            and set(item) <= {"type", "protocol_version", "created_at"})


def looks_like(item: Any) -> bool:
    """A wire record, or a record only Kimi's context file holds (`_checkpoint`, `_usage`)."""
    return is_record(item) or (isinstance(item, dict) and item.get("role") in _CONTEXT_ROLES)


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    items = read_transcript_lines(text, ledger)
    _nothing_unless_a_session(path, items, ledger)
    reader = Reader(options, ledger)
    for number, item in items:
        reader.add(number, item)
    reader.finish_reply()
    if not reader.recognized:
        raise NothingToImport(f"no Kimi CLI wire records ({ledger.describe()})")
    if not any(m["role"] == "user" for m in reader.messages):
        raise NothingToImport(f"no prompt in this Kimi CLI session ({ledger.describe()})")
    raw_id = path.parent.name
    cwd = _working_folder(path)
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": reader.messages,
                              "origin": origin(NAME, raw_id, cwd, path)}
    title = _custom_title(path) or reader.title(TITLE_CHARS)
    if title:
        record["title"] = title
    if folder_name(cwd):
        record["topics"] = [folder_name(cwd)]
    return [Transcript.build(record, ledger)]


def _nothing_unless_a_session(path: Path, items: list[tuple[int, Any]], ledger: Ledger) -> None:
    """A file of Kimi's that is not a session's wire log: said why, each line counted."""
    first = items[0][1]
    reason = ("a sub-agent's wire log: its parent's Agent tool call holds its task and report"
              if _sub_agent(path) else
              "Kimi's model context (context.jsonl): the session is read from wire.jsonl beside "
              "it" if isinstance(first, dict) and "role" in first else
              "a Kimi Code wire log (turn.prompt, context.append_loop_event): not read"
              if any(isinstance(i, dict) and "." in str(i.get("type", "")) for _, i in items[:5])
              else None)
    if reason is None:
        return
    for number, _ in items:
        ledger.left_out(f"line {number}", reason.split(":")[0])
    raise NothingToImport(reason)


def _sub_agent(path: Path) -> bool:
    return path.parent.parent.name == "subagents"


def _custom_title(path: Path) -> str | None:
    """The title set with /title, in `state.json` beside the log."""
    value = _json(path.parent / "state.json")
    title = value.get("custom_title") if isinstance(value, dict) else None
    return title.strip() if isinstance(title, str) and title.strip() else None


def _working_folder(path: Path) -> str | None:
    """The folder the session ran in: the work directory of `kimi.json` whose md5 names the
    session's parent folder (`<kaos>_<md5>` for a non-local one)."""
    share, bucket = path.parent.parent.parent.parent, path.parent.parent.name
    value = _json(share / "kimi.json")
    for entry in value.get("work_dirs", []) if isinstance(value, dict) else []:
        folder = entry.get("path") if isinstance(entry, dict) else None
        if isinstance(folder, str):
            digest = hashlib.md5(folder.encode("utf-8"), usedforsecurity=False).hexdigest()
            if bucket in (digest, f"{entry.get('kaos')}_{digest}"):
                return folder
    return None


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def _session_state(value: Any) -> bool:
    """`state.json` of a session folder (src/kimi_cli/session_state.py: SessionState)."""
    return isinstance(value, dict) and isinstance(value.get("approval"), dict) and (
        "custom_title" in value or "plan_mode" in value or "additional_dirs" in value)


def _work_dirs(value: Any) -> bool:
    """`kimi.json` in the share folder: the work directories Kimi has run in (metadata.py)."""
    return (isinstance(value, dict) and isinstance(value.get("work_dirs"), list)
            and all(isinstance(e, dict) and "path" in e for e in value["work_dirs"]))


def _sub_agent_record(value: Any) -> bool:
    """`subagents/<id>/meta.json`: a sub-agent's type and status (subagents/store.py)."""
    return (isinstance(value, dict) and isinstance(value.get("agent_id"), str)
            and isinstance(value.get("subagent_type"), str)
            and isinstance(value.get("launch_spec"), dict))


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES,),
    default_paths=default_paths, is_candidate=is_candidate, environment=("KIMI_SHARE_DIR",),
    resume=Resume("kimi -r {id}", "Kimi CLI finds a session by its working folder: run it in cwd"),
    sniff_line=looks_like, sniff_header=looks_like_header, read_lines=parse,
    metadata=(Metadata("kimi-state", "Kimi CLI session state (state.json)", _session_state),
              Metadata("kimi-work-dirs", "Kimi CLI work directories (kimi.json)", _work_dirs),
              Metadata("kimi-sub-agent", "Kimi CLI sub-agent record (meta.json)",
                       _sub_agent_record)))
