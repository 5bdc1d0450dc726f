"""Kiro IDE's chats, kept by its agent extension in the editor's global storage,
`<config>/Kiro/User/globalStorage/kiro.kiroagent/`. Kiro IDE is closed source; the layout is
the one kenn-io/agentsview reads (internal/parser/kiro_ide.go and kiro_ide_provider.go @
538600744d1b87614d3746d36a0966c1f2ac1cad, MIT):

- older chats: `<workspace hash>/<file hash>.chat`, one JSON document `{executionId, actionId,
  chat: [{role: human|bot|tool, content}], metadata: {modelId, workflow, workflowId, startTime,
  endTime}}` (times in epoch milliseconds). The workspace hash is the first 32 hex digits of the
  SHA-256 of the workspace's folder; the folder is found through the `sessions.json` files of
  `workspace-sessions/`. The IDE puts its system prompt and steering rules in `human` messages
  ("# System Prompt", "<identity>", "## Included Rules", ...) and the model acknowledges them
  ("I will follow these instructions."): both are left out and counted. A prompt may be wrapped
  in `<kiro-ide-message>`, which is taken off.
- newer sessions: `workspace-sessions/<base64 of the folder>/<session id>.json`, `{sessionId,
  title, workspaceDirectory, history: [{message: {role, content, id}, promptLogs: [{completion}],
  executionId}]}` (Continue's session shape: Kiro's agent is a fork of it), with `sessions.json`
  beside them listing `{sessionId, title, dateCreated, workspaceDirectory}`. An assistant turn
  often says only "On it."; what the agent did is in its execution log,
  `<workspace hash>/414d1636299d2b9e4ce7e17fb11f63e9/<file>` = `{executionId, actions: [{actionId,
  actionType, input: {file, originalContent, modifiedContent}, output: {message}}]}`: `say`
  actions are its text, `replace`, `create` and `readCode` its edits and reads (tool calls, cut to
  tool_chars). Without a log the turn's own content is kept, else its prompt logs' completions.
  `tool` turns are consumed by the assistant's actions, as agentsview does: left out, counted.

The newest engine's `~/.kiro/sessions/<workspace>/<id>/` folders are not read: no public reader's
code confirms their fields. Kiro IDE has no command that reopens a chat by id.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    clip,
    folder_name,
    label,
    origin,
    safe_session_id,
    tool_call_text,
    tool_result_text,
)
from indexer.formats.ledger import Ledger
from models import InvalidSession, parse_time

__all__ = ["AGENT", "ID_PREFIX", "STORE", "is_candidate", "looks_like_chat",
           "looks_like_session", "parse_chat", "parse_session"]

AGENT = "kiro-ide"
ID_PREFIX = "kiro-ide"
CHANNEL = "kiro"
STORE = "kiro.kiroagent"  # the agent extension's folder under globalStorage
SESSIONS = "workspace-sessions"
INDEX_NAME = "sessions.json"
EXECUTIONS = "414d1636299d2b9e4ce7e17fb11f63e9"  # the execution logs' folder in a workspace's
TITLE_CHARS = 80
MAX_LOG_BYTES = 20_000_000  # an execution log larger than this is not read
# folders of kiro.kiroagent that hold no chat (agentsview's isKiroIDESourcePath)
_NOT_CHATS = {"default", "dev_data", "index", SESSIONS}
_SYSTEM = ("# System Prompt", "# Identity", "<identity>", "## Included Rules",
           "You are operating in a workspace")
_ACKNOWLEDGED = "I will follow these instructions."
_WRAPPER = re.compile(r"^<kiro-ide-message>(.*?)</kiro-ide-message>$", re.DOTALL)
_ACTIONS = {"replace": "Edit", "create": "Write", "readCode": "readCode"}
_HEAD_BYTES = 4096
_EXECUTION_ID = re.compile(r'"executionId"\s*:\s*"([^"\\]+)"')


def is_candidate(path: Path) -> bool:
    """A chat file, or a session file of workspace-sessions (not its sessions.json)."""
    if path.suffix == ".chat":
        return path.parent.name not in _NOT_CHATS and not path.parent.name.startswith(".")
    return (path.suffix == ".json" and path.parent.parent.name == SESSIONS
            and path.name != INDEX_NAME)


def looks_like_chat(value: Any) -> bool:
    """A `.chat` file: its execution id, its chat list and the metadata holding its model."""
    return (isinstance(value, dict) and isinstance(value.get("chat"), list)
            and isinstance(value.get("executionId"), str) and isinstance(value.get("metadata"), dict)
            and "actionId" in value)


def looks_like_session(value: Any, path: Path) -> bool:
    """A workspace-sessions file: Continue's session shape, told from Continue's by the
    execution ids on its turns or by the folder Kiro keeps it in."""
    if not (isinstance(value, dict) and isinstance(value.get("sessionId"), str)
            and isinstance(value.get("history"), list) and "workspaceDirectory" in value):
        return False
    return path.parent.parent.name == SESSIONS or any(
        isinstance(item, dict) and isinstance(item.get("executionId"), str)
        for item in value["history"])


def parse_chat(path: Path, value: Any, options: ImportOptions,
               ledger: Ledger) -> list[Transcript]:
    if not looks_like_chat(value):
        raise InvalidSession("not a Kiro IDE chat: no executionId, actionId, chat and metadata")
    meta = value["metadata"]
    messages = []
    for n, item in enumerate(value["chat"]):
        where = f"chat[{n}]"
        ledger.read(where)
        message = _chat_message(item, n, options, ledger, where)
        if message:
            ledger.imported(where)
            messages.append(message)
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    workspace = path.parent.name
    raw_id = f"{workspace}-{path.stem}"
    cwd = _workspace_folder(path.parent.parent, workspace)
    record = _record(raw_id, cwd, path, messages)
    _title(record, None)
    started = parse_time(_millis(meta.get("startTime"))) or _modified(path)
    if started:
        record["date"] = started[:10]
    return [Transcript.build(record, ledger)]


def parse_session(path: Path, value: Any, options: ImportOptions,
                  ledger: Ledger) -> list[Transcript]:
    if not looks_like_session(value, path):
        raise InvalidSession("not a Kiro IDE session: no sessionId, workspaceDirectory and "
                             "history of turns with execution ids")
    cwd = value["workspaceDirectory"] if isinstance(value["workspaceDirectory"], str) else None
    wanted = {item["executionId"] for item in value["history"]
              if isinstance(item, dict) and isinstance(item.get("executionId"), str)}
    logs = _execution_logs(path, cwd, wanted)
    messages = []
    for n, item in enumerate(value["history"]):
        where = f"history[{n}]"
        ledger.read(where)
        message = _history_message(item, n, logs, options, ledger, where)
        if message:
            ledger.imported(where)
            messages.append(message)
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    raw_id = value["sessionId"]
    record = _record(raw_id, cwd, path, messages)
    _title(record, value.get("title"))
    listed = _listed(path.parent, raw_id)
    started = parse_time(_millis(listed.get("dateCreated"))) or _modified(path)
    if started:
        record["date"] = started[:10]
    return [Transcript.build(record, ledger)]


def _chat_message(item: Any, n: int, options: ImportOptions, ledger: Ledger,
                  where: str) -> dict[str, Any] | None:
    if not isinstance(item, dict):
        ledger.left_out(where, "chat entry that is not an object")
        return None
    role, text = item.get("role"), _text(item.get("content"), ledger)
    if role == "human":
        if text.startswith(_SYSTEM):
            ledger.left_out(where, "system prompt or steering rules the IDE added")
            return None
        found = _WRAPPER.match(text)
        text = found.group(1).strip() if found else text
        return _message(f"c{n}", "user", text, ledger, where)
    if role == "bot":
        if text == _ACKNOWLEDGED:
            ledger.left_out(where, "acknowledgement of the IDE's instructions")
            return None
        return _message(f"c{n}", "assistant", text, ledger, where)
    if role == "tool":
        shown = tool_result_text(None, text, False, options.tool_chars) if text else ""
        return _message(f"c{n}", "tool", shown, ledger, where)
    ledger.left_out(where, f"unknown chat role {label(role)}")
    return None


def _history_message(item: Any, n: int, logs: dict[str, list[Any]], options: ImportOptions,
                     ledger: Ledger, where: str) -> dict[str, Any] | None:
    message = item.get("message") if isinstance(item, dict) else None
    if not isinstance(item, dict) or not isinstance(message, dict):
        ledger.left_out(where, "history item without message")
        return None
    role, own = message.get("role"), message.get("id")
    message_id = own if isinstance(own, str) and own.strip() else f"h{n}"
    if role == "user":
        return _message(message_id, "user", _text(message.get("content"), ledger), ledger, where)
    if role == "tool":
        ledger.left_out(where, "tool turn (its action is in the execution log)")
        return None
    if role != "assistant":
        ledger.left_out(where, f"unknown message role {label(role)}")
        return None
    execution = item.get("executionId")
    actions = logs.get(execution) if isinstance(execution, str) else None
    text = _actions_text(actions, options, ledger) if actions is not None else ""
    if not text:
        text = _text(message.get("content"), ledger)
    if not text:
        completions = [p.get("completion") for p in item.get("promptLogs") or []
                       if isinstance(p, dict)]
        text = "\n\n".join(c.strip() for c in completions if isinstance(c, str) and c.strip())
    return _message(message_id, "assistant", text, ledger, where)


def _actions_text(actions: list[Any], options: ImportOptions, ledger: Ledger) -> str:
    """An execution log's actions: what the agent said, and its edits and reads as tool calls."""
    lines = []
    for action in actions:
        kind = action.get("actionType") if isinstance(action, dict) else None
        given = action.get("input") if isinstance(action, dict) else None
        given = given if isinstance(given, dict) else {}
        output = action.get("output") if isinstance(action, dict) else None
        said = output.get("message") if isinstance(output, dict) else None
        if kind == "say" and isinstance(said, str) and said.strip():
            lines.append(said.strip())
        elif kind in _ACTIONS and isinstance(given.get("file"), str) and given["file"]:
            shown = {"file": given["file"]}
            if kind != "readCode" and isinstance(given.get("modifiedContent"), str):
                shown["content"] = given["modifiedContent"]
            lines.append(tool_call_text(_ACTIONS[kind], shown, options.tool_chars))
        else:
            ledger.part_left_out(f"{label(kind)} action")
    return "\n".join(lines)


def _message(message_id: str, role: str, text: str, ledger: Ledger,
             where: str) -> dict[str, Any] | None:
    if not text.strip():
        ledger.left_out(where, "message left empty")
        return None
    return {"id": message_id, "role": role, "content": text.strip()}


def _text(content: Any, ledger: Ledger) -> str:
    """A string, or a list of blocks: text kept, an image as a marker, others counted."""
    if isinstance(content, str):
        return content.strip()
    parts = []
    for block in content if isinstance(content, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"].strip())
        elif kind in ("image", "image_url"):
            parts.append("[image]")
        else:
            ledger.part_left_out(f"{label(kind)} block")
    return "\n".join(p for p in parts if p)


def _record(raw_id: str, cwd: str | None, path: Path,
            messages: list[dict[str, Any]]) -> dict[str, Any]:
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": messages, "origin": origin(AGENT, raw_id, cwd, path)}
    if folder_name(cwd):
        record["topics"] = [folder_name(cwd)]
    return record


def _title(record: dict[str, Any], given: Any) -> None:
    title = given.strip() if isinstance(given, str) else ""
    if not title:
        first = next((m["content"] for m in record["messages"] if m["role"] == "user"), "")
        title = first.split("\n", 1)[0]
    if title:
        record["title"] = clip(title, TITLE_CHARS)


def _millis(value: Any) -> Any:
    """Epoch milliseconds, as a number or a string of digits, as a number."""
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _modified(path: Path) -> str | None:
    try:
        return parse_time(path.stat().st_mtime)
    except OSError:
        return None


def workspace_hash(folder: str) -> str:
    return hashlib.sha256(folder.encode("utf-8")).hexdigest()[:32]


def _index(folder: Path) -> list[dict[str, Any]]:
    """A workspace-sessions folder's sessions.json entries; empty when missing or unreadable."""
    try:
        value = json.loads((folder / INDEX_NAME).read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []


def _listed(folder: Path, session_id: str) -> dict[str, Any]:
    return next((e for e in _index(folder) if e.get("sessionId") == session_id), {})


def _workspace_folder(store: Path, workspace: str) -> str | None:
    """The folder whose hash names a chat's workspace, from the sessions.json files (or, for a
    folder named by its base64, the name itself)."""
    try:
        folders = sorted(p for p in (store / SESSIONS).iterdir() if p.is_dir())
    except OSError:
        return None
    for folder in folders:
        named = [e.get("workspaceDirectory") for e in _index(folder)]
        with contextlib.suppress(ValueError):  # not base64, or not UTF-8
            named.append(base64.b64decode(folder.name, validate=True).decode("utf-8"))
        found = next((f for f in named if isinstance(f, str) and f
                      and workspace_hash(f) == workspace), None)
        if found:
            return found
    return None


def _execution_logs(path: Path, cwd: str | None, wanted: set[str]) -> dict[str, list[Any]]:
    """The actions of the execution logs the session names, by execution id. A log is found by
    the id near its start (agentsview reads the first KiB), so only those are parsed whole."""
    if not cwd or not wanted:
        return {}
    folder = path.parent.parent.parent / workspace_hash(cwd) / EXECUTIONS
    try:
        files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    except OSError:
        return {}
    logs: dict[str, list[Any]] = {}
    for file in files:
        try:
            with file.open("rb") as handle:
                head = handle.read(_HEAD_BYTES).decode("utf-8", "replace")
            found = _EXECUTION_ID.search(head)
            if not found or found.group(1) not in wanted or file.stat().st_size > MAX_LOG_BYTES:
                continue
            value = json.loads(file.read_text("utf-8"))
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(value, dict) and value.get("executionId") in wanted \
                and isinstance(value.get("actions"), list):
            logs[value["executionId"]] = value["actions"]
    return logs
