"""Input files: find them, read them into session records, normalize those, quarantine bad ones.

Formats recognized by content (formats/detect.py), whatever the file is called:
- archive JSON: one session object per file (or a list of them);
- JSONL conversations (one `{role, content, ts}` per line, id from the file name), with an
  optional `index.json` beside them holding titles and categories;
- transcripts of Claude Code, Codex, Gemini CLI, Cursor, aider, Cline, opencode, Copilot,
  OpenClaw and ChatGPT exports (formats/), the SQLite ones read in place (formats/database.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer import formats
from indexer.formats import ImportOptions, NothingToImport, Transcript, database
from indexer.formats.ledger import Ledger
from indexer.text.redact import redact_text, redact_value
from indexer.text.repair import repair_escapes, repair_value
from models import InvalidSession, PayloadTooLarge, Session, parse_session
from models.files import encode_session

__all__ = ["RawSession", "RawSnapshot", "Rejection", "decode", "discover", "file_hash",
           "load_database", "load_file", "normalize", "quarantine", "read_path", "read_transcripts"]

log = logging.getLogger(__name__)

SUFFIXES = (".json", ".jsonl", ".chat", *database.SUFFIXES)  # .chat: Kiro IDE's (JSON)
AIDER_HISTORY = ".aider.chat.history.md"  # Markdown, and the one hidden file read (formats/aider.py)
METADATA_NAMES = {"index.json"}


@dataclass(frozen=True, slots=True)
class RawSession:
    record: dict[str, Any]
    fallback_id: str | None


@dataclass(frozen=True, slots=True)
class RawSnapshot:
    """A conversation-recovery snapshot (intents, facts, tasks), kept beside the archive."""

    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Rejection:
    path: str
    reason: str


def _is_snapshot(item: Any) -> bool:
    return isinstance(item, dict) and "messages" not in item and "sessionId" in item and any(
        key in item for key in ("intents", "facts", "tasks"))


# OpenClaw keeps a transcript it reset or deleted under its old name plus a mark and the time:
# `<id>.jsonl.reset.<time>`, `<id>.jsonl.deleted.<time>` (formats/openclaw.py decides what to read)
_RENAMED_TRANSCRIPT = re.compile(r"\.jsonl\.(reset|deleted)\.[^/]+$")


def discover(paths: Iterable[Path], passed_over: list[Rejection] | None = None) -> Iterator[Path]:
    """Files to ingest under the given files and folders, in a stable order. Files in the
    folders that are not read are added to `passed_over` with the reason, when it is given.

    Symlinks that point outside the folder being walked are not followed."""
    for path in paths:
        if path.is_file():
            yield path
            continue
        if not path.is_dir():
            continue
        root = path.resolve()
        for folder, dirs, files in os.walk(path):
            kept = []
            for d in sorted(dirs):
                reason = ("hidden folder" if d.startswith(".")
                          else None if _inside(Path(folder, d), root) else "links outside the folder")
                if reason is None:
                    kept.append(d)
                elif passed_over is not None:
                    passed_over.append(Rejection(str(Path(folder, d)), reason))
            dirs[:] = kept
            for name in sorted(files):
                candidate = Path(folder, name)
                reason = _passed_over(candidate, name, root)
                if reason is None:
                    yield candidate
                elif passed_over is not None:
                    passed_over.append(Rejection(str(candidate), reason))


def _passed_over(candidate: Path, name: str, root: Path) -> str | None:
    """Why a file in a folder being walked is not read; None when it is."""
    if name == AIDER_HISTORY:
        return None if _inside(candidate, root) else "links outside the folder"
    if name.startswith("."):
        return "hidden file"
    if name in METADATA_NAMES:
        return "metadata file (titles of the JSONL conversations beside it)"
    if not (name.endswith(SUFFIXES) or _RENAMED_TRANSCRIPT.search(name)):
        return f"not a transcript file name (*{Path(name).suffix or name})"
    if name.endswith(database.SUFFIXES) and not database.is_database(candidate):
        return "named like a database, but not SQLite"  # `.db` is not always SQLite
    if not _inside(candidate, root):
        return "links outside the folder"
    return None


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root)


def file_hash(data: bytes, options: ImportOptions | None = None) -> str:
    """The content hash of a file; what else changes the sessions read from it (the import
    options, the readers' version) is mixed in."""
    digest = hashlib.sha256(data)
    if options is not None:
        digest.update(b"\x00" + options.fingerprint().encode())
    return digest.hexdigest()


def decode(data: bytes, max_bytes: int, ledger: Ledger | None = None) -> str:
    """The text of an input file; raises PayloadTooLarge / InvalidSession with the reason.
    Bytes that are not UTF-8 in a text file (a tool's output cut mid-character, a Latin-1 name)
    become U+FFFD, each run counted as repaired in `ledger`: they cost nothing but themselves. A
    file where they are more than one character in a hundred is not text, and is refused."""
    if len(data) > max_bytes:
        raise PayloadTooLarge(f"file is {len(data) / 1e6:.1f} MB, over the {max_bytes / 1e6:.0f} MB limit")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8-sig", errors="replace")
        bad = text.count(REPLACEMENT) - data.count(REPLACEMENT.encode())  # not those it held
        if bad > _BAD_RUNS_IN_TEXT and bad * 100 > len(text):
            raise InvalidSession(f"not valid UTF-8 (byte {exc.start}; {bad} runs of bytes that "
                                 f"are not UTF-8 in {len(text)} characters: not a text file)") \
                from None
        if ledger is not None:
            ledger.repair(INVALID_UTF8, bad)
    if "\x00" in text:
        raise InvalidSession("file contains NUL bytes")
    return text


REPLACEMENT = "\ufffd"
INVALID_UTF8 = "bytes not UTF-8 made U+FFFD"
_BAD_RUNS_IN_TEXT = 8  # so many runs, and more than 1 % of the characters: not a text file


def read_path(path: Path, options: ImportOptions, max_bytes: int,
              ledger: Ledger | None = None) -> list[Transcript] | None:
    """read_transcripts for a file on disk, a SQLite database included."""
    data = database.read_unless_database(path)
    if data is None:
        return _repaired(formats.read_database(path, options, _ledger(ledger)), ledger)
    ledger = _ledger(ledger)
    return read_transcripts(path, decode(data, max_bytes, ledger), options, ledger)


def read_transcripts(path: Path, text: str, options: ImportOptions,
                     ledger: Ledger | None = None) -> list[Transcript] | None:
    """The sessions of an agent's transcript file (formats/), before --since is applied; None
    for the archive's own formats. Raises NothingToImport for a file without conversation.
    `ledger` gets the fate of every record read (indexer/formats/ledger.py)."""
    ledger = _ledger(ledger)
    markdown = formats.text_format(path, text, options.format)
    if markdown is not None:
        return _repaired(formats.read_text(markdown, path, text, options, ledger), ledger)
    text = _repaired_text(text, ledger)
    lines = formats.is_json_lines(path, text)
    return _repaired(_transcripts(path, text, lines, None if lines else _json(text), options,
                                  ledger), ledger)


def _ledger(ledger: Ledger | None) -> Ledger:
    return ledger if ledger is not None else Ledger()


def _repaired_text(text: str, ledger: Ledger) -> str:
    """JSON text with its escaped lone surrogates made U+FFFD, each counted where it is."""
    text, count = repair_escapes(text)
    ledger.repair(SURROGATES, count)
    return text


SURROGATES = "lone surrogate made U+FFFD"


def _repaired(transcripts: list[Transcript] | None, ledger: Ledger | None
              ) -> list[Transcript] | None:
    """The transcripts with their lone surrogates made U+FFFD (indexer/text/repair.py), counted
    in the ledger: one half of an emoji never costs its message."""
    if transcripts is None:
        return None
    out = []
    for transcript in transcripts:
        record, count = repair_value(transcript.record)
        if count and ledger is not None:
            ledger.repair(SURROGATES, count)
        out.append(transcript if record is transcript.record
                   else Transcript(record, transcript.last_activity, transcript.skipped))
    return out


def _transcripts(path: Path, text: str, lines: bool, value: Any, options: ImportOptions,
                 ledger: Ledger) -> list[Transcript] | None:
    if lines:
        fmt = options.format or formats.line_format(text)
        return formats.read_lines(fmt, path, text, options, ledger) if fmt else None
    fmt = options.format or formats.document_format(value, path)
    return formats.read_document(fmt, path, value, options, ledger) if fmt else None


def load_file(path: Path, data: bytes, max_bytes: int, options: ImportOptions | None = None,
              ledger: Ledger | None = None) -> list[RawSession | RawSnapshot]:
    """Decode one input file; raises InvalidSession / PayloadTooLarge with the reason. `ledger`
    gets the fate of each record an agent's transcript holds."""
    if data.startswith(database.MAGIC):
        raise InvalidSession("a SQLite database: recall reads one from its path, not from bytes "
                             "sent to it (`recall index PATH`)")
    ledger = _ledger(ledger)
    text = decode(data, max_bytes, ledger)
    options = options or ImportOptions()
    markdown = formats.text_format(path, text, options.format)  # an aider chat history
    if markdown is None:
        text = _repaired_text(text, ledger)
    lines = markdown is None and formats.is_json_lines(path, text)
    value = None if lines or markdown else _json(text)
    try:
        transcripts = _repaired(formats.read_text(markdown, path, text, options, ledger)
                                if markdown else
                                _transcripts(path, text, lines, value, options, ledger), ledger)
    except NothingToImport as exc:
        log.info("nothing to import from %s: %s", path, exc.detail)
        ledger.empty_reason = exc.detail
        return []
    if transcripts is not None:
        return list(_raw_sessions(path, transcripts, options))
    if lines:
        return [_jsonl_conversation(path, text, ledger)]
    items: list[Any] = value if isinstance(value, list) else [value]  # decoded JSON values
    if items and all(_is_snapshot(item) for item in items):
        return [RawSnapshot(item) for item in items]
    if not items or not all(isinstance(item, dict) and "messages" in item for item in items):
        raise InvalidSession("not an archived session: expected an object with a 'messages' list")
    fallback = path.stem if len(items) == 1 else None
    for n in range(len(items)):  # recall's own archive format: each item is a whole session
        ledger.imported(f"session[{n}]")
    return [RawSession(item, fallback) for item in items]


def load_database(path: Path, options: ImportOptions | None = None,
                  ledger: Ledger | None = None) -> list[RawSession]:
    """The sessions of an agent's SQLite database; raises InvalidSession with the reason."""
    options = options or ImportOptions()
    ledger = _ledger(ledger)
    try:
        transcripts = _repaired(formats.read_database(path, options, ledger), ledger)
    except NothingToImport as exc:
        log.info("nothing to import from %s: %s", path, exc.detail)
        ledger.empty_reason = exc.detail
        return []
    assert transcripts is not None
    return _raw_sessions(path, transcripts, options)


def _raw_sessions(path: Path, transcripts: list[Transcript],
                  options: ImportOptions) -> list[RawSession]:
    kept = [t for t in transcripts if options.keeps(t)]
    for t in kept:
        if t.skipped:  # counts only, never content
            log.info("%s: %s left out %s", path, t.record["sessionId"],
                     ", ".join(f"{n}× {reason}" for reason, n in t.skipped.items()))
    return [RawSession(t.record, None) for t in kept]


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidSession(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InvalidSession("JSON is nested too deeply") from None


def _jsonl_conversation(path: Path, text: str, ledger: Ledger) -> RawSession:
    messages, bad_lines = [], []
    # newlines only: JSON strings may hold U+2028 and others that str.splitlines() splits on
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            bad_lines.append(number)
            continue
        if isinstance(item, dict) and ("content" in item or "text" in item):
            messages.append(item)
            ledger.imported(f"line {number}")
        else:
            bad_lines.append(number)
    if not messages:
        where = f" (unreadable lines: {bad_lines[:5]})" if bad_lines else ""
        raise InvalidSession(f"no conversation messages found in JSON lines{where}")
    # a torn last line is what a crash during append leaves; anything else is damage
    last = max((n for n, line in enumerate(lines, start=1) if line.strip()), default=0)
    if any(n != last for n in bad_lines):
        raise InvalidSession(f"unreadable JSON lines: {bad_lines[:5]}")
    record: dict[str, Any] = {"sessionId": path.stem, "messages": messages, "channel": "jsonl"}
    meta = _conversation_index(path.parent).get(path.stem, {})
    if isinstance(meta.get("title"), str):
        record["title"] = meta["title"]
    return RawSession(record, path.stem)


def _conversation_index(folder: Path) -> dict[str, dict[str, Any]]:
    try:
        value = json.loads((folder / "index.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    entries = value.get("conversations", value) if isinstance(value, dict) else value
    if isinstance(entries, dict):
        entries = [dict(v, id=k) for k, v in entries.items() if isinstance(v, dict)]
    if not isinstance(entries, list):
        return {}
    return {str(e["id"]): e for e in entries if isinstance(e, dict) and "id" in e}


def normalize(raw: dict[str, Any], fallback_id: str | None) -> tuple[Session, bytes, Counter[str]]:
    """Redact first, then parse: nothing unredacted is ever kept. A lone surrogate (which no
    file can hold) becomes U+FFFD here too, for records that came by another way than a file."""
    try:
        redacted, counts = redact_value(repair_value(raw)[0])
        session = parse_session(redacted, fallback_id=fallback_id)
    except RecursionError:  # valid JSON hundreds of levels deep (HTTP, MCP): the input's fault
        raise InvalidSession("session is nested too deeply") from None
    return session, encode_session(session), counts


def quarantine(folder: Path, path: Path, data: bytes, reason: str) -> Path:
    """Keep a redacted copy of a rejected file and why, named by content so reruns do not pile up."""
    folder.mkdir(parents=True, exist_ok=True)
    safe_name = "".join(c if c.isalnum() or c in "-_." else "_" for c in path.name)[:80]
    target = folder / f"{file_hash(data)[:12]}-{safe_name}"
    text, _ = redact_text(data.decode("utf-8", errors="surrogateescape"))
    target.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    target.with_name(target.name + ".reason.txt").write_text(f"{path}\n{reason}\n", "utf-8")
    return target
