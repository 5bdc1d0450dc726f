"""A Qwen Code chat log's records as messages: the rewinds applied, each record's fate set.

Each line is a `ChatRecord` (packages/core/src/services/chatRecordingService.ts): `uuid`,
`parentUuid`, `sessionId`, `timestamp`, `type` (user, assistant, tool_result, system), an
optional `subtype`, `cwd`, and the API `message` (`{role, parts}`) or a `systemPayload`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from indexer.formats.common import ImportOptions, clip, label, tool_call_text, tool_result_text
from indexer.formats.ledger import Ledger

__all__ = ["Chat", "parts_text", "read_chat"]

# user records Qwen Code sends on its own (a background agent's notice, a scheduled prompt, the
# goal runner's prompt): not what the user typed
_SENT_BY_AGENT = {"notification", "cron", "goal_runtime", "background_task_completed"}
# user records that are what the user said
_TYPED = {None, "mid_turn_user_message", "realtime_message"}


@dataclass
class Chat:
    """What a log holds once replayed: its messages, title, session id and folder."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    titles: list[tuple[str, str]] = field(default_factory=list)  # (title, where)
    session_id: str | None = None
    cwd: str | None = None
    recognized: int = 0  # records of a type Qwen Code writes


def read_chat(items: list[tuple[int, Any]], options: ImportOptions, ledger: Ledger) -> Chat:
    chat = Chat()
    rewound = _rewound(items)
    tool_names: dict[str, str] = {}
    for number, item in items:
        where = f"line {number}"
        if not isinstance(item, dict):
            ledger.left_out(where, "non-object line")
            continue
        kind = item.get("type")
        if kind not in ("user", "assistant", "tool_result", "system"):
            ledger.left_out(where, f"unknown record type {label(kind)}" if kind
                            else "record without type")
            continue
        chat.recognized += 1
        if chat.session_id is None and isinstance(item.get("sessionId"), str):
            chat.session_id = item["sessionId"]
        if chat.cwd is None and isinstance(item.get("cwd"), str) and item["cwd"].strip():
            chat.cwd = item["cwd"].strip()
        if number in rewound:
            ledger.left_out(where, "rewound message")
        elif item.get("isSidechain") is True:
            ledger.left_out(where, "sidechain record (a sub-agent's)")
        elif kind == "system":
            _system(item, where, chat, ledger)
        else:
            _message(item, kind, number, where, chat, options, ledger, tool_names)
    return chat


def _rewound(items: list[tuple[int, Any]]) -> set[int]:
    """The lines a rewind dropped. A rewind re-roots the chain at the record before the turn it
    went back to (its `parentUuid`, none when it went back to the first turn), so the records
    written between that one and the rewind are on a dead branch that `--resume` does not load."""
    order = [(n, i) for n, i in items if isinstance(i, dict)]
    dropped: set[int] = set()
    for position, (_, item) in enumerate(order):
        if item.get("type") != "system" or item.get("subtype") != "rewind":
            continue
        target = item.get("parentUuid")
        if target is None:
            start = 0
        else:
            found = [p for p, (_, i) in enumerate(order[:position]) if i.get("uuid") == target]
            if not found:
                continue  # the record it went back to is not in this file: nothing to drop
            start = found[-1] + 1
        dropped |= {n for n, i in order[start:position] if i.get("type") != "system"
                    or i.get("subtype") not in ("custom_title", "rewind")}
    return dropped


def _system(item: dict[str, Any], where: str, chat: Chat, ledger: Ledger) -> None:
    subtype = item.get("subtype")
    payload: dict[str, Any] = item["systemPayload"] \
        if isinstance(item.get("systemPayload"), dict) else {}
    if subtype == "custom_title" and isinstance(payload.get("customTitle"), str) \
            and payload["customTitle"].strip():
        chat.titles.append((payload["customTitle"].strip(), where))
    elif subtype == "rewind":
        ledger.left_out(where, "rewind marker (applied)")
    elif subtype == "chat_compression":
        ledger.left_out(where, "compression checkpoint (the model's context)")
    elif subtype == "slash_command" and payload.get("phase") == "invocation" \
            and isinstance(payload.get("rawCommand"), str) and payload["rawCommand"].strip() \
            and payload.get("hiddenInvocation") is not True:
        ledger.imported(where, "the command the user typed")
        chat.messages.append(_entry(item, where, "user", payload["rawCommand"].strip()))
    elif subtype == "slash_command":
        ledger.left_out(where, "slash command output")
    else:
        ledger.left_out(where, f"system record {label(subtype)}")


def _message(item: dict[str, Any], kind: str, number: int, where: str, chat: Chat,
             options: ImportOptions, ledger: Ledger, tool_names: dict[str, str]) -> None:
    subtype = item.get("subtype")
    if kind == "user" and subtype in _SENT_BY_AGENT:
        ledger.left_out(where, f"turn sent by the agent ({label(subtype)})")
        return
    if kind == "user" and subtype not in _TYPED:
        ledger.left_out(where, f"user record {label(subtype)}")
        return
    message = item.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    if not isinstance(parts, list):
        ledger.left_out(where, f"{kind} record without message parts")
        return
    limit = options.tool_chars
    if kind == "tool_result":
        role, text = "tool", _results(parts, item, tool_names, limit)
    elif kind == "assistant":
        role, text = "assistant", _reply(parts, options, ledger, tool_names)
    else:
        role, text = "user", _prompt(parts, item, ledger)
    if not text:
        ledger.left_out(where, "message left empty")
        return
    ledger.imported(where)
    chat.messages.append(_entry(item, where, role, text, number))


def _entry(item: dict[str, Any], where: str, role: str, text: str,
           number: int | None = None) -> dict[str, Any]:
    uuid = item.get("uuid")
    out = {"id": uuid if isinstance(uuid, str) and uuid else f"l{number or where}",
           "role": role, "content": text}
    if isinstance(item.get("timestamp"), str):
        out["time"] = item["timestamp"]
    return out


def _prompt(parts: list[Any], item: dict[str, Any], ledger: Ledger) -> str:
    """What the user typed: the record's `displayText` when Qwen Code kept it (the parts are
    the prompt as sent, with @-files read in and hook context added), else the parts' text."""
    sent = parts_text(parts)
    payload = item.get("systemPayload")
    typed = payload.get("displayText") if isinstance(payload, dict) else None
    if isinstance(typed, str) and typed.strip():
        if typed.strip() != sent:
            ledger.part_left_out("prompt expanded from what the user typed")
        return typed.strip()
    return sent


def _reply(parts: list[Any], options: ImportOptions, ledger: Ledger,
           tool_names: dict[str, str]) -> str:
    lines = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if part.get("thought") is True:
            if options.thinking and isinstance(part.get("text"), str) and part["text"].strip():
                lines.append(f"[thinking] {part['text'].strip()}")
            else:
                ledger.part_left_out("thought")
        elif isinstance(part.get("text"), str):
            lines.append(part["text"].strip())
        elif isinstance(part.get("functionCall"), dict):
            call = part["functionCall"]
            if isinstance(call.get("id"), str) and isinstance(call.get("name"), str):
                tool_names[call["id"]] = call["name"]
            lines.append(tool_call_text(call.get("name"), call.get("args"), options.tool_chars))
    return "\n".join(line for line in lines if line)


def _results(parts: list[Any], item: dict[str, Any], tool_names: dict[str, str],
             limit: int) -> str:
    status = item.get("toolCallResult", {}).get("status") \
        if isinstance(item.get("toolCallResult"), dict) else None
    out = []
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if not isinstance(response, dict):
            continue
        name = response.get("name")
        if not isinstance(name, str):
            call_id = response.get("id")
            name = tool_names.get(call_id) if isinstance(call_id, str) else None
        body = response.get("response")
        failed = status == "error" or (isinstance(body, dict) and "error" in body
                                       and "output" not in body)
        out.append(tool_result_text(name, _response_text(body), failed, limit))
    return "\n".join(out)


def _response_text(body: Any) -> str:
    if isinstance(body, dict):
        body = body.get("output", body.get("error", body))
    if isinstance(body, str):
        return body
    return json.dumps(body, ensure_ascii=False, default=str) if body is not None else ""


def parts_text(parts: Any) -> str:
    """The text of a user's parts (thoughts and function parts aside); an attached file or
    image stands as a marker."""
    if isinstance(parts, str):
        return parts.strip()
    texts = []
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, str):
            texts.append(part)
        elif not isinstance(part, dict) or part.get("thought") is True:
            continue
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part.get("inlineData"), dict) or isinstance(part.get("fileData"), dict):
            data: dict[str, Any] = part.get("inlineData") or part.get("fileData") or {}
            mime = data.get("mimeType")
            texts.append("[image]" if isinstance(mime, str) and mime.startswith("image/")
                         else "[file]")
    return "\n".join(t.strip() for t in texts if t.strip())


def first_line(text: str, limit: int) -> str:
    return clip(text.split("\n", 1)[0], limit)
