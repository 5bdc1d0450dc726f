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
- Kimi Code (MoonshotAI/kimi-code), its successor, keeps a journal per agent,
  `~/.kimi-code/sessions/<workdir bucket>/<session id>/agents/<agent id>/wire.jsonl`
  (`KIMI_CODE_HOME`), read by journal.py into the same messages: the `main` agent's journal is
  the session, `kimi-session_<uuid>` (Kimi Code's id, as `kimi -r` takes it); the title is the
  session's `state.json` `title`, the folder the one its config records name; the other agents'
  journals are sub-agents', with nothing to import.
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
from indexer.formats.kimi.journal import JournalReader, is_journal_record
from indexer.formats.kimi.wire import HEADER, Reader, is_record
from indexer.formats.ledger import Ledger

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "parse"]

NAME = "kimi"
CHANNEL = "kimi"
ID_PREFIX = "kimi"
TITLE_CHARS = 80
WIRE = "wire.jsonl"
MAIN_AGENT = "main"  # the Kimi Code agent whose journal is the session's
_CONTEXT_ROLES = {"_system_prompt", "_checkpoint", "_usage"}  # context.jsonl's own records


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """Kimi CLI's sessions, then Kimi Code's."""
    share = Path(env["KIMI_SHARE_DIR"]).expanduser() if env.get("KIMI_SHARE_DIR") \
        else home / ".kimi"
    code = Path(env["KIMI_CODE_HOME"]).expanduser() if env.get("KIMI_CODE_HOME") \
        else home / ".kimi-code"
    return [share / "sessions", code / "sessions"]


def is_candidate(path: Path) -> bool:
    """A session's wire log, not a sub-agent's."""
    return path.name == WIRE and not _sub_agent(path)


def looks_like_header(item: Any) -> bool:
    """The first line of a wire log: `{"type": "metadata", "protocol_version": "1.10"}`."""
    return (isinstance(item, dict) and item.get("type") == HEADER
            and isinstance(item.get("protocol_version"), str)
            and set(item) <= {"type", "protocol_version", "created_at"})


def looks_like(item: Any) -> bool:
    """A wire record, a Kimi Code journal record of the conversation, or a record only Kimi's
    context file holds (`_checkpoint`, `_usage`)."""
    return is_record(item) or is_journal_record(item) or (
        isinstance(item, dict) and item.get("role") in _CONTEXT_ROLES)


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    items = read_transcript_lines(text, ledger)
    _nothing_unless_a_session(path, items, ledger)
    journal = _kimi_code(path, items)
    reader = JournalReader(options, ledger) if journal else Reader(options, ledger)
    for number, item in items:
        reader.add(number, item)
    reader.finish_reply()
    if not reader.recognized:
        raise NothingToImport(f"no Kimi CLI wire records ({ledger.describe()})")
    if not any(m["role"] == "user" for m in reader.messages):
        raise NothingToImport(f"no prompt in this Kimi session ({ledger.describe()})")
    if isinstance(reader, JournalReader):
        raw_id, cwd = path.parent.parent.parent.name, reader.cwd
        title = _json_text(path.parent.parent.parent / "state.json", "title")
    else:
        raw_id, cwd = path.parent.name, _working_folder(path)
        title = _json_text(path.parent / "state.json", "custom_title")
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": reader.messages,
                              "origin": origin(NAME, raw_id, cwd, path)}
    title = title or reader.title(TITLE_CHARS)
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
              "it" if isinstance(first, dict) and "role" in first else None)
    if reason is None:
        return
    for number, _ in items:
        ledger.left_out(f"line {number}", reason.split(":")[0])
    raise NothingToImport(reason)


def _sub_agent(path: Path) -> bool:
    """A sub-agent's log: Kimi CLI's `subagents/<id>/`, Kimi Code's `agents/<id>/` but main."""
    return path.parent.parent.name == "subagents" or (
        path.parent.parent.name == "agents" and path.parent.name != MAIN_AGENT)


def _kimi_code(path: Path, items: list[tuple[int, Any]]) -> bool:
    """A Kimi Code journal: in its agent folder, or holding its records."""
    return path.parent.parent.name == "agents" or any(
        is_journal_record(item) for _, item in items[:30])


def _json_text(path: Path, key: str) -> str | None:
    """A title kept in a JSON file beside the log (`custom_title`, set with /title, or Kimi
    Code's `title`)."""
    value = _json(path)
    title = value.get(key) if isinstance(value, dict) else None
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


def _kimi_code_state(value: Any) -> bool:
    """Kimi Code's `state.json` of a session: its title, times and agents."""
    return (isinstance(value, dict) and isinstance(value.get("agents"), dict)
            and "createdAt" in value and ("title" in value or "lastPrompt" in value))


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES,),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("KIMI_SHARE_DIR", "KIMI_CODE_HOME"),
    resume=Resume("kimi -r {id}", "Kimi CLI finds a session by its working folder: run it in cwd"),
    sniff_line=looks_like, sniff_header=looks_like_header, read_lines=parse,
    metadata=(Metadata("kimi-state", "Kimi CLI session state (state.json)", _session_state),
              Metadata("kimi-work-dirs", "Kimi CLI work directories (kimi.json)", _work_dirs),
              Metadata("kimi-sub-agent", "Kimi CLI sub-agent record (meta.json)",
                       _sub_agent_record),
              Metadata("kimi-code-state", "Kimi Code session state (state.json)",
                       _kimi_code_state)))
