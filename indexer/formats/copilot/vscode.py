"""Copilot Chat in VS Code: one chat session (`ISerializableChatData`) read into the parts of
a session record (__init__.py builds the record).

The shapes are microsoft/vscode's (src/vs/workbench/contrib/chat/common/model/chatModel.ts,
`ChatModel.toJSON`; chatService/chatService.ts for the response parts): `{version, sessionId,
creationDate, customTitle, requests[{requestId, timestamp, message{text, parts},
variableData{variables[]}, response[...], result, modelState, shouldBeRemovedOnSend}]}`.
"Chat: Export Chat..." saves the same requests without the session's own fields
(`IExportableChatData`: `{initialLocation, requests, responderUsername}`, with
`requesterUsername` and the avatars in older releases; chatModel.ts `isExportableSessionData`).
Choices:

- Each request is a record (`requests[N]`), a queued one (`pendingRequests[N]`) too; every one
  ends imported or left out with its reason, and the pieces of a kept one that are left out (a
  thinking part, an edit group, the missing answer of a cancelled request) are counted.
- Each request is a user message and its response an assistant message. Response parts are
  kept as VS Code's own copy text has them: markdown joined (`{value}` parts, `markdownContent`,
  `markdownVuln`, inline references as their file names); tool invocations
  (`toolInvocationSerialized`) become `[tool: toolId] input` lines and their output a `tool`
  message, cut to `tool_chars`; `thinking` parts only with --thinking; every other kind (edits,
  code block links, progress, confirmations, ...) is counted.
- A request undone in VS Code (`shouldBeRemovedOnSend`, the older `isHidden`) or hidden from the
  transcript is left out and counted; a response cut at an undo stop keeps what came before it;
  a request cancelled before any answer keeps its prompt and is counted.
- An image attached to the prompt (`variableData.variables[]` of kind `image`:
  common/attachments/chatVariableEntries.ts `IImageVariableEntry`; a variable flagged `isImage`,
  as older tools describe releases before the kinds, is taken too, unconfirmed in VS Code's own
  source) stands as `[image]` after the prompt's text, so a turn that is only a screenshot is
  kept.
- The title is `customTitle` (or v2's `computedTitle`); the project is the session's own
  `workingDirectory`, else the folder named in `workspaceStorage/<hash>/workspace.json`
  (`folder`, or a `.code-workspace` file's name for `workspace`).
- An exported chat has no session id: its id is `export-` and the first request's id (a
  re-export of the grown chat replaces the earlier one), else a hash of the first request; its
  date, when no request has a time (the oldest exports), is the file's.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from indexer.formats.common import ImportOptions, NothingToImport, folder_name
from indexer.formats.copilot.response import answer, response_parts
from indexer.formats.ledger import Ledger
from models import parse_time

__all__ = ["Chat", "is_chat", "is_export", "is_workspace_meta", "read_chat"]

_CANCELLED, _FAILED = 2, 3  # ResponseModelState in chatService.ts
_DRIVE = re.compile(r"^/[A-Za-z]:")


@dataclass
class Chat:
    """What a VS Code chat holds, before it becomes a session record."""

    session_id: str
    cwd: str | None = None
    project: str | None = None
    created: str | None = None
    title: str | None = None
    exported: bool = False  # saved by "Chat: Export Chat...", not kept by VS Code
    messages: list[dict[str, Any]] = field(default_factory=list)


def is_chat(value: Any) -> bool:
    """A chat session written whole (any version of ISerializableChatData), or one exported."""
    if not isinstance(value, dict) or not isinstance(value.get("requests"), list):
        return False
    if isinstance(value.get("sessionId"), str):
        return any(key in value for key in ("version", "creationDate", "responderUsername"))
    return is_export(value)


def is_export(value: Any) -> bool:
    """A chat saved by "Chat: Export Chat...": requests and the responder's name, no session id
    (VS Code's isExportableSessionData; older releases checked requesterUsername instead)."""
    return (isinstance(value, dict) and isinstance(value.get("requests"), list)
            and not isinstance(value.get("sessionId"), str)
            and any(isinstance(value.get(k), str)
                    for k in ("responderUsername", "requesterUsername")))


def is_workspace_meta(value: Any) -> bool:
    """`workspaceStorage/<hash>/workspace.json`: `{"folder": uri}` or `{"workspace": uri}`."""
    if not isinstance(value, dict) or len(value) != 1:
        return False
    ((key, target),) = value.items()
    return key in ("folder", "workspace") and isinstance(target, str) and "://" in target


def read_chat(path: Path, chat: dict[str, Any], options: ImportOptions, ledger: Ledger) -> Chat:
    """The chat's messages and metadata; each request's fate goes to `ledger` (`requests[N]`)."""
    queued = _list(chat.get("pendingRequests"))
    for number in range(len(queued)):
        ledger.read(f"pendingRequests[{number}]")
        ledger.left_out(f"pendingRequests[{number}]", "queued request not sent")
    requests = _list(chat.get("requests"))
    if not requests:
        raise NothingToImport("a chat without requests")
    read = Chat(_session_id(path, chat), exported=is_export(chat))
    for number, request in enumerate(requests):
        where = f"requests[{number}]"
        ledger.read(where)
        if isinstance(request, dict):
            read.messages += _request(number, request, options, ledger, where)
        else:
            ledger.left_out(where, "unreadable request")
    read.cwd, read.project = _workspace(path, chat)
    read.created = parse_time(chat.get("creationDate"))
    if read.exported and not read.created and not any("time" in m for m in read.messages):
        read.created = _file_time(path)  # the oldest exports keep no times at all
    read.title = next((chat[k].strip() for k in ("customTitle", "computedTitle")
                       if isinstance(chat.get(k), str) and chat[k].strip()), None)
    return read


def _session_id(path: Path, chat: dict[str, Any]) -> str:
    """The chat's own id; for an export, `export-` and its first request's id (or a hash of that
    request): an export's file name is whatever the user typed, "chat.json" by default."""
    own = chat.get("sessionId")
    if isinstance(own, str) and own.strip():
        return own.strip()
    if not is_export(chat):
        return path.stem
    first = next((r for r in _list(chat.get("requests")) if isinstance(r, dict)), {})
    request_id = first.get("requestId")
    if isinstance(request_id, str) and request_id.strip():
        return f"export-{request_id.strip()}"
    text = json.dumps(first, sort_keys=True, ensure_ascii=False, default=str)
    return "export-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _file_time(path: Path) -> str | None:
    try:
        return parse_time(path.stat().st_mtime)
    except OSError:
        return None


def _request(number: int, request: dict[str, Any], options: ImportOptions, ledger: Ledger,
             where: str) -> list[dict[str, Any]]:
    """A request as the archive's messages: the prompt, the answer, the tools' output."""
    undone = request.get("shouldBeRemovedOnSend")
    stop = undone.get("afterUndoStop") if isinstance(undone, dict) else None
    if request.get("isHidden") is True or (undone and not isinstance(stop, str)):
        ledger.left_out(where, "request undone in VS Code")
        return []
    if request.get("hiddenFromTranscript") is True:
        ledger.left_out(where, "request hidden from the transcript")
        return []
    pieces: Counter[str] = Counter()  # parts of this request left out, counted if it is kept
    request_id = request.get("requestId")
    own = request_id if isinstance(request_id, str) and request_id else f"request-{number}"
    asked = parse_time(request.get("timestamp"))
    out = []
    prompt = "\n".join(t for t in (_prompt(request.get("message")), *_images(request)) if t)
    if prompt:
        out.append(_message(own, "user", prompt, asked))
    else:
        pieces["request without text"] += 1
    parts = response_parts(request.get("response"), stop, pieces)
    text, results = answer(parts, options, pieces)
    state = _dict(request.get("modelState"))
    if state.get("value") == _CANCELLED or request.get("isCanceled") is True:
        pieces["cancelled response"] += 1
    if state.get("value") == _FAILED or _error(request.get("result")):
        pieces["failed response"] += 1
    answered = (parse_time(state.get("completedAt"))
                or parse_time(request.get("responseTimestamp")) or asked)
    response_id = request.get("responseId")
    reply = response_id if isinstance(response_id, str) and response_id else f"{own}-response"
    if text:
        out.append(_message(reply, "assistant", text, answered))
    elif not results:
        pieces["request without response"] += 1
    if results:
        out.append(_message(f"{own}-results", "tool", "\n".join(results), answered))
    if not out:
        ledger.left_out(where, "request without text or response")
        return []
    ledger.imported(where)
    for reason, count in pieces.items():
        ledger.part_left_out(reason, count)
    return out


def _message(own: str, role: str, content: str, time: str | None) -> dict[str, Any]:
    message = {"id": own, "role": role, "content": content}
    if time:
        message["time"] = time
    return message


def _prompt(message: Any) -> str:
    """The request's text: `{text, parts}`, or a plain string in the oldest files."""
    if isinstance(message, dict):
        message = message.get("text")
    return message.strip() if isinstance(message, str) else ""


def _images(request: dict[str, Any]) -> list[str]:
    """`[image]` for each image attached to the prompt (a screenshot pasted or dropped in)."""
    variables = _list(_dict(request.get("variableData")).get("variables"))
    return ["[image]" for v in variables
            if isinstance(v, dict) and (v.get("kind") == "image" or v.get("isImage") is True)]


def _error(result: Any) -> bool:
    details = _dict(result).get("errorDetails")
    return isinstance(details, dict) and details.get("code") != "canceled"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _workspace(path: Path, chat: dict[str, Any]) -> tuple[str | None, str | None]:
    """The chat's working folder and project name: the session's own `workingDirectory`, else
    the folder (or `.code-workspace` file) its workspace storage is for."""
    own = _uri_path(chat.get("workingDirectory"))
    if own:
        return own, folder_name(own)
    if path.parent.name != "chatSessions":
        return None, None
    try:
        meta = json.loads((path.parent.parent / "workspace.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None, None
    if not isinstance(meta, dict):
        return None, None
    folder = _uri_path(meta.get("folder"))
    if folder:
        return folder, folder_name(folder)
    workspace = _uri_path(meta.get("workspace"))
    if workspace:  # a multi-root workspace: its file's folder, and its name as the project
        pure = PurePosixPath(workspace)
        return str(pure.parent), pure.name.removesuffix(".code-workspace") or None
    return None, None


def _uri_path(uri: Any) -> str | None:
    """The path of a file:// (or vscode-remote://) URI as VS Code stores it; a Windows drive
    letter loses the slash before it."""
    if not isinstance(uri, str) or "://" not in uri:
        return None
    path = unquote(urlsplit(uri).path)
    if _DRIVE.match(path):
        path = path[1:]
    return path.rstrip("/") or None
