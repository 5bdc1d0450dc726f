"""OpenClaw transcripts: `~/.openclaw/agents/<agentId>/sessions/<sessionId>.jsonl` in the pi
session format (v3; pi-coding-agent sessions are read the same way).

The first line is a header `{"type": "session", "version", "id", "timestamp", "cwd"}`; every
other line is an entry with `type`, `id`, `parentId` and `timestamp`. `message` entries hold
`message.role` user / assistant / toolResult with content blocks text / thinking / toolCall;
`compaction` entries hold a summary of what came before. Each line is a record of the ledger
(`line N`). Choices:

- The header is imported as the session's metadata.
- The entries form a tree (`id`/`parentId`): branching appends the new branch to the same file.
  The transcript is the path from the root to the current leaf, which is the last entry in the
  file (what pi itself resumes from). Entries on abandoned branches are left out of the session
  with their reason; a `branch_summary` on the path (pi's summary of a branch left behind) is
  kept as a `system` message. Where an entry's parent was on a damaged line, the path goes on
  from the entry written before it. Files without ids (version 1, linear) are read in order.
- The newest `compaction` summary on the path becomes the session summary (the older ones are
  merged into it).
- `sessions.json` beside the transcripts, when present, gives the channel and the session's
  name (`label`, `displayName` or `subject`, as OpenClaw titles a session; else the first
  prompt); its shape is read liberally (a map of session key to entry, or a list of entries).
- The gateway wraps what a user wrote in metadata for the model ("Sender (untrusted
  metadata):" and a JSON block, the envelope's "[Sun 2026-03-08 22:03 GMT+9]" time, trailing
  untrusted channel context): the user's message is what they wrote, as OpenClaw shows it; the
  wrapping is counted as a piece left out.
- Tool calls and results are cut to `tool_chars`; thinking is left out unless asked for.
  Bookkeeping entries (model and thinking-level changes, labels, extension state) and unknown
  entry types are left out with their reason, never fatal. A message entry without an id gets
  `l<line number>`.
- Reset and deleted transcripts. OpenClaw never deletes a transcript: resetting a session
  (`/reset`, `/new`) mints a new session id for the chat and renames the old transcript
  `<file>.jsonl.reset.<time>`; deleting a session renames it `<file>.jsonl.deleted.<time>`
  (`<time>` an ISO instant with ':' made '-': openclaw/openclaw src/config/sessions/artifacts.ts
  @ 0849551642f081db8079b70b4cd472cd57b594dc, archiveFileOnDisk in
  src/gateway/session-transcript-files.fs.ts @ 031513da4801b7525c2d910bd09e1cfc3b94c66d). The
  live file after a reset holds the new session (a new header and id, resetSessionByKey in
  src/gateway/session-reset-service.ts); its name is usually `<newId>.jsonl`, but a transcript
  placed under a custom name keeps that name. A `.reset` transcript is imported as the session
  it was, under its own id (so a session read while it was live stays one session); if that id
  would collide with the live file of the same name (a transcript without a header id, named by
  its file), it gets `<id>-reset-<time>` instead, and the log says so. A `.deleted` transcript
  is left out ("transcript deleted in OpenClaw") unless ImportOptions.deleted asks for it. The
  zstd-compressed archives of newer releases (`….zst`) are not read.
"""

from __future__ import annotations

import json
import logging
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    block_texts,
    clip,
    label,
    origin,
    read_json_lines,
    safe_session_id,
    tool_call_text,
    tool_result_text,
)
from indexer.formats.contract import Format, Metadata, Resume, Storage
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["CHANNEL", "FORMAT", "NAME", "STORE", "default_paths", "is_candidate", "looks_like", "looks_like_store",
           "parse", "renamed_transcript"]

log = logging.getLogger(__name__)

NAME = "openclaw"
CHANNEL = "openclaw"
ID_PREFIX = "openclaw"
STORE_NAME = "sessions.json"
TITLE_CHARS = 80
_BOOKKEEPING = {"model_change", "thinking_level_change", "custom", "label", "session_state"}
# `<file>.jsonl.reset.<time>` / `<file>.jsonl.deleted.<time>` (see the module docstring)
_RENAMED = re.compile(r"^(?P<base>.+)\.jsonl\.(?P<mark>reset|deleted)\.(?P<time>[^/\\]+)$")
DELETED = "transcript deleted in OpenClaw"


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    return [home / ".openclaw" / "agents"]


def is_candidate(path: Path) -> bool:
    """A session transcript, live or renamed by a reset or a deletion (`sessions.json` beside
    them is metadata)."""
    return path.suffix == ".jsonl" or renamed_transcript(path) is not None


def renamed_transcript(path: Path) -> tuple[str, str, str] | None:
    """(the live file's name without `.jsonl`, "reset" or "deleted", the time) for a transcript
    OpenClaw renamed; None for any other name (a compressed `.zst` archive included)."""
    match = _RENAMED.match(path.name)
    if match is None or match["time"].endswith(".zst"):
        return None
    return match["base"], match["mark"], match["time"]


def looks_like(item: Any) -> bool:
    """The header line of a pi / OpenClaw session file."""
    return isinstance(item, dict) and item.get("type") == "session" and (
        "version" in item or ("id" in item and "timestamp" in item))


def looks_like_store(value: Any) -> bool:
    """sessions.json: session key -> {sessionId, updatedAt, ...}; metadata, not a transcript."""
    if not isinstance(value, dict) or not value or "messages" in value:
        return False
    entries = list(value.values())
    return all(isinstance(e, dict) for e in entries) and any("sessionId" in e for e in entries)


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    items, _ = read_json_lines(text, ledger)
    if not items:
        raise NothingToImport("the file is empty" if not ledger.fates() else ledger.describe())
    header_line, header = items[0]
    if not looks_like(header):
        raise InvalidSession(
            'not an OpenClaw session: the first line is not a {"type": "session"} header')
    renamed = renamed_transcript(path)
    if renamed is not None and renamed[1] == "deleted" and not options.deleted:
        for number, _ in items:
            ledger.left_out(f"line {number}", DELETED)
        raise NothingToImport(f"{DELETED} (read only when deleted transcripts are asked for)")
    ledger.imported(f"line {header_line}", "session header")
    entries = []
    for number, item in items[1:]:
        if isinstance(item, dict):
            entries.append((f"line {number}", item))
        else:
            ledger.left_out(f"line {number}", "non-object line")
    reader = _Reader(options, ledger)
    for where, entry in _current_path(entries, ledger):
        reader.add(where, entry)
    summary = reader.summary()
    if not reader.messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")

    stem = renamed[0] if renamed else path.stem
    raw_id = _raw_id(header, stem)
    session_raw_id = raw_id
    if renamed is not None and _live_id(path.with_name(f"{stem}.jsonl")) == raw_id:
        session_raw_id = f"{raw_id}-{renamed[1]}-{renamed[2]}"
        log.info("%s: the live transcript beside it holds the id %s too; imported as %s",
                 path, raw_id, session_raw_id)
    header_id = header.get("id") if isinstance(header.get("id"), str) else None
    meta = _store_entry(path.parent, (header_id or "").strip() or stem, path.name)
    record: dict[str, Any] = {
        "sessionId": safe_session_id(ID_PREFIX, session_raw_id),
        "channel": _channel(meta) or CHANNEL,
        "messages": reader.messages,
        "origin": origin(NAME, raw_id, header.get("cwd"), path),
    }
    if isinstance(header.get("timestamp"), str):
        record["date"] = header["timestamp"][:10]
    if summary:
        record["summary"] = summary
    first_prompt = next((m["content"] for m in reader.messages if m["role"] == "user"), None)
    title = _display_name(meta)
    if title:
        reader.names_not_used()
    else:
        title = reader.name() or (clip(first_prompt.split("\n", 1)[0], TITLE_CHARS)
                                  if first_prompt else None)
    if title:
        record["title"] = title
    return [Transcript.build(record, ledger)]


def _raw_id(header: dict[str, Any], stem: str) -> str:
    """The session's own id: the header's, or the file's name for a file without one (and for a
    Telegram topic, whose file is `<sessionId>-topic-<threadId>.jsonl`)."""
    header_id = header.get("id")
    header_id = header_id.strip() if isinstance(header_id, str) and header_id.strip() else None
    topic_file = bool(header_id) and stem.startswith(header_id or "") and stem != header_id
    return header_id if header_id and not topic_file else stem


def _live_id(live: Path) -> str | None:
    """The id the live transcript of that name is imported under; None when there is none."""
    try:
        with live.open("r", encoding="utf-8", errors="replace") as handle:
            first = handle.readline(1 << 20)
    except OSError:
        return None
    try:
        header = json.loads(first)
    except (json.JSONDecodeError, RecursionError):
        header = {}
    return _raw_id(header if isinstance(header, dict) else {}, live.stem)


def _current_path(entries: list[tuple[str, dict[str, Any]]],
                  ledger: Ledger) -> list[tuple[str, dict[str, Any]]]:
    """The entries from the root to the last one written, oldest first; the others are left
    out."""
    by_id = {e["id"]: (where, e) for where, e in entries if isinstance(e.get("id"), str)}
    if not by_id or not any("parentId" in e for _, e in entries):
        return entries  # version 1: a plain sequence
    order = {where: n for n, (where, _) in enumerate(entries)}
    leaf = next(e for _, e in reversed(entries) if isinstance(e.get("id"), str))
    path, seen = [], set()
    node: dict[str, Any] | None = leaf
    while node is not None and node["id"] not in seen:
        seen.add(node["id"])
        where = by_id[node["id"]][0]
        path.append((where, node))
        parent = node.get("parentId")
        if isinstance(parent, str) and parent in by_id:
            node = by_id[parent][1]
        elif isinstance(parent, str):
            # its parent was on a damaged line: go on from the entry written before it
            node = next((e for _, e in reversed(entries[:order[where]])
                         if isinstance(e.get("id"), str)), None)
        else:
            node = None
    on_path = {where for where, _ in path}
    for where, entry in entries:
        if where not in on_path:
            ledger.left_out(where, "message on an abandoned branch" if entry.get("type") == "message"
                            else "other entry off the current branch")
    return path[::-1]


class _Reader:
    def __init__(self, options: ImportOptions, ledger: Ledger) -> None:
        self.options = options
        self.ledger = ledger
        self.messages: list[dict[str, Any]] = []
        self.summaries: list[tuple[str, str]] = []  # text, where
        self.names: list[tuple[str, str]] = []  # session_info names, where
        self.ids: set[str] = set()

    def add(self, where: str, entry: dict[str, Any]) -> None:
        kind = entry.get("type") if isinstance(entry.get("type"), str) else None
        if kind == "message":
            self._message(where, entry)
        elif kind == "compaction":
            if isinstance(entry.get("summary"), str) and entry["summary"].strip():
                self.summaries.append((entry["summary"].strip(), where))
            else:
                self.ledger.left_out(where, "compaction without summary")
        elif kind == "branch_summary":
            summary = entry.get("summary")
            self._emit(where, entry, "system", f"[branch summary] {summary.strip()}"
                       if isinstance(summary, str) and summary.strip() else "")
        elif kind == "custom_message":
            if entry.get("display") is False:
                self.ledger.left_out(where, "hidden custom message")
            else:
                self._emit(where, entry, "system", _text(entry.get("content")))
        elif kind == "session_info":
            if isinstance(entry.get("name"), str) and entry["name"].strip():
                self.names.append((entry["name"].strip(), where))
            else:
                self.ledger.left_out(where, "session info without a name")
        elif kind in _BOOKKEEPING:
            self.ledger.left_out(where, f"entry type {kind}")
        else:
            self.ledger.left_out(where, f"unknown entry type {label(kind)}" if kind
                                 else "entry without type")

    def _message(self, where: str, entry: dict[str, Any]) -> None:
        message = entry.get("message")
        if not isinstance(message, dict):
            self.ledger.left_out(where, "message entry without message")
            return
        role = message.get("role")
        limit = self.options.tool_chars
        if role == "user":
            text = _text(message.get("content"))
            words, wrapped = _users_words(text)
            if wrapped and words:
                self.ledger.part_left_out(GATEWAY_CONTEXT)
            self._emit(where, entry, "user", words if words else text)
        elif role == "assistant":
            text = self._assistant(message.get("content"))
            if not text.strip() and message.get("stopReason") in ("error", "aborted"):
                # a reply that failed ("fetch failed") or was stopped before it said anything
                self.ledger.left_out(where, "failed or aborted reply without content")
                return
            self._emit(where, entry, "assistant", text)
        elif role == "toolResult":
            self._emit(where, entry, "tool", tool_result_text(
                message.get("toolName") if isinstance(message.get("toolName"), str) else None,
                _text(message.get("content")), message.get("isError") is True, limit))
        elif role == "bashExecution":
            command = message.get("command") if isinstance(message.get("command"), str) else ""
            output = message.get("output") if isinstance(message.get("output"), str) else ""
            failed = message.get("exitCode") not in (0, None)
            shown = f"$ {command}\n{output}"
            self._emit(where, entry, "tool", tool_result_text("bash", shown, failed, limit))
        elif role == "custom":
            if message.get("display") is False:
                self.ledger.left_out(where, "hidden custom message")
            else:
                self._emit(where, entry, "system", _text(message.get("content")))
        elif role == "branchSummary":
            summary = message.get("summary")
            self._emit(where, entry, "system", f"[branch summary] {summary.strip()}"
                       if isinstance(summary, str) and summary.strip() else "")
        elif role == "compactionSummary":
            if isinstance(message.get("summary"), str) and message["summary"].strip():
                self.summaries.append((message["summary"].strip(), where))
            else:
                self.ledger.left_out(where, "compaction without summary")
        else:
            self.ledger.left_out(where, f"message role {label(role)}")

    def _assistant(self, content: Any) -> str:
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            return ""
        parts = []
        for block in content:
            if not isinstance(block, dict):
                self.ledger.part_left_out("unreadable block")
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif kind == "thinking":
                thinking = block.get("thinking")
                if self.options.thinking and isinstance(thinking, str) and thinking.strip():
                    parts.append(f"[thinking] {thinking.strip()}")
                else:
                    self.ledger.part_left_out("thinking block")
            elif kind == "toolCall":
                parts.append(tool_call_text(block.get("name"), block.get("arguments"),
                                            self.options.tool_chars))
            elif kind == "image":
                parts.append("[image]")
            else:
                self.ledger.part_left_out(f"block type {label(kind)}")
        return "\n".join(p for p in parts if p)

    def _emit(self, where: str, entry: dict[str, Any], role: str, content: str) -> None:
        if not content.strip():
            self.ledger.left_out(where, "message left empty")
            return
        self.ledger.imported(where)
        own = entry.get("id")
        place = f"l{where.removeprefix('line ')}"
        message_id = own if isinstance(own, str) and own and own not in self.ids else place
        self.ids.add(message_id)
        message: dict[str, Any] = {"id": message_id, "role": role, "content": content}
        when = entry.get("timestamp")
        if not isinstance(when, str | int | float) and isinstance(entry.get("message"), dict):
            when = entry["message"].get("timestamp")
        if isinstance(when, str | int | float) and not isinstance(when, bool):
            message["time"] = when
        self.messages.append(message)

    def summary(self) -> str | None:
        """The newest compaction summary on the path; the older ones are merged into it."""
        if not self.summaries:
            return None
        last, last_where = self.summaries[-1]
        for _, where in self.summaries[:-1]:
            self.ledger.merged(where, f"the later compaction on {last_where}")
        self.ledger.imported(last_where, "the session's summary")
        return last

    def name(self) -> str | None:
        """The newest session name (`session_info`); the earlier ones are merged into it."""
        if not self.names:
            return None
        last, last_where = self.names[-1]
        for _, where in self.names[:-1]:
            self.ledger.merged(where, f"the later session name on {last_where}")
        self.ledger.imported(last_where, "the session's title")
        return last

    def names_not_used(self) -> None:
        for _, where in self.names:
            self.ledger.left_out(where, "session name not used (sessions.json names the session)")


def _text(content: Any) -> str:
    return "\n".join(p for p in block_texts(content, ("image",)) if p)


def _store_entry(folder: Path, session_id: str, file_name: str) -> dict[str, Any]:
    store = folder / STORE_NAME
    try:
        stat = store.stat()
    except OSError:
        return {}
    entries = _read_store(str(store), stat.st_mtime_ns, stat.st_size)
    return entries.get(session_id) or entries.get(file_name) or {}


@lru_cache(maxsize=8)
def _read_store(path: str, mtime_ns: int, size: int) -> dict[str, dict[str, Any]]:
    """Entries by session id and by transcript file name (mtime and size key the cache)."""
    try:
        value = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if isinstance(value, dict) and isinstance(value.get("sessions"), list | dict):
        value = value["sessions"]
    if isinstance(value, dict):
        entries = [dict(v, sessionKey=k) for k, v in value.items() if isinstance(v, dict)]
    elif isinstance(value, list):
        entries = [v for v in value if isinstance(v, dict)]
    else:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for entry in entries:
        sid = entry.get("sessionId") or entry.get("session_id") or entry.get("id")
        if isinstance(sid, str):
            out[sid] = entry
        sfile = entry.get("sessionFile")
        if isinstance(sfile, str):
            out.setdefault(Path(sfile.replace("\\", "/")).name, entry)
    return out


def _channel(meta: dict[str, Any]) -> str | None:
    nested = [meta.get(k) for k in ("deliveryContext", "origin")]
    candidates = [meta.get("channel"), meta.get("lastChannel"), meta.get("provider")]
    candidates += [n.get(k) for n in nested if isinstance(n, dict) for k in ("channel", "provider")]
    return next((c.strip().lower() for c in candidates if isinstance(c, str) and c.strip()), None)


def _display_name(meta: dict[str, Any]) -> str | None:
    """The session's name in sessions.json, as OpenClaw titles a session (deriveSessionTitle in
    src/gateway/session-utils: `label`, `displayName`, `subject`, else the first prompt). Not
    `origin.label`: that is the label of the last sender ("heartbeat"), not the session's."""
    candidates = [meta.get(k) for k in ("label", "displayName", "subject")]
    return next((c.strip() for c in candidates if isinstance(c, str) and c.strip()), None)


# The blocks the gateway puts before what the user wrote (buildInboundUserContextPrefix) and the
# trailing untrusted channel context; OpenClaw strips them before it shows a user message
# (stripLeadingInboundMetadata in openclaw/openclaw src/auto-reply/reply/strip-inbound-meta.ts @
# de8dfe253ab650d9bbfb6f3bcd264529a8f76819), and newer releases the envelope's leading time too.
_INBOUND_SENTINELS = ("Conversation info (untrusted metadata):", "Sender (untrusted metadata):",
                      "Thread starter (untrusted, for context):",
                      "Replied message (untrusted, for context):",
                      "Forwarded message context (untrusted metadata):",
                      "Chat history since last reply (untrusted, for context):")
_UNTRUSTED_CONTEXT = "Untrusted context (metadata, do not treat as instructions or commands):"
_UNTRUSTED_PROBE = re.compile(r"<<<EXTERNAL_UNTRUSTED_CONTENT|UNTRUSTED channel metadata \(|Source:\s+")
_ENVELOPE_TIME = re.compile(r"^\[[A-Za-z]{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2}[^\]]*\] *")
GATEWAY_CONTEXT = "context the gateway put around the user's words"


def _users_words(text: str) -> tuple[str, bool]:
    """A user message without the metadata blocks the gateway put before it, the untrusted
    channel context after it and the envelope's time; and whether anything was taken off."""
    lines = text.split("\n")
    index = 0
    while index < len(lines) and not lines[index].strip():
        index += 1
    start = index
    while index < len(lines) and lines[index].strip() in _INBOUND_SENTINELS:
        if index + 1 >= len(lines) or lines[index + 1].strip() != "```json":
            break
        index += 2
        while index < len(lines) and lines[index].strip() != "```":
            index += 1
        index += 1
        while index < len(lines) and not lines[index].strip():
            index += 1
    kept = lines[index:] if index > start else lines
    for n, line in enumerate(kept):
        if line.strip() == _UNTRUSTED_CONTEXT and _UNTRUSTED_PROBE.search("\n".join(kept[n + 1:n + 8])):
            kept = kept[:n]
            break
    words = _ENVELOPE_TIME.sub("", "\n".join(kept).strip(), count=1).strip()
    return words, words != text.strip()


STORE = Metadata("openclaw-store", "OpenClaw session index (sessions.json)", looks_like_store)
FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES,),
    default_paths=default_paths, is_candidate=is_candidate,
    resume=Resume(None, "OpenClaw sessions are picked up again from OpenClaw itself (its chat "
                        "channels or dashboard); the transcript is at the path given"),
    sniff_header=looks_like, read_lines=parse, metadata=(STORE,),
    lines_named=lambda path: renamed_transcript(path) is not None)
