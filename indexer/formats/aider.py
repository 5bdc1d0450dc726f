"""Aider chat histories: `.aider.chat.history.md` in the folder aider ran in (or the file
`AIDER_CHAT_HISTORY_FILE` names). One Markdown file holds every session of that folder.

What aider writes (Aider-AI/aider aider/io.py @ d1384e9d5f0819c9b465f7fe99c700ba3798e2d1:
`InputOutput.__init__`, `user_input`, `ai_output`, `tool_output` through `append_chat_history`):

- `\n# aider chat started at YYYY-MM-DD HH:MM:SS\n\n` opens a session;
- what the user typed is `#### ` and a line of it, each line ending with two spaces (a
  multi-line prompt is several `#### ` lines; an empty one is `#### <blank>`), after a blank line;
- aider's own output (banner, "Added … to the chat", "Applied edit to …", shell output) is `> `
  and the message, ending with two spaces: tool output, not the user's words. A message of
  several lines gets `> ` on its first line only, so its next lines run to the one ending with
  the two spaces;
- the model's answer is written as it is, after a blank line. A reasoning model's thinking,
  which aider prints between `-----` / `**► THINKING**` and `-----` / `**► ANSWER**`
  (aider/reasoning_tags.py), is left out unless asked for.

The records of the ledger are the file's blocks, each named by its first line (`line N`):

- a **session header**: one `# aider chat started at` line;
- a **prompt**: a run of consecutive `#### ` lines (a blank line ends it);
- **tool output**: a run of consecutive `> ` lines (a blank line ends it), with the lines that
  continue a message of several lines. Continuations are followed only in a file that ends
  its tool lines the way aider does (some `> ` line ends with two spaces); elsewhere a line
  without `> ` is the answer's;
- a **confirmation**: aider's question with the answer as typed, which some releases write as a
  `#### ` line ("Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]:
  all"). It is aider's output, not a prompt. aider then writes the same question with the
  answer it took (`> Add file to the chat? …: a`): when that tool output comes next, the
  confirmation is merged into it; otherwise it is tool output of its own;
- an **answer**: a run of any other lines, blank lines included, up to the next prompt, tool
  output or header; inside a ``` fence or the model's thinking every line is the answer's (an
  edit block's `>>>>>>> REPLACE` included).

A prompt becomes a `user` message, tool output one compact `tool` message (cut to
`tool_chars`), an answer an `assistant` message; an empty block is left out. A session without
a prompt is not imported: its blocks are left out ("session without a prompt").

A history may begin with the tail of a session whose header was cut off (aider's own
tests/fixtures/chat-history.md does). That leading part is a session of its own when it holds a
prompt: having no start time, it takes the time of the next session header (not the file's
modification time, which moves as the file grows: the session's id must not) and the id
`aider-<folder>-before-<that time>`; without a prompt its blocks are left out ("session header
cut off"). The rest of the file imports as usual.

Lines carry no times, so every message is dated by its session's start. A session's id is the
folder's name and its start time (`aider-<folder>-<YYYY-MM-DDTHH-MM-SS>`), stable across
re-imports as the file grows; the folder is the session's topic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["CHANNEL", "FILE_NAME", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like_text", "parse"]

NAME = "aider"
CHANNEL = "aider"
ID_PREFIX = "aider"
FILE_NAME = ".aider.chat.history.md"
TITLE_CHARS = 80
_START = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})\s*$")
_STARTS = re.compile(r"^# aider chat started at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\s*$",
                     re.MULTILINE)
_AIDER_LINE = re.compile(r"^(?:#### |> )", re.MULTILINE)
# a question aider asked and the answer given, which some releases write as a `#### ` line
# ("Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all"); aider
# writes the others as `> ` lines (io.py, confirm_ask)
_CONFIRMATION = re.compile(r"^#### .*\? \(Y\)es/\(N\)o.*\]: ?\S*\s*$")
# aider's rendering of a reasoning model's thinking, and the raw tags it replaces
_THINKING = re.compile(r"(?:^-+\n)?^\*\*► THINKING\*\*\s*\n(.*?)(?:^-+\n)?^\*\*► ANSWER\*\*\s*$"
                       r"|<thinking-content-[0-9a-f]+>(.*?)</thinking-content-[0-9a-f]+>",
                       re.DOTALL | re.MULTILINE)
NO_PROMPT, CUT_OFF = "session without a prompt", "session header cut off"
# what opens a part of an answer in which every line is the answer's, and what closes it: a code
# fence (an edit block's ">>>>>>> REPLACE"), a reasoning model's thinking (its "> " lines)
_FENCES = (("```", "```"), ("<thinking-content-", "</thinking-content-"),
           ("**► THINKING**", "**► ANSWER**"))


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The file AIDER_CHAT_HISTORY_FILE names, else the current folder's history."""
    named = env.get("AIDER_CHAT_HISTORY_FILE")
    return [Path(named).expanduser()] if named else [Path.cwd() / FILE_NAME]


def is_candidate(path: Path) -> bool:
    """The history of a folder aider ran in (a hidden file, which the walk lets through)."""
    return path.name == FILE_NAME


def looks_like_text(text: str) -> bool:
    """An aider history: it opens with a session header (after blank lines), or it begins with
    the tail of a session whose header was cut off (prompt or tool lines before the first
    header)."""
    if _START.match(text.lstrip("\n").split("\n", 1)[0]):
        return True
    first = _STARTS.search(text)
    return first is not None and _AIDER_LINE.search(text, 0, first.start()) is not None


@dataclass
class _Block:
    kind: str  # header, user, tool, assistant
    number: int  # its first line, from 1
    bodies: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"line {self.number}"


@dataclass
class _Session:
    started: tuple[str, str] | None  # day and time from its header; None for a cut-off head
    blocks: list[_Block]


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    # aider on Windows writes its history in text mode: lines end with "\r\n"
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if not any(_START.match(line) for line in lines):
        raise InvalidSession("not an aider chat history: no '# aider chat started at' line")
    folder = path.resolve().parent.name or "aider"
    transcripts: list[Transcript] = []
    used: set[str] = set()
    sessions = _sessions(lines)
    for n, session in enumerate(sessions):
        own = Ledger()  # the session's; absorbed into the file's, or dropped with its session
        messages = _messages(session.blocks, options, own)
        if not any(m["role"] == "user" for m in messages):
            for block in session.blocks:  # in the file's ledger: no session holds them
                ledger.left_out(block.where, CUT_OFF if session.started is None else NO_PROMPT)
            continue
        if session.started is None:  # the next session's start, which this one preceded
            day, clock = next(s.started for s in sessions[n + 1:] if s.started is not None)
            raw_id, name = f"{folder}-before-{day}T{clock.replace(':', '-')}", f"before {day} {clock}"
        else:
            day, clock = session.started
            raw_id, name = f"{folder}-{day}T{clock.replace(':', '-')}", f"{day} {clock}"
            own.imported(session.blocks[0].where, "session start")
        raw_id = _unique(raw_id, used)
        record: dict[str, Any] = {
            "sessionId": safe_session_id(ID_PREFIX, raw_id),
            "channel": CHANNEL, "date": day, "topics": [folder], "messages": messages,
            "origin": origin(NAME, None, str(path.absolute().parent), path)}
        first_prompt = next(m["content"] for m in messages if m["role"] == "user")
        record["title"] = clip(first_prompt.split("\n", 1)[0], TITLE_CHARS)
        transcripts.append(Transcript.build(record, own))
        ledger.absorb(own, prefix=f"session {name}: ")
    if not transcripts:
        raise NothingToImport("no session with a prompt")
    return transcripts


def _unique(raw_id: str, used: set[str]) -> str:
    """Two sessions started in the same second (aider run by a script) keep distinct ids."""
    unique, n = raw_id, 1
    while unique in used:
        n += 1
        unique = f"{raw_id}-{n}"
    used.add(unique)
    return unique


def _sessions(lines: list[str]) -> list[_Session]:
    """The file's sessions, each with its blocks: a cut-off head first when the file has one."""
    marked = any(_kind(line) == "tool" and line.endswith("  ") for line in lines)
    starts = [i for i, line in enumerate(lines) if _START.match(line)]
    out = []
    head = _blocks(lines, 0, starts[0], marked)
    if head:
        out.append(_Session(None, head))
    for k, i in enumerate(starts):
        match = _START.match(lines[i])
        assert match is not None
        day, hour, minute, second = match.groups()
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        out.append(_Session((day, f"{hour}:{minute}:{second}"),
                            [_Block("header", i + 1), *_blocks(lines, i + 1, end, marked)]))
    return out


def _kind(line: str) -> str:
    if _CONFIRMATION.match(line):
        return "confirmation"  # aider's own question, with the user's answer
    if line.startswith("#### ") or line.rstrip() == "####":
        return "user"
    if line.startswith("> ") or line.rstrip() == ">":
        return "tool"
    return "blank" if not line.strip() else "assistant"


def _blocks(lines: list[str], start: int, end: int, marked: bool) -> list[_Block]:
    """The blocks of lines[start:end] (see the module docstring)."""
    blocks: list[_Block] = []
    current: _Block | None = None
    fenced = ""  # inside an answer's ``` block (or its thinking): the line that ends it
    continuing = False  # inside a tool message of several lines, until one ends with "  "
    for i in range(start, end):
        line = lines[i]
        kind = _kind(line)
        if continuing and current is not None and kind in ("blank", "assistant"):
            current.bodies.append(line.rstrip())
            continuing = not line.endswith("  ")
            continue
        continuing = False
        if fenced and current is not None:
            current.bodies.append(line.rstrip())
            fenced = "" if line.startswith(fenced) else fenced
            continue
        if kind == "blank":
            if current is not None and current.kind == "assistant":
                current.bodies.append("")  # an answer goes on over blank lines
            else:
                current = None  # a blank line ends a prompt or tool output
            continue
        if current is None or current.kind != kind or kind == "confirmation":
            current = _Block(kind, i + 1)
            blocks.append(current)
        if kind == "assistant":
            current.bodies.append(line.rstrip())
            fenced = next((end for start, end in _FENCES if line.startswith(start)), "")
        else:
            current.bodies.append((line[5:] if line.startswith("####") else line[2:]).rstrip())
            continuing = kind == "tool" and marked and not line.endswith("  ")
    return blocks


def _messages(blocks: list[_Block], options: ImportOptions,
              ledger: Ledger) -> list[dict[str, Any]]:
    """A message for each prompt, tool output and answer block; each block gets its fate."""
    out: list[dict[str, Any]] = []
    for n, block in enumerate(blocks):
        ledger.read(block.where)
        if block.kind == "header":
            continue  # its fate comes with its session's
        content = "\n".join(block.bodies).strip()
        if block.kind == "confirmation":
            after = blocks[n + 1] if n + 1 < len(blocks) else None
            if after is not None and after.kind == "tool" and after.bodies \
                    and _question(after.bodies[0]) == _question(content):
                ledger.merged(block.where, f"aider's record of the same question on {after.where}")
                continue
            block.kind = "tool"
        if block.kind == "user":
            content = content.replace("<blank>", "").strip()
        elif block.kind == "tool":
            content = f"[aider] {clip(content, options.tool_chars)}" if content else ""
        else:
            content = _thinking(content, options, ledger)
        if not content:
            ledger.left_out(block.where, f"empty {block.kind} block")
            continue
        ledger.imported(block.where)
        out.append({"id": f"m{len(out) + 1}", "role": block.kind, "content": content})
    return out


def _question(line: str) -> str:
    """A confirmation's question without the answer given to it."""
    return line.rpartition("]:")[0].strip()


def _thinking(answer: str, options: ImportOptions, ledger: Ledger) -> str:
    """The answer without the model's thinking (or with it marked, under --thinking)."""
    def replace(match: re.Match[str]) -> str:
        thought = (match.group(1) or match.group(2) or "").strip()
        if options.thinking and thought:
            return f"[thinking] {thought}\n\n"
        ledger.part_left_out("thinking")
        return ""
    return _THINKING.sub(replace, answer).strip()


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.TEXT,),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("AIDER_CHAT_HISTORY_FILE",),
    resume=Resume("aider --restore-chat-history",
                  "aider keeps one history per folder and restores all of it, not one session: "
                  "run it in cwd"),
    sniff_text=looks_like_text, read_text=parse)
