"""Kiro CLI's conversations in its database, `kiro-cli/data.sqlite3` under the user's data folder:
table `conversations_v2` (key: the folder the chat ran in, conversation_id, value: the
conversation's state as JSON, created_at, updated_at in epoch milliseconds), from
crates/chat-cli/src/database/sqlite_migrations/008_multiple_conversations_per_path.sql and
database/mod.rs (aws/amazon-q-developer-cli at 16d05aa5, release 1.28.3).

The value is a `ConversationState` (crates/chat-cli/src/cli/chat/conversation.rs) serialized by
serde: `history` is a list of `{user, assistant, request_metadata}` entries, each enum tagged by
its variant's name (cli/chat/message.rs):

- `user.content` is `{"Prompt": {prompt}}`, `{"ToolUseResults": {tool_use_results}}` or
  `{"CancelledToolUses": {prompt, tool_use_results}}`; a result is `{tool_use_id, content:
  [{"Text": s} | {"Json": v}], status: "Success" | "Error"}`; `user.timestamp` is RFC 3339 and
  `user.additional_context` is context the agent added to the prompt (left out, counted);
- `assistant` is `{"Response": {message_id, content}}` or `{"ToolUse": {message_id, content,
  tool_uses: [{id, name, args, ...}]}}`; its time is `request_metadata.stream_end_timestamp_ms`.

One session per row; each history entry is one record (its prompt or tool results, then the
answer). `latest_summary` ([summary, metadata], written by /compact) is the session's summary;
`transcript` (the screen's text) and `next_message` (not sent yet) are not read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from indexer.formats.common import ImportOptions, tool_call_text, tool_result_text
from indexer.formats.ledger import Ledger
from models import InvalidSession, parse_time

__all__ = ["TABLE", "TABLES", "Conversation", "read_conversations", "render_history"]

TABLE = "conversations_v2"
# the tables of Kiro CLI's own migrations, so that another program's `conversations_v2` is not
# taken for it
TABLES = frozenset({TABLE, "migrations", "state"})
ROW = "row"


@dataclass
class Conversation:
    """One row: where it ran, its id, its decoded state (None when unreadable) and its ledger."""

    key: Any
    conversation_id: str
    state: dict[str, Any] | None
    created: Any
    ledger: Ledger


def read_conversations(connection: sqlite3.Connection) -> Iterator[Conversation]:
    """The table's rows, oldest first; InvalidSession when it lacks the columns that hold them."""
    columns = {row[1] for row in connection.execute(f"PRAGMA table_info({TABLE})")}
    if not {"key", "conversation_id", "value"} <= columns:
        raise InvalidSession(f"not a Kiro CLI database: {TABLE} has no key, conversation_id "
                             "and value")
    created = "created_at" if "created_at" in columns else "NULL"
    rows = connection.execute(f"SELECT key, conversation_id, value, {created} FROM {TABLE} "
                              f"ORDER BY {created}, conversation_id")
    for key, conversation_id, value, created_at in rows:
        ledger = Ledger()
        ledger.read(ROW)
        yield Conversation(key, str(conversation_id), _loads(value), created_at, ledger)


def _loads(value: Any) -> dict[str, Any] | None:
    try:
        state = json.loads(value)
    except (TypeError, ValueError, RecursionError):
        return None
    return state if isinstance(state, dict) else None


def render_history(state: dict[str, Any], options: ImportOptions,
                   ledger: Ledger) -> list[dict[str, Any]]:
    """The history's entries as the archive's messages, each entry a record of `ledger`."""
    history = state.get("history")
    out: list[dict[str, Any]] = []
    tool_names: dict[str, str] = {}
    for n, entry in enumerate(history if isinstance(history, list) else []):
        where = f"history[{n}]"
        ledger.read(where)
        user, assistant, metadata = _parts(entry)
        if user is None and assistant is None:
            ledger.left_out(where, "unreadable history entry")
            continue
        messages = [*_user_side(user or {}, n, tool_names, options, ledger),
                    *_answer(assistant or {}, metadata, n, tool_names, options)]
        if messages:
            ledger.imported(where)
            out += messages
        else:
            ledger.left_out(where, "history entry left empty")
    return out


def _parts(entry: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None, dict[str, Any]]:
    """(user, assistant, request metadata) of an entry: an object, or a [user, assistant] pair."""
    if isinstance(entry, list) and len(entry) == 2:
        entry = {"user": entry[0], "assistant": entry[1]}
    if not isinstance(entry, dict):
        return None, None, {}
    user, assistant = entry.get("user"), entry.get("assistant")
    metadata = entry.get("request_metadata")
    return (user if isinstance(user, dict) else None,
            assistant if isinstance(assistant, dict) else None,
            metadata if isinstance(metadata, dict) else {})


def _user_side(user: dict[str, Any], n: int, tool_names: dict[str, str],
               options: ImportOptions, ledger: Ledger) -> list[dict[str, Any]]:
    """The tools' results this turn carried (a `tool` message), then what the user typed."""
    content = _object(user.get("content"))
    variant, body = next(iter(content.items()), (None, None))
    body = body if isinstance(body, dict) else {}
    time = parse_time(user.get("timestamp"))
    if isinstance(user.get("additional_context"), str) and user["additional_context"].strip():
        ledger.part_left_out("context the agent added to the prompt")
    out = []
    results = [_result_line(r, tool_names, variant == "CancelledToolUses", options)
               for r in body.get("tool_use_results") or [] if isinstance(r, dict)]
    if results:
        out.append(_message(f"h{n}-results", "tool", "\n".join(results), time))
    prompt = body["prompt"] if isinstance(body.get("prompt"), str) else ""
    images = [i for i in user.get("images") or [] if isinstance(i, dict)]
    typed = "\n".join([prompt.strip(), *["[image]"] * len(images)]).strip()
    if typed:
        out.append(_message(f"h{n}-user", "user", typed, time))
    if variant is not None and variant not in ("Prompt", "ToolUseResults", "CancelledToolUses"):
        ledger.part_left_out("unknown user message kind")
    return out


def _result_line(result: dict[str, Any], tool_names: dict[str, str], cancelled: bool,
                 options: ImportOptions) -> str:
    tool_id = result.get("tool_use_id")
    name = tool_names.get(tool_id) if isinstance(tool_id, str) else None
    pieces = []
    for block in result.get("content") or []:
        if isinstance(block, dict) and isinstance(block.get("Text"), str):
            pieces.append(block["Text"])
        elif isinstance(block, dict) and "Json" in block:
            pieces.append(json.dumps(block["Json"], ensure_ascii=False, separators=(",", ":"),
                                     default=str))
    output = "\n".join(pieces) or ("(cancelled)" if cancelled else "")
    return tool_result_text(name, output, result.get("status") == "Error", options.tool_chars)


def _answer(assistant: dict[str, Any], metadata: dict[str, Any], n: int,
            tool_names: dict[str, str], options: ImportOptions) -> list[dict[str, Any]]:
    _, body = next(iter(assistant.items()), (None, None))
    body = body if isinstance(body, dict) else {}
    lines = [body["content"]] if isinstance(body.get("content"), str) else []
    for call in body.get("tool_uses") or []:
        if not isinstance(call, dict):
            continue
        if isinstance(call.get("id"), str) and isinstance(call.get("name"), str):
            tool_names[call["id"]] = call["name"]
        lines.append(tool_call_text(call.get("name"), call.get("args"), options.tool_chars))
    text = "\n".join(line for line in lines if line.strip())
    if not text:
        return []
    time = parse_time(metadata.get("stream_end_timestamp_ms")) or \
        parse_time(metadata.get("request_start_timestamp_ms"))
    return [_message(f"h{n}-assistant", "assistant", text, time)]


def _object(value: Any) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one (a field of the wrong type)."""
    return value if isinstance(value, dict) else {}


def _message(message_id: str, role: str, text: str, time: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"id": message_id, "role": role, "content": text.strip()}
    if time:
        message["time"] = time
    return message
