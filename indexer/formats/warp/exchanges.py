"""A Warp conversation's exchanges turned into the archive's messages.

An exchange's `input` is a JSON list of tagged items: `{"Query": {text, context,
referenced_attachments}}` for what the user typed, and `{"ActionResult": {id, result: {<Action>:
{result: {"Success": {...}} | <failure>}}}}` for a tool's result the agent was given back
(agentsview internal/parser/warp.go reads the first; the ActionResult shape is as
Vaeshkar/create-ai-chat-context-experimental scripts/extract-warp-conversation.js reads it). Where
the database has `ai_blocks`, an exchange's `output` is `{"Received": {"output": [{"Text":
{text}}, {"Action": {id, action_type: {<Action>: {...}}}}]}}`: the agent's words and the tools
it called. Choices:

- A query is a user message; the results in an input a `tool` message, each cut to `tool_chars`
  (a failure is a tool error); the agent's output an assistant message after them, its actions
  as `[tool: Action] arguments` lines. All take the exchange's start time.
- The context Warp attaches to a query (folder, git branch, time, rules) and its attachments are
  not the user's words: left out and counted ("query context", "query attachments").
- An exchange with an empty input (a follow-up Warp sends on its own) gives nothing and is left
  out as "exchange without input"; unreadable JSON and items of unknown kinds are counted.
"""

from __future__ import annotations

import json
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    label,
    tool_call_text,
    tool_result_text,
)
from indexer.formats.ledger import Ledger
from indexer.formats.warp.rows import Exchange

__all__ = ["read_exchange"]


def read_exchange(exchange: Exchange, options: ImportOptions,
                  ledger: Ledger) -> list[dict[str, Any]]:
    """The messages of one exchange; it and its output rows get their fates in `ledger`."""
    base = {"time": exchange.time} if exchange.time else {}
    ident = exchange.exchange_id
    texts, results, reason = _input(exchange.input, options.tool_chars, ledger)
    out = []
    if texts:
        out.append({"id": ident, "role": "user", "content": "\n".join(texts), **base})
    if results:
        out.append({"id": f"{ident}-results", "role": "tool", "content": "\n".join(results),
                    **base})
    if out:
        ledger.imported(exchange.where)
    else:
        ledger.left_out(exchange.where, reason)
    answer = [line for where, output in exchange.outputs
              for line in _output(where, output, options.tool_chars, ledger)]
    if answer:
        out.append({"id": f"{ident}-answer", "role": "assistant", "content": "\n".join(answer),
                    **base})
    return out


def _input(data: Any, limit: int, ledger: Ledger) -> tuple[list[str], list[str], str]:
    """(the user's words, tool results, why nothing came of it)."""
    items = _loads(data)
    if items is None:
        return [], [], "unreadable input"
    if not items:
        return [], [], "exchange without input"
    texts: list[str] = []
    results: list[str] = []
    for item in items:
        kind, value = _tagged(item)
        if kind == "Query" and isinstance(value, dict):
            text = value.get("text")
            if isinstance(text, str) and text.strip():
                texts.append(text.strip())
            if value.get("context"):
                ledger.part_left_out("query context")
            if value.get("referenced_attachments"):
                ledger.part_left_out("query attachments")
        elif kind == "ActionResult" and isinstance(value, dict):
            results.append(_action_result(value.get("result"), limit))
        else:
            ledger.part_left_out(f"unknown input {label(kind)}")
    return texts, results, "input without text"


def _action_result(result: Any, limit: int) -> str:
    """`[tool result: RequestCommandOutput] output`: the action's name, and what it gave."""
    action, body = _tagged(result)
    outcome, detail = _tagged(body.get("result") if isinstance(body, dict) else None)
    failed = outcome is not None and outcome != "Success"
    if isinstance(detail, dict) and isinstance(detail.get("output"), str):
        text = detail["output"]
    elif isinstance(detail, dict) and isinstance(detail.get("files"), list):
        text = ", ".join(str(f.get("file_name")) for f in detail["files"] if isinstance(f, dict))
    else:
        shown = detail if detail is not None else body
        text = shown if isinstance(shown, str) else json.dumps(shown, ensure_ascii=False,
                                                                default=str)
        text = "" if text == "null" else text
    name = action if isinstance(action, str) else None
    return tool_result_text(name, text, failed, limit)


def _output(where: str, data: Any, limit: int, ledger: Ledger) -> list[str]:
    """The agent's words and tool calls in one output row."""
    value = _loads(data, whole=True)
    kind, received = _tagged(value)
    if kind != "Received" or not isinstance(received, dict):
        ledger.left_out(where, "unreadable output" if value is None
                        else f"output {label(kind)}")
        return []
    lines = []
    items = received.get("output")
    for item in items if isinstance(items, list) else []:
        part, body = _tagged(item)
        if part == "Text" and isinstance(body, dict) and isinstance(body.get("text"), str):
            if body["text"].strip():
                lines.append(body["text"].strip())
        elif part == "Action" and isinstance(body, dict):
            action, arguments = _tagged(body.get("action_type"))
            lines.append(tool_call_text(action, arguments, limit))
        else:
            ledger.part_left_out(f"unknown output {label(part)}")
    if lines:
        ledger.imported(where, "the exchange's answer")
    else:
        ledger.left_out(where, "output without text")
    return lines


def _loads(data: Any, whole: bool = False) -> Any:
    """The JSON of a cell: a list of items (an input) or, `whole`, any value; None when it is
    unreadable."""
    if data is None:
        return [] if not whole else None
    try:
        value = json.loads(data)
    except (TypeError, ValueError, RecursionError):
        return None
    if whole:
        return value
    return value if isinstance(value, list) else None


def _tagged(item: Any) -> tuple[Any, Any]:
    """(variant, value) of a serde externally tagged enum: `{"Query": {...}}`."""
    if isinstance(item, dict) and len(item) == 1:
        return next(iter(item.items()))
    return None, None
