"""Aider chat histories: `.aider.chat.history.md` in the folder aider ran in (or the file
`AIDER_CHAT_HISTORY_FILE` names). One Markdown file holds every session of that folder.

What aider writes (Aider-AI/aider, aider/io.py):

- `# aider chat started at YYYY-MM-DD HH:MM:SS` opens a session;
- `#### ` lines are what the user typed (a multi-line prompt is several `#### ` lines);
- `> ` lines are aider's own output (banner, file additions, "Applied edit to …", shell
  output): tool output, not the user's words. They are kept as one compact `tool` message per
  block, cut to `tool_chars`;
- everything else is the assistant's answer. A reasoning model's thinking, which aider prints
  between `-----` / `**► THINKING**` and `-----` / `**► ANSWER**` (aider/reasoning_tags.py), is
  left out unless asked for.

Lines carry no times, so every message is dated by its session's start. A session's id is the
folder's name and its start time (`aider-<folder>-<YYYY-MM-DDTHH-MM-SS>`), stable across
re-imports as the file grows; the folder is the session's topic.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    clip,
    origin,
    safe_session_id,
)
from models import InvalidSession

__all__ = ["CHANNEL", "FILE_NAME", "NAME", "default_paths", "is_candidate", "looks_like_text", "parse"]

NAME = "aider"
CHANNEL = "aider"
ID_PREFIX = "aider"
# how the agent reopens one of its sessions (`recall resume`): a command, or None and why not
RESUME = ("aider --restore-chat-history",
          "aider keeps one history per folder and restores all of it, not one session: run it in cwd")
FILE_NAME = ".aider.chat.history.md"
TITLE_CHARS = 80
_START = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})\s*$")
# aider's rendering of a reasoning model's thinking, and the raw tags it replaces
_THINKING = re.compile(r"(?:^-+\n)?^\*\*► THINKING\*\*\s*\n(.*?)(?:^-+\n)?^\*\*► ANSWER\*\*\s*$"
                       r"|<thinking-content-[0-9a-f]+>(.*?)</thinking-content-[0-9a-f]+>",
                       re.DOTALL | re.MULTILINE)


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The file AIDER_CHAT_HISTORY_FILE names, else the current folder's history."""
    named = env.get("AIDER_CHAT_HISTORY_FILE")
    return [Path(named).expanduser()] if named else [Path.cwd() / FILE_NAME]


def is_candidate(path: Path) -> bool:
    """The history of a folder aider ran in (a hidden file, which the walk lets through)."""
    return path.name == FILE_NAME


def looks_like_text(text: str) -> bool:
    """An aider history opens with a session header (after blank lines)."""
    return bool(_START.match(text.lstrip("\n").split("\n", 1)[0]))


def parse(path: Path, text: str, options: ImportOptions) -> list[Transcript]:
    if not looks_like_text(text):
        raise InvalidSession("not an aider chat history: no '# aider chat started at' line first")
    folder = path.resolve().parent.name or "aider"
    sessions = _sessions(text)
    kept = []
    for started, lines in sessions:
        skipped: Counter[str] = Counter()
        messages = _messages(lines, options, skipped)
        if any(m["role"] == "user" for m in messages):
            kept.append((started, messages, skipped))
    if not kept:
        raise NothingToImport("no session with a prompt")
    if len(kept) < len(sessions):  # aider started and quit without a prompt: say so once
        kept[0][2]["session without a prompt"] = len(sessions) - len(kept)
    transcripts = []
    for (day, clock), messages, skipped in kept:
        record: dict[str, Any] = {
            "sessionId": safe_session_id(ID_PREFIX, f"{folder}-{day}T{clock.replace(':', '-')}"),
            "channel": CHANNEL, "date": day, "topics": [folder], "messages": messages,
            "origin": origin(NAME, None, str(path.absolute().parent), path)}
        first_prompt = next(m["content"] for m in messages if m["role"] == "user")
        record["title"] = clip(first_prompt.split("\n", 1)[0], TITLE_CHARS)
        transcripts.append(Transcript.build(record, skipped))
    return transcripts


def _sessions(text: str) -> list[tuple[tuple[str, str], list[str]]]:
    """(start day and time, the session's lines) for each session in the file."""
    out: list[tuple[tuple[str, str], list[str]]] = []
    for line in text.split("\n"):
        match = _START.match(line)
        if match:
            day, hour, minute, second = match.groups()
            out.append(((day, f"{hour}:{minute}:{second}"), []))
        elif out:
            out[-1][1].append(line)
    return out


def _messages(lines: list[str], options: ImportOptions,
              skipped: Counter[str]) -> list[dict[str, Any]]:
    """Runs of user (`#### `), tool (`> `) and assistant lines become one message each."""
    runs: list[tuple[str, list[str]]] = []
    fenced = False  # inside an answer's ``` block every line is the answer's (">>>>>>> REPLACE")
    for line in lines:
        if fenced or line.startswith("```") and runs and runs[-1][0] == "assistant":
            fenced = fenced != line.startswith("```")
            role, body = "assistant", line.rstrip()
        elif line.startswith("#### ") or line == "####":
            role, body = "user", line[5:].rstrip()
        elif line.startswith("> ") or line == ">":
            role, body = "tool", line[2:].rstrip()
        elif not line.strip():
            if runs:
                runs[-1][1].append("")  # a blank line continues whatever came before it
            continue
        else:
            role, body = "assistant", line.rstrip()
            fenced = line.startswith("```")
        if runs and runs[-1][0] == role:
            runs[-1][1].append(body)
        else:
            runs.append((role, [body]))
    out: list[dict[str, Any]] = []
    for role, bodies in runs:
        content = "\n".join(bodies).strip()
        if role == "user":
            content = content.replace("<blank>", "").strip()
        if role == "tool":
            content = f"[aider] {clip(content, options.tool_chars)}" if content else ""
        if role == "assistant":
            content = _thinking(content, options, skipped)
        if not content:
            skipped[f"empty {role} block"] += 1
            continue
        out.append({"id": f"m{len(out) + 1}", "role": role, "content": content})
    return out


def _thinking(answer: str, options: ImportOptions, skipped: Counter[str]) -> str:
    """The answer without the model's thinking (or with it marked, under --thinking)."""
    def replace(match: re.Match[str]) -> str:
        thought = (match.group(1) or match.group(2) or "").strip()
        if options.thinking and thought:
            return f"[thinking] {thought}\n\n"
        skipped["thinking"] += 1
        return ""
    return _THINKING.sub(replace, answer).strip()
