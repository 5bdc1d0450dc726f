"""The whole-file chats of older Qwen Code releases: `~/.qwen/tmp/<projectHash>/chats/
session-*.json`, Gemini CLI's shape with the model's messages of type `qwen`
(`QwenSession`/`QwenMessage` in packages/vscode-ide-companion/src/services/qwenSessionReader.ts)."""

from __future__ import annotations

from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.gemini import written_by_qwen
from indexer.formats.ledger import Ledger
from indexer.formats.qwen.records import parts_text

__all__ = ["read_legacy", "written_by_qwen"]

_KEPT = {"user": "user", "qwen": "assistant"}


def read_legacy(value: dict[str, Any], options: ImportOptions,
                ledger: Ledger) -> list[dict[str, Any]]:
    """The document's messages: the user's and the model's (with its tool calls, their results
    as a `tool` message after it, and its thoughts on request); notices are left out."""
    out: list[dict[str, Any]] = []
    for n, message in enumerate(value["messages"]):
        where = f"messages[{n}]"
        ledger.read(where)
        if not isinstance(message, dict):
            ledger.left_out(where, "unreadable message (not an object)")
            continue
        kind = message.get("type")
        role = _KEPT.get(kind) if isinstance(kind, str) else None
        if role is None:
            ledger.left_out(where, f"{label(kind)} message (a notice, not conversation)")
            continue
        rendered = _render(message, role, f"m{n + 1}", options, ledger)
        if rendered:
            ledger.imported(where)
            out += rendered
        else:
            ledger.left_out(where, "message left empty")
    return out


def _render(message: dict[str, Any], role: str, fallback_id: str, options: ImportOptions,
            ledger: Ledger) -> list[dict[str, Any]]:
    limit = options.tool_chars
    lines = []
    thoughts = message.get("thoughts") if role == "assistant" else None
    for thought in thoughts if isinstance(thoughts, list) else []:
        text = ": ".join(str(thought[k]).strip() for k in ("subject", "description")
                         if isinstance(thought, dict) and isinstance(thought.get(k), str)
                         and thought[k].strip())
        if options.thinking and text:
            lines.append(f"[thinking] {text}")
        else:
            ledger.part_left_out("thought")
    lines.append(parts_text(message.get("content")))
    calls = message.get("toolCalls")
    if calls is not None and not isinstance(calls, list):
        ledger.part_left_out("unreadable toolCalls (not a list)")
    calls = [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
    lines += [tool_call_text(c.get("name"), c.get("args"), limit) for c in calls]
    results = [tool_result_text(c["name"] if isinstance(c.get("name"), str) else None,
                                _result_text(c.get("result")), c.get("status") == "error", limit)
               for c in calls if c.get("result") is not None]
    message_id = message["id"] if isinstance(message.get("id"), str) and message["id"] \
        else fallback_id
    base = {"time": message["timestamp"]} if isinstance(message.get("timestamp"), str) else {}
    out = []
    text = "\n".join(line for line in lines if line.strip())
    if text:
        out.append({"id": message_id, "role": role, "content": text, **base})
    if results:
        out.append({"id": f"{message_id}-results", "role": "tool", "content": "\n".join(results),
                    **base})
    return out


def _result_text(value: Any) -> str:
    """A tool call's result: parts whose function response holds the output, or text."""
    parts = [value] if isinstance(value, dict) else value
    texts = []
    for part in parts if isinstance(parts, list) else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict) and isinstance(response.get("response"), dict):
            body = response["response"]
            shown = body.get("output", body.get("error"))
            texts.append(shown if isinstance(shown, str) else str(body))
    return "\n".join(texts) if texts else parts_text(value)
