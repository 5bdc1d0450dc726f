"""What every importer shares: options, the Transcript it returns, JSON-lines reading, compact
rendering of tool calls, and safe session ids."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from indexer.formats.ledger import Ledger
from models import InvalidSession, parse_time
from models.ids import MAX_ID_LENGTH

__all__ = [
    "DEFAULT_TOOL_CHARS",
    "FORMAT_NAMES",
    "READERS_VERSION",
    "ImportOptions",
    "NothingToImport",
    "Transcript",
    "block_texts",
    "clip",
    "describe_skipped",
    "folder_name",
    "label",
    "origin",
    "read_json_lines",
    "read_transcript_lines",
    "safe_session_id",
    "tool_call_text",
    "tool_result_text",
]

DEFAULT_TOOL_CHARS = 300
# The readers' version: raised when a reader keeps or leaves out something it did not before
# (an agent's new field, thinking it now recognizes), so that every input file is read again
# once instead of being skipped as unchanged. Sessions that come out the same stay as they are.
READERS_VERSION = 3
# every format `recall import` and `recall watch --format` take (registry.py checks the list)
FORMAT_NAMES = ("claude-code", "codex", "gemini", "cursor", "aider", "cline", "opencode", "copilot",
                "openclaw", "chatgpt", "zed", "kimi", "goose", "crush", "qwen", "continue", "warp",
                "windsurf", "grok", "kiro", "amp")


@dataclass(frozen=True, slots=True)
class ImportOptions:
    """How transcripts are turned into sessions. The defaults are what `recall index` uses."""

    format: str | None = None  # None: recognize each file by its content
    tool_chars: int = DEFAULT_TOOL_CHARS  # tool inputs and outputs are cut to this many characters
    thinking: bool = False  # keep the assistant's thinking blocks
    since: str | None = None  # YYYY-MM-DD: only sessions with activity on or after this day
    deleted: bool = False  # also read transcripts the agent marked deleted (OpenClaw `.deleted.*`)

    def fingerprint(self) -> str:
        """What changes the sessions read from a file besides its bytes (these options, the
        readers' version), so a file read once another way is not skipped as unchanged."""
        parts = [f"readers={READERS_VERSION}"]
        if self.tool_chars != DEFAULT_TOOL_CHARS:
            parts.append(f"tool_chars={self.tool_chars}")
        if self.thinking:
            parts.append("thinking")
        if self.since:
            parts.append(f"since={self.since}")
        if self.deleted:
            parts.append("deleted")
        return ";".join(parts)

    def keeps(self, transcript: Transcript) -> bool:
        if not self.since:
            return True
        last = transcript.last_activity or transcript.record.get("date") or ""
        return str(last)[:10] >= self.since


@dataclass(frozen=True, slots=True)
class Transcript:
    """One session read from a transcript, in the raw record shape that parse_session accepts."""

    record: dict[str, Any]
    last_activity: str | None  # ISO time of the newest message kept
    skipped: dict[str, int] = field(default_factory=dict)  # records left out, by reason

    @classmethod
    def build(cls, record: dict[str, Any], ledger: Ledger) -> Transcript:
        """The session of `record`; `ledger` holds its records' fates (the file's, or the
        session's own where a file holds several)."""
        times = [t for t in (parse_time(m.get("time")) for m in record["messages"]) if t]
        if "date" not in record and times:
            record["date"] = times[0][:10]
        left_out = ledger.left_out_reasons()
        left_out.update(ledger.parts_left_out)
        return cls(record, max(times) if times else None, dict(sorted(left_out.items())))


class NothingToImport(InvalidSession):
    """A readable transcript that holds no conversation (metadata, an empty or sub-agent file).

    load_file turns it into "no sessions"; it subclasses InvalidSession so that any path that
    does not expect it still rejects one file rather than stopping a batch."""


TORN, DAMAGED = "torn last line", "damaged line (unreadable JSON)"


def read_json_lines(text: str, ledger: Ledger | None = None) -> tuple[list[tuple[int, Any]], int]:
    """(line number, value) for every readable line, and 1 if the last line was torn.

    Each non-empty line is a record of `ledger` (`line N`). A torn last line is what a crash (or
    a live writer) leaves; an unreadable line elsewhere is damage: left out with its reason while
    the rest of the session is kept, unless no line could be read at all or damaged lines are
    as many as readable ones (then this is not a transcript: InvalidSession). Lines are split on
    newlines only: JSON strings may hold U+2028 and other characters that str.splitlines() would
    also split on."""
    ledger = ledger if ledger is not None else Ledger()
    lines = text.split("\n")
    last = max((n for n, line in enumerate(lines, start=1) if line.strip()), default=0)
    items: list[tuple[int, Any]] = []
    bad: list[int] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        ledger.read(f"line {number}")
        try:
            items.append((number, json.loads(line)))
        except (json.JSONDecodeError, RecursionError):
            bad.append(number)
            ledger.left_out(f"line {number}", TORN if number == last else DAMAGED)
    damaged = [n for n in bad if n != last]
    if damaged and len(damaged) >= len(items):
        more = f" and {len(damaged) - 5} more" if len(damaged) > 5 else ""
        raise InvalidSession(f"unreadable JSON on lines {damaged[:5]}{more}")
    return items, int(last in bad)


def read_transcript_lines(text: str, ledger: Ledger) -> list[tuple[int, Any]]:
    """read_json_lines for a transcript: its readable lines, each a record of `ledger`; an
    empty file has nothing to import."""
    items, _ = read_json_lines(text, ledger)
    if not items:
        raise NothingToImport("the file is empty" if not ledger.fates() else ledger.describe())
    return items


def describe_skipped(ledger: Ledger) -> str:
    """The commonest reasons a file's records were left out, for a "nothing to import" message."""
    return ledger.describe()


def origin(agent: str, raw_id: Any, cwd: Any, path: Path) -> dict[str, str]:
    """A record's `origin` (models.Origin): the agent, its own id for the session, the folder
    it ran in and the transcript file, for `recall resume`."""
    out = {"agent": agent, "path": str(path.absolute())}
    if isinstance(raw_id, str) and raw_id.strip():
        out["id"] = raw_id.strip()
    if isinstance(cwd, str) and cwd.strip():
        out["cwd"] = cwd.strip()
    return out


def folder_name(path: str | None) -> str | None:
    """The last part of a working folder, Windows or POSIX (a session's project topic)."""
    if not path:
        return None
    pure = PureWindowsPath(path) if "\\" in path else PurePosixPath(path)
    return pure.name or None


def label(value: Any) -> str:
    """A type or role name fit for a count's key and a log line: short, and never content."""
    if isinstance(value, str) and len(value) <= 40 and value.isprintable():
        return value
    return f"({type(value).__name__})"


def block_texts(content: Any, media: tuple[str, ...]) -> list[str]:
    """The text pieces of a content value: a string, or a list of strings and text blocks; a
    block of one of the `media` types stands as a marker ("[image]")."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") in media:
            parts.append(f"[{block['type']}]")
    return parts


def clip(text: str, limit: int) -> str:
    text = text.strip()
    if limit <= 0:
        return ""
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


def tool_call_text(name: Any, arguments: Any, limit: int) -> str:
    """`[tool: Bash] {"command": "ls"}`, the input cut to limit characters."""
    label = name if isinstance(name, str) and name else "tool"
    if isinstance(arguments, str):
        shown = arguments
    elif arguments in (None, {}, []):
        shown = ""
    else:
        shown = json.dumps(arguments, ensure_ascii=False, default=str)
    shown = clip(shown, limit)
    return f"[tool: {label}] {shown}".rstrip()


def tool_result_text(name: str | None, output: str, is_error: bool, limit: int) -> str:
    """`[tool result: Bash] output…` or `[tool error: Bash] …`, the output cut to limit."""
    kind = "tool error" if is_error else "tool result"
    label = f"{kind}: {name}" if name else kind
    return f"[{label}] {clip(output, limit)}".rstrip()


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def safe_session_id(prefix: str, raw_id: Any) -> str:
    """`<prefix>-<id>` using only letters, digits, '-' and '_'; anything else (or an overlong id)
    is replaced and a short hash of the original keeps the id stable and distinct."""
    original = str(raw_id).strip() if raw_id is not None else ""
    cleaned = _UNSAFE.sub("-", original).strip("-")
    budget = MAX_ID_LENGTH - len(prefix) - 13
    if cleaned and cleaned == original and len(cleaned) <= budget:
        return f"{prefix}-{cleaned}"
    digest = hashlib.sha1(original.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{prefix}-{cleaned[:budget]}-{digest}" if cleaned else f"{prefix}-{digest}"
