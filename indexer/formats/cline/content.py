"""The messages Cline, Roo Code and Kilo Code store, in a task's history and a Cline CLI session
alike, read into the archive's messages (tasks.py and cli.py feed them in order).

Each is an Anthropic-style message the extension sends to the model (`{role, content, ts?}`,
content a string or text / image / tool_use / tool_result / thinking blocks; cline/cline
shared/messages/content.ts `ClineStorageMessage`). Choices:

- The user's words are what the extension wraps in `<task>`, `<feedback>`, `<answer>`,
  `<user_message>` (cline's USER_CONTENT_TAGS), or the CLI's `<user_input>` / `<user_command>`;
  plain text is kept too. What the extension adds around them (`<environment_details>`, task
  resumption notices, hook context, `[ERROR]` reminders, attached file contents, the "The user
  has provided feedback on the results..." wrapper, the focus chain's `# TODO LIST UPDATE
  REQUIRED` and `# task_progress` reminders) is left out and counted as pieces of the message; a
  user message with nothing of the user's in it is left out as "injected by the extension".
  Tool results (`tool_result` blocks, or the older `[tool for 'x'] Result:` text) become a
  `tool` message before the user's words, cut to `tool_chars`; an answer or feedback inside a
  result is the user's, and so are the images attached to it, words or not (`[image]`).
- Tool calls (`tool_use` blocks, or the XML calls older releases wrote in the text) become
  `[tool: name] input` lines; attempt_completion's result, a follow-up question and a plan-mode
  response are the assistant's own words and kept whole. Thinking (`thinking`, Roo's `reasoning`,
  `<thinking>` tags) only with --thinking. Roo's condensed summary is a `system` message.
- The working folder, when nothing else names it, is the `# Current Working Directory (...)` of
  the first environment details.
- Each stored message is one record of the ledger (`messages[N]`): imported, or left out with
  its reason (thinking only, a truncation marker, an unreadable message, ...).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    block_texts,
    clip,
    label,
    tool_call_text,
    tool_result_text,
)
from indexer.formats.ledger import Ledger
from models import parse_time

__all__ = ["ADDED", "INJECTED", "THINKING", "Renderer", "epoch_ms", "first_text", "modified_time",
           "read_json"]

THINKING = "thinking"
ADDED = "context the extension added"  # around the user's words, or a notice of its own
INJECTED = "injected by the extension"  # a user message with nothing of the user's in it
_EMPTY = ""  # _add's "no message came of it": the reason depends on what was left out
# Texts the extension writes into the user's turn as blocks of their own, without the tags that
# mark the user's words, by how they begin:
# - cline/cline src/core/task/tools/handlers/AttemptCompletionHandler.ts (commit f3a3f30db5bd,
#   2026-03-24): the wrapper before `<feedback>` on a completion, a block of its own in native
#   tool results (releases before wrote it in the same block as `<feedback>`);
# - cline/cline src/core/task/focus-chain/index.ts and prompts.ts (same commit): the focus
#   chain's reminders, "# TODO LIST UPDATE REQUIRED - You MUST include the task_progress
#   parameter in your NEXT tool call." and the "# task_progress RECOMMENDED", "# task_progress
#   CREATION REQUIRED", "# task_progress List (Optional - Plan Mode)" and "# task_progress" (API
#   request count) prompts, pushed as a text block after the user's content (task/index.ts);
# - cline/cline sdk/packages/core/src/session/user-run-messages.ts (commit 21cb8d2525bc,
#   2026-08-22): the continuation the CLI sends itself after a plan is approved.
# Roo Code (RooCodeInc/Roo-Code at cb836567180a, 2026-04-14) puts its todo reminders inside the
# environment details (src/core/environment/getEnvironmentDetails.ts, reminder.ts: "REMINDERS")
# and the user's feedback in `<user_message>` (src/core/tools/AttemptCompletionTool.ts): both
# handled by the tags below.
_INJECTED_TEXTS = (
    ("The user has provided feedback on the results. Consider their input to continue the task",
     "feedback wrapper"),
    ("# TODO LIST UPDATE REQUIRED", "task progress reminder"),
    ("# task_progress", "task progress reminder"),
    ("The user approved switching to act mode. Continue with the approved plan now.",
     "mode switch notice"),
)

# a tool whose input is what the assistant says to the user, and the parameter that holds it
_SPOKEN = {"attempt_completion": "result", "ask_followup_question": "question",
           "plan_mode_respond": "response", "act_mode_respond": "response",
           "ask_question": "question", "submit_and_exit": "summary"}
# tool names of Cline and Roo Code, for the XML calls of releases before native tool calls
_XML_TOOLS = ("execute_command", "read_file", "write_to_file", "replace_in_file", "search_files",
              "list_files", "list_code_definition_names", "browser_action", "use_mcp_tool",
              "access_mcp_resource", "load_mcp_documentation", "new_task", "web_fetch",
              "web_search", "condense", "summarize_task", "report_bug", "new_rule", "apply_patch",
              "apply_diff", "insert_content", "search_and_replace", "switch_mode",
              "codebase_search", "update_todo_list", "fetch_instructions", "run_slash_command",
              "generate_image", "focus_chain", "use_skill", *_SPOKEN)
_XML_CALL = re.compile(rf"<({'|'.join(_XML_TOOLS)})>(.*?)</\1>", re.DOTALL)
_XML_PARAM = re.compile(r"<([a-z_]+)>(.*?)</\1>", re.DOTALL)
_THINKING_TAG = re.compile(r"<thinking>(.*?)</thinking>", re.DOTALL)
_USER_TAG = re.compile(r"<(task|feedback|answer|user_message|user_input|user_command)\b([^>]*)>"
                       r"(.*?)</\1>", re.DOTALL | re.IGNORECASE)
_ADDED = re.compile(r"<(environment_details|mode_notice|SYSTEM_NOTICE)>.*?</\1>", re.DOTALL)
_ADDED_NAMES = {"environment_details": "environment details", "mode_notice": "mode notice",
                "SYSTEM_NOTICE": "compaction notice"}
_INJECTED_PIECES = {ADDED, *_ADDED_NAMES.values(), *(name for _, name in _INJECTED_TEXTS)}
_RESULT_HEADER = re.compile(r"\[([^\]\n]{1,300})\] Result:[ \t]*\n?")
_CWD = re.compile(r"# Current (?:Working|Workspace) Directory \((?!Primary: )([^)\n]+)\) Files")
_SLASH = re.compile(r'slash="([^"]+)"')


class Renderer:
    """Turns the stored messages, in order, into the archive's messages; each stored message is
    a record of `ledger` (its place: `messages[N]`)."""

    def __init__(self, options: ImportOptions, ledger: Ledger) -> None:
        self.options = options
        self.ledger = ledger
        self.out: list[dict[str, Any]] = []
        self.tool_names: dict[str, str] = {}
        self.cwd: str | None = None  # from the first environment details that name it
        self._pieces: Counter[str] = Counter()  # what the record being read left out

    def add(self, where: str, mid: str, message: Any, time: str | None) -> None:
        """One stored message (at `where` in its file, `mid` its message id) and its fate."""
        self.ledger.read(where)
        self._pieces = Counter()
        fate = self._add(mid, message, time) if isinstance(message, dict) \
            else "unreadable message"
        if fate is None:
            self.ledger.imported(where)
            for piece, count in self._pieces.items():
                self.ledger.part_left_out(piece, count)
            return
        if fate == _EMPTY:
            fate = self._empty_reason()
        self.ledger.left_out(where, fate)

    def _add(self, mid: str, message: dict[str, Any], time: str | None) -> str | None:
        """None when the message gave archive messages, else why it gave none."""
        if message.get("type") == "reasoning" and "role" not in message:  # Roo: a reasoning item
            return None if self._emit(mid, "assistant", self._thinking(message), time) else _EMPTY
        role = message.get("role")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if role not in ("user", "assistant"):
            return f"{label(role)} message" if role else "unreadable message"
        if not isinstance(blocks, list):
            return "unreadable message"
        if message.get("isTruncationMarker") is True:
            return "truncation marker"
        if role == "assistant":
            return None if self._emit(mid, "assistant", self._assistant(blocks), time) else _EMPTY
        words, results = self._user(blocks)
        if message.get("isSummary") is True:  # Roo's condensed history, which replaces the rest
            return None if self._emit(mid, "system", words, time) else _EMPTY
        said = self._emit(f"{mid}-results", "tool", results, time)
        said = self._emit(mid, "user", words, time) or said
        return None if said else _EMPTY

    def _emit(self, mid: str, role: str, lines: list[str], time: str | None) -> bool:
        text = "\n".join(line for line in lines if line.strip()).strip()
        if not text:
            return False
        message = {"id": mid, "role": role, "content": text}
        if time:
            message["time"] = time
        self.out.append(message)
        return True

    def _empty_reason(self) -> str:
        """Why a message gave nothing: what the extension injected, thinking only, or nothing
        left (then the pieces it held are counted as pieces)."""
        pieces = set(self._pieces)
        if pieces and pieces <= _INJECTED_PIECES:
            return INJECTED
        if pieces == {THINKING}:
            return THINKING
        for piece, count in self._pieces.items():
            self.ledger.part_left_out(piece, count)
        return "message left empty"

    def _piece(self, reason: str) -> None:
        self._pieces[reason] += 1

    def _assistant(self, blocks: list[Any]) -> list[str]:
        limit = self.options.tool_chars
        lines: list[str] = []
        for block in blocks:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(block.get("text"), str):
                lines += self._assistant_text(block["text"])
            elif kind in ("thinking", "redacted_thinking", "reasoning"):
                lines += self._thinking(block)
            elif kind == "tool_use":
                name, arguments = block.get("name"), block.get("input")
                if isinstance(block.get("id"), str) and isinstance(name, str):
                    self.tool_names[block["id"]] = name
                lines.append(_spoken(name, arguments) or tool_call_text(name, arguments, limit))
            elif kind in ("image", "document", "media"):
                lines.append(f"[{kind}]")
            else:  # a text block whose text is not text is unreadable too
                self._piece(f"block type {label(kind)}" if kind and kind != "text"
                            else "unreadable block")
        return lines

    def _assistant_text(self, text: str) -> list[str]:
        """Prose, with `<thinking>` sections and the XML tool calls of older releases taken out."""
        lines: list[str] = []
        for match in _THINKING_TAG.finditer(text):
            lines += self._thinking({"thinking": match.group(1)})
        text = _THINKING_TAG.sub("", text)
        position = 0
        for call in _XML_CALL.finditer(text):
            lines.append(text[position:call.start()].strip())
            name, inner = call.group(1), call.group(2)
            params = {m.group(1): m.group(2).strip() for m in _XML_PARAM.finditer(inner)}
            lines.append(_spoken(name, params)
                         or tool_call_text(name, params or inner.strip(), self.options.tool_chars))
            position = call.end()
        lines.append(text[position:].strip())
        return lines

    def _thinking(self, block: dict[str, Any]) -> list[str]:
        texts = [block[k] for k in ("thinking", "text") if isinstance(block.get(k), str)]
        texts += block_texts(block.get("summary"), ())
        thought = "\n".join(t.strip() for t in texts if t.strip())
        if self.options.thinking and thought:
            return [f"[thinking] {thought}"]
        self._piece(THINKING)
        return []

    def _user(self, blocks: list[Any]) -> tuple[list[str], list[str]]:
        """The user's words, and the tool results, of one stored user message."""
        words: list[str] = []
        results: list[str] = []
        pending: str | None = None  # a result header whose output is the next block (2024)
        for block in blocks:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(block.get("text"), str):
                pending = self._user_block(block["text"], pending, words, results)
                continue
            if pending is not None:
                results.append(self._result(pending, "", False))
                pending = None
            if kind == "tool_result":
                said, result = self._tool_result(block)
                words += said
                results += result
            elif kind in ("image", "document", "media"):
                words.append(f"[{kind}]")
            elif kind == "file" and isinstance(block.get("path"), str):
                words.append(f"[file: {block['path']}]")
            else:  # a text block whose text is not text is unreadable too
                self._piece(f"block type {label(kind)}" if kind and kind != "text"
                            else "unreadable block")
        if pending is not None:
            results.append(self._result(pending, "", False))
        return words, results

    def _user_block(self, text: str, pending: str | None, words: list[str],
                    results: list[str]) -> str | None:
        """One text block of a user message, into words or results; returns the header of a
        result whose output is in the next block."""
        said, rest, _ = self._user_text(text)
        header = _RESULT_HEADER.match(rest)
        injected = _injected(rest)
        if pending is not None and not said:  # an answer or feedback would be its output
            if rest and not header and not injected:
                results.append(self._result(pending, rest, False))
                return None
            results.append(self._result(pending, "", False))
        if said:
            words += said
            if rest:  # what is around an answer or feedback is the extension's wording
                self._piece(injected or ADDED)
        elif injected:
            self._piece(injected)
        elif header:  # a tool result written as text (releases before native tool calls)
            body = rest[header.end():]
            if not body.strip():
                return header.group(1)
            results.append(self._result(header.group(1), body, False))
        elif rest.startswith(("[", "<")):
            self._piece(ADDED)
        elif rest:
            words.append(rest)
        return None

    def _tool_result(self, block: dict[str, Any]) -> tuple[list[str], list[str]]:
        """The user's answer or feedback a tool result holds (with the images the user attached
        to it), else the result as one line."""
        use_id = block.get("tool_use_id")
        name = block.get("name") if isinstance(block.get("name"), str) else (
            self.tool_names.get(use_id) if isinstance(use_id, str) else None)
        content = block.get("content")
        media = [f"[{b['type']}]" for b in content if isinstance(b, dict)
                 and b.get("type") in ("image", "document")] if isinstance(content, list) else []
        said, rest, tagged = self._user_text(_result_text(content))
        header = _RESULT_HEADER.match(rest)
        if header:  # Cline writes "[tool for 'x'] Result:" inside native results too
            name = header.group(1)
        # images the user attached to an answer or to feedback on a completion, even without
        # words (AttemptCompletionHandler.ts pushes them after an empty feedback), are the user's;
        # a browser's screenshot is the tool's output
        asked = tagged or (name or "").split(" ", 1)[0] in _SPOKEN
        if said or (media and asked):  # ask_followup_question's answer, feedback, ...
            if rest:
                self._piece(_injected(rest) or ADDED)
            return said + media, []
        if header:
            rest = rest[header.end():]
        body = "\n".join([rest, *media]).strip()
        return [], [self._result(name, body, block.get("is_error") is True)]

    def _result(self, name: str | None, body: str, failed: bool) -> str:
        failed = failed or body.lstrip().startswith("The tool execution failed")
        return tool_result_text(clip(name, 80) if name else None, body, failed,
                                self.options.tool_chars)

    def _user_text(self, text: str) -> tuple[list[str], str, bool]:
        """The user's words in a text the extension stored, what is left of it once they and
        what the extension added are taken out, and whether it had the tags of the user's
        words at all (an empty answer with images attached still has them)."""
        if self.cwd is None:
            found = _CWD.search(text)
            self.cwd = found.group(1).strip() if found else None
        for added in _ADDED.finditer(text):
            self._piece(_ADDED_NAMES[added.group(1)])
        text = _ADDED.sub("", text)
        said = []
        tagged = False
        for match in _USER_TAG.finditer(text):
            tagged = True
            words = match.group(3).strip()
            slash = _SLASH.search(match.group(2)) if match.group(1) == "user_command" else None
            said.append(f"/{slash.group(1)} {words}".strip() if slash else words)
        return [s for s in said if s], _USER_TAG.sub("", text).strip(), tagged


def _injected(text: str) -> str | None:
    """The name of a text the extension puts in the user's turn on its own, else None. The
    feedback wrapper is found anywhere: in a tool result it follows the result's header."""
    stripped = text.lstrip()
    if _INJECTED_TEXTS[0][0] in text:
        return _INJECTED_TEXTS[0][1]
    return next((name for start, name in _INJECTED_TEXTS if stripped.startswith(start)), None)


def _result_text(content: Any) -> str:
    """A tool result's output as text: its text blocks and strings, and anything else as JSON
    (the CLI stores what a tool returned as it was: `{query, result}` objects, lists of them)."""
    items = content if isinstance(content, list) else [content]
    texts = []
    for item in items:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            texts.append(item["text"])
        elif isinstance(item, dict) and item.get("type") in ("image", "document"):
            continue  # stands as a marker (_tool_result)
        elif item is not None:
            texts.append(json.dumps(item, ensure_ascii=False, default=str))
    return "\n".join(texts)


def _spoken(name: Any, arguments: Any) -> str | None:
    """What a speaking tool (attempt_completion, ask_followup_question, ...) says, else None."""
    key = _SPOKEN.get(name) if isinstance(name, str) else None
    said = arguments.get(key) if key and isinstance(arguments, dict) else None
    return said.strip() if isinstance(said, str) and said.strip() else None


# what both readers read beside the messages ----------------------------------------------------


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def epoch_ms(value: Any) -> int | None:
    """An epoch time in ms, as the extensions write `ts` (Python's JSON reads `Infinity` too)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e15:
        return int(value)
    return None


def modified_time(path: Path) -> str | None:
    try:
        return parse_time(path.stat().st_mtime)
    except OSError:
        return None


def first_text(mapping: dict[str, Any], *keys: str) -> str | None:
    return next((mapping[k].strip() for k in keys
                 if isinstance(mapping.get(k), str) and mapping[k].strip()), None)
