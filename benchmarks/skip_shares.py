"""What the readers leave out of the sample fixtures (tests/data/formats): for each format, the
share of its units each skip reason accounts for (benchmarks/import_speed.py prints it).

A unit is what the format stores a conversation in, one per line or row or record:

  claude-code, codex, openclaw   lines
  gemini                         lines (a whole-file chat of older releases: its messages)
  cursor                         composerData and bubbleId rows, chat-panel bubbles; lines of CLI
                                 agent transcripts
  aider                          sessions (its reasons count sessions; lines carry no ids)
  cline                          messages of api_conversation_history.json
  opencode                       message and part rows; files of the older JSON tree
  copilot                        lines of an operation log or CLI event log; requests of a .json
                                 chat
  chatgpt                        mapping nodes

Block-level reasons (a thinking block inside a kept message) are counted against the same base.
A file with nothing to import counts all its units under that reason, and so does a session
inside a database that gives nothing (its rows; 0 for a file with no units, such as a Cursor
workspace database holding only its composer list); a file rejected as unreadable is listed
apart.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

from indexer.formats import FORMAT_NAMES, ImportOptions, NothingToImport, Transcript, database
from indexer.formats.importer import candidate_files
from indexer.formats.sources import decode, read_path
from models import RecallError

__all__ = ["UNITS", "skipped_shares"]

UNITS = {"claude-code": "lines", "codex": "lines", "openclaw": "lines", "gemini": "lines",
         "cursor": "rows", "aider": "sessions", "cline": "messages", "opencode": "rows",
         "copilot": "lines", "chatgpt": "nodes"}
_AIDER_START = re.compile(r"^# aider chat started at ", re.MULTILINE)
_NO_LIMIT = 10**9


def skipped_shares(fixtures: Path, formats: tuple[str, ...] = FORMAT_NAMES) -> list[dict[str, Any]]:
    out = []
    for fmt in formats:
        total, reasons, rejected = 0, Counter[str](), []
        files = candidate_files(fmt, [fixtures / fmt])
        for path in files:
            units = _units(fmt, path)
            total += units
            try:
                transcripts = read_path(path, ImportOptions(format=fmt), _NO_LIMIT) or []
            except NothingToImport as exc:  # metadata, a sub-agent's file, an older copy
                reasons[f"file with nothing to import ({exc.detail})"] += units
                continue
            except RecallError as exc:
                rejected.append({"file": path.name, "reason": exc.detail})
                continue
            for t in transcripts:
                reasons.update(t.skipped)
            if database.is_database(path):
                reasons.update(_sessions_left_out(fmt, path, transcripts))
        out.append({"format": fmt, "unit": UNITS[fmt], "units": total, "files": len(files),
                    "rejected": rejected, "skipped": {
                        reason: {"count": n, "share": round(n / total, 3) if total else 0.0}
                        for reason, n in reasons.most_common()}})
    return out


def _units(fmt: str, path: Path) -> int:
    if database.is_database(path):
        return _database_units(path)
    body = decode(path.read_bytes(), _NO_LIMIT)
    if fmt == "aider":
        return len(_AIDER_START.findall(body))
    if path.suffix == ".jsonl":
        return sum(1 for line in body.split("\n") if line.strip())
    try:
        value = json.loads(body)
    except ValueError:  # damaged: the reader rejects it
        return 0
    if fmt == "chatgpt":
        return sum(len(c.get("mapping", {})) for c in value)
    if fmt == "opencode":
        return _tree_units(path)
    key = {"gemini": "messages", "copilot": "requests"}.get(fmt)
    items = value.get(key) if key and isinstance(value, dict) else value
    return len(items) if isinstance(items, list) else 0


def _database_units(path: Path) -> int:
    """Cursor's composer and bubble rows and chat-panel bubbles, or opencode's message and part
    rows; 0 for a database that cannot be read."""
    try:
        with database.open_readonly(path) as connection:
            tables = database.table_names(connection)
            if {"message", "part"} <= tables:
                return sum(connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                           for t in ("message", "part"))
            rows = _count(connection, "cursorDiskKV", "key LIKE 'composerData:%' OR "
                          "key LIKE 'bubbleId:%'") if "cursorDiskKV" in tables else 0
            return rows + sum(len(tab.get("bubbles") or []) for tab in _chat_tabs(connection))
    except sqlite3.DatabaseError:
        return 0


def _sessions_left_out(fmt: str, path: Path, transcripts: list[Transcript]) -> Counter[str]:
    """The rows of the sessions in a database that gave no transcript, by reason."""
    kept = {t.record.get("origin", {}).get("id") for t in transcripts}
    left: Counter[str] = Counter()
    with database.open_readonly(path) as connection:
        if fmt == "opencode":
            for (sid,) in connection.execute("SELECT id FROM session"):
                if sid not in kept:
                    left["session with nothing to import"] += _count(
                        connection, "message", "session_id = ?", sid) + _count(
                        connection, "part", "session_id = ?", sid)
            return left
        if "cursorDiskKV" in database.table_names(connection):
            for key, value in connection.execute(
                    "SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%'"):
                cid = key.removeprefix("composerData:")
                if cid not in kept:
                    bubbles = _count(connection, "cursorDiskKV", "key LIKE ?", f"bubbleId:{cid}:%")
                    left[_composer_reason(cid, value)] += 1 + bubbles
        for tab in _chat_tabs(connection):
            if tab.get("tabId") not in kept:
                left["chat tab without a prompt"] += len(tab.get("bubbles") or [])
    return left


def _composer_reason(cid: str, value: Any) -> str:
    try:
        data = json.loads(value)
    except (TypeError, ValueError):
        return "unreadable composer"
    if cid.startswith("task-") or (isinstance(data, dict) and "subagentInfo" in data):
        return "sub-agent composer"
    return "composer without a prompt"


def _chat_tabs(connection: sqlite3.Connection) -> list[dict[str, Any]]:
    if "ItemTable" not in database.table_names(connection):
        return []
    row = connection.execute("SELECT value FROM ItemTable WHERE key = "
                             "'workbench.panel.aichat.view.aichat.chatdata'").fetchone()
    try:
        tabs = json.loads(row[0]).get("tabs") if row else None
    except (ValueError, AttributeError):
        return []
    return [t for t in tabs if isinstance(t, dict)] if isinstance(tabs, list) else []


def _count(connection: sqlite3.Connection, table: str, where: str, *args: Any) -> int:
    row = connection.execute(f"SELECT count(*) FROM {table} WHERE {where}", args).fetchone()
    return int(row[0])


def _tree_units(path: Path) -> int:
    """An opencode session file's message files and parts: part files beside them, or the
    parts inside each message in the oldest releases."""
    if path.parent.name == "info":  # <storage>/session/info/<id>.json
        root = path.parent.parent
        messages, parts = root / "message" / path.stem, root / "part" / path.stem
    else:  # <storage>/session/<project>/<id>.json
        storage = path.parent.parent.parent
        messages, parts = storage / "message" / path.stem, storage / "part"
    total = 0
    for file in messages.glob("*.json"):
        try:
            inside = json.loads(file.read_text("utf-8")).get("parts")
        except (ValueError, AttributeError):
            inside = None
        total += 1 + (len(inside) if isinstance(inside, list)
                      else len(list((parts / file.stem).glob("*.json"))))
    return total
