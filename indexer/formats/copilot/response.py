"""A Copilot Chat response (the parts of a VS Code chat request's `response`) as the assistant's
text and the tools' results (vscode.py reads the requests; its docstring says what is kept)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import PurePosixPath
from typing import Any

from indexer.formats.common import ImportOptions, label, tool_call_text, tool_result_text

__all__ = ["answer", "response_parts"]


def response_parts(response: Any, undo_stop: str | None, pieces: Counter[str]) -> list[Any]:
    """The response's parts, cut before the undo stop a partial undo names."""
    parts = response if isinstance(response, list) else [] if response is None else [response]
    if undo_stop:
        at = next((n for n, p in enumerate(parts) if isinstance(p, dict)
                   and p.get("kind") == "undoStop" and p.get("id") == undo_stop), None)
        if at is not None:
            pieces["response part undone"] += len(parts) - at
            parts = parts[:at]
    return parts


def answer(parts: list[Any], options: ImportOptions,
            pieces: Counter[str]) -> tuple[str, list[str]]:
    """The assistant's text (markdown runs joined, tool calls and thoughts on their own lines)
    and the tools' results."""
    blocks: list[str] = []
    run: list[str] = []  # markdown and references, joined without a separator as VS Code does
    results = []
    for part in parts:
        if isinstance(part, str):  # the oldest files keep markdown as plain strings
            run.append(part)
            continue
        if not isinstance(part, dict):
            pieces["unreadable response part"] += 1
            continue
        kind = part.get("kind")
        if kind is None and "value" not in part:
            pieces["response part treeData"] += 1  # a file tree: no text to keep
            continue
        if kind in (None, "markdownContent", "markdownVuln"):
            run.append(_markdown(part if kind is None else part.get("content")))
            continue
        if kind == "inlineReference":
            run.append(_reference(part.get("inlineReference"), part.get("name")))
            continue
        blocks.append("".join(run))
        run = []
        if kind == "thinking":
            thought = _thought(part.get("value"))
            if options.thinking and thought:
                blocks.append(f"[thinking] {thought}")
            elif thought:
                pieces["thinking"] += 1
        elif kind in ("toolInvocationSerialized", "toolInvocation"):
            call, result = _tool(part, options.tool_chars)
            blocks.append(call)
            if result:
                results.append(result)
        else:
            pieces[f"response part {label(kind)}"] += 1
    blocks.append("".join(run))
    return "\n".join(b.strip() for b in blocks if b.strip()), results


def _markdown(value: Any) -> str:
    """An IMarkdownString's text (`{value, isTrusted, ...}`), or a plain string."""
    if isinstance(value, dict):
        value = value.get("value")
    return value if isinstance(value, str) else ""


def _reference(target: Any, name: Any) -> str:
    """An inline reference as VS Code's copy text shows it: the symbol's or the file's name."""
    if isinstance(name, str) and name:
        return f"`{name}`"
    if isinstance(target, dict):
        if isinstance(target.get("name"), str):
            return f"`{target['name']}`"
        path = (_dict(target.get("uri")) or target).get("path")
        if isinstance(path, str) and PurePosixPath(path).name:
            return f"`{PurePosixPath(path).name}`"
    return ""


def _thought(value: Any) -> str:
    if isinstance(value, list):
        value = "".join(v for v in value if isinstance(v, str))
    return value.strip() if isinstance(value, str) else ""


def _tool(part: dict[str, Any], limit: int) -> tuple[str, str | None]:
    """A tool invocation's call line and, when it has one, its result line."""
    name = part.get("toolId") if isinstance(part.get("toolId"), str) else None
    data = _dict(part.get("toolSpecificData"))
    details = part.get("resultDetails")
    if data.get("kind") == "terminal":
        shown: Any = _command(data)
    elif data.get("kind") == "input":
        shown = data.get("rawInput")
    elif isinstance(details, dict) and isinstance(details.get("input"), str):
        shown = _json_or_text(details["input"])
    else:  # what the chat showed, e.g. "Read [](file:///.../fx.py)"
        shown = _markdown(part.get("pastTenseMessage")) or _markdown(part.get("invocationMessage"))
    output, failed = _tool_output(data, details)
    result = tool_result_text(name, output, failed, limit) if output or failed else None
    return tool_call_text(name, shown, limit), result


def _command(data: dict[str, Any]) -> str:
    """The terminal tool's command line, in the order VS Code's copy text picks it."""
    shown = _dict(data.get("presentationOverrides")).get("commandLine")
    if isinstance(shown, str) and shown.strip():
        return shown
    line = _dict(data.get("commandLine"))
    for key in ("forDisplay", "userEdited", "toolEdited", "original"):
        if isinstance(line.get(key), str) and line[key].strip():
            return line[key]
    # the older shape, `{kind: "terminal", command, language}`, that VS Code still reads
    return data["command"] if isinstance(data.get("command"), str) else ""


def _tool_output(data: dict[str, Any], details: Any) -> tuple[str, bool]:
    """A tool's output text and whether it failed: the terminal's output, the text items of
    `resultDetails.output`, or the files a tool returned."""
    if data.get("kind") == "terminal":
        text = _dict(data.get("terminalCommandOutput")).get("text")
        code = _dict(data.get("terminalCommandState")).get("exitCode")
        return (text if isinstance(text, str) else ""), code not in (None, 0)
    if isinstance(details, list):  # URIs and locations the tool returned
        names = [_reference(d, None).strip("`") for d in details]
        return ", ".join(n for n in names if n), False
    if not isinstance(details, dict):
        return "", False
    failed = details.get("isError") is True
    output = details.get("output")
    if isinstance(output, str):
        return output, failed
    texts = []
    for item in _list(output):
        if not isinstance(item, dict):
            continue
        mime = item["mimeType"] if isinstance(item.get("mimeType"), str) else ""
        if isinstance(item.get("value"), str) and (item.get("isText") is True
                                                   or mime.startswith("text/")):
            texts.append(item["value"])
        elif item.get("type") == "ref" or mime:
            texts.append(f"[{mime or 'resource'}]")
    return "\n".join(texts), failed


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return text


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
