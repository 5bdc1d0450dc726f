"""Crush's messages: a row's `parts` JSON, turned into the archive's messages (__init__.py reads
the rows and builds the session record).

`parts` is a list of `{type, data}` (internal/message/message.go, marshalParts); the data's
fields are those of internal/message/content.go: text `{text}`, reasoning `{thinking, ...}`,
image_url `{url}`, binary `{Path, MIMEType, Data}` (an attachment, untagged Go fields), tool_call
`{id, name, input: a JSON string, finished}`, tool_result `{tool_call_id, name, content,
data, mime_type, is_error}`, finish `{reason, time, message}`, shell_command `{command, output,
exit_code}` (a `!` command the user ran). Choices:

- A message's text, its tool calls as `[tool: name] input` lines, its attachments as `[image]`
  or `[file: path]` (never their content) make one message of its role; the tool results it
  holds (crush keeps them in `tool` rows) a `tool` message, each cut to `tool_chars`. A shell
  command is a `shell` call in its message and its output a result.
- Reasoning only with --thinking. Counted as pieces of a kept message: an error or refusal that
  ended the turn ("error notice") and unknown part types.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text
from indexer.formats.ledger import Ledger

__all__ = ["Rendered", "render"]

_ERRORS = {"error": "error notice", "content_filter": "refusal notice"}


@dataclass(slots=True)
class Rendered:
    lines: list[str] = field(default_factory=list)  # the message's own text
    results: list[str] = field(default_factory=list)  # the tool results it holds


def render(parts: list[Any], options: ImportOptions, ledger: Ledger) -> Rendered:
    out = Rendered()
    for part in parts:
        part = _dict(part)
        kind, data = part.get("type"), _dict(part.get("data"))
        if kind == "text" and isinstance(data.get("text"), str):
            out.lines.append(data["text"])
        elif kind == "reasoning":
            _thinking(data, options, ledger, out)
        elif kind == "image_url":
            out.lines.append("[image]")
        elif kind == "binary":
            out.lines.append(_attachment(data))
        elif kind == "tool_call":
            out.lines.append(tool_call_text(data.get("name"), _input(data.get("input")),
                                            options.tool_chars))
        elif kind == "tool_result":
            out.results.append(_result(data, options.tool_chars))
        elif kind == "shell_command":
            _shell(data, options.tool_chars, out)
        elif kind == "finish":
            reason = data.get("reason")
            if isinstance(reason, str) and reason in _ERRORS:
                ledger.part_left_out(_ERRORS[reason])
        else:
            ledger.part_left_out(f"unknown part type {label(kind)}")
    return out


def _thinking(data: dict[str, Any], options: ImportOptions, ledger: Ledger,
              out: Rendered) -> None:
    thought = data.get("thinking")
    if not isinstance(thought, str) or not thought.strip():
        return  # a signature alone: nothing was said
    if options.thinking:
        out.lines.append(f"[thinking] {thought.strip()}")
    else:
        ledger.part_left_out("reasoning")


def _attachment(data: dict[str, Any]) -> str:
    mime = data.get("MIMEType")
    if isinstance(mime, str) and mime.lower().startswith("image/"):
        return "[image]"
    path = data.get("Path")
    return f"[file: {path if isinstance(path, str) and path else label(mime)}]"


def _input(value: Any) -> Any:
    """A call's input, a JSON string: decoded, so that it reads as other agents' calls do."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _result(data: dict[str, Any], limit: int) -> str:
    name = data.get("name") if isinstance(data.get("name"), str) else None
    mime = data.get("mime_type")
    content = _text(data.get("content"))
    if data.get("data") and isinstance(mime, str) and mime.startswith("image/"):
        content = f"{content}\n[image]".strip()
    return tool_result_text(name, content, data.get("is_error") is True, limit)


def _shell(data: dict[str, Any], limit: int, out: Rendered) -> None:
    command, output = _text(data.get("command")), _text(data.get("output"))
    code = data.get("exit_code")
    out.lines.append(tool_call_text("shell", {"command": command}, limit))
    failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
    out.results.append(tool_result_text("shell", output, failed, limit))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
