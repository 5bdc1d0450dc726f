"""Zed's agent panel threads: the SQLite database `threads/threads.db` under Zed's data folder
(crates/paths/src/paths.rs `data_dir`: `$FLATPAK_XDG_DATA_HOME/zed`, else `$XDG_DATA_HOME/zed`
or `~/.local/share/zed` on Linux; `~/Library/Application Support/Zed` on macOS;
`%LOCALAPPDATA%\\Zed` on Windows; crates/agent/src/db.rs joins `threads/threads.db`).

rows.py reads the table and decompresses each thread, messages.py turns a thread's messages into
the archive's, and this module builds the session records. Choices:

- One session per thread, a sub-agent's thread (`parent_id` set) included, as Zed lists it.
- The title is Zed's own (the `summary` column, the thread's title) unless it is empty or still
  the placeholder "New Thread"; then the first prompt. A detailed summary Zed generated is the
  session's summary. The project (the last part of the thread's first folder) is the topic.
- Zed keeps no time per message: the session's day is the thread's creation (or update) and its
  last activity the thread's `updated_at`.
- Every row is a record of the database's ledger (`thread <id>: thread row`) with its messages'
  (`thread <id>: messages[N]`); a row with nothing to import is left out with its reason.
- Zed was started with `--user-data-dir` elsewhere: import that folder's `threads/threads.db`.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    clip,
    folder_name,
    origin,
    safe_session_id,
)
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.ledger import Ledger
from indexer.formats.zed import rows
from indexer.formats.zed.messages import read_messages

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like_database",
           "parse_database"]

NAME = "zed"
CHANNEL = "zed"
TITLE_CHARS = 80
DATABASE_NAME = "threads.db"
_PLACEHOLDER_TITLES = {"", "New Thread"}
ROW = "thread row"


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The database under Zed's data folder on Linux (also inside Flatpak), macOS and Windows:
    every layout is listed, so a copy from another system is found too."""
    linux = (Path(env["FLATPAK_XDG_DATA_HOME"]) if env.get("FLATPAK_XDG_DATA_HOME")
             else Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME")
             else home / ".local" / "share") / "zed"
    windows = (Path(env["LOCALAPPDATA"]) if env.get("LOCALAPPDATA")
               else home / "AppData" / "Local") / "Zed"
    flatpak = home / ".var" / "app" / "dev.zed.Zed" / "data" / "zed"
    folders = [linux, flatpak, home / "Library" / "Application Support" / "Zed", windows]
    return list(dict.fromkeys(folder / "threads" / DATABASE_NAME for folder in folders))


def is_candidate(path: Path) -> bool:
    return path.name == DATABASE_NAME


def looks_like_database(connection: sqlite3.Connection, tables: set[str]) -> bool:
    return rows.has_threads_table(connection, tables)


def parse_database(path: Path, connection: sqlite3.Connection, options: ImportOptions,
                   ledger: Ledger) -> list[Transcript]:
    transcripts, reasons = [], []
    for row in rows.read_rows(connection):
        own = Ledger()
        own.read(ROW)
        try:
            transcripts.append(_transcript(path, row, options, own))
        except NothingToImport as exc:
            own.left_out(ROW, str(exc))
            reasons.append(str(exc))
        ledger.absorb(own, prefix=f"thread {row.id}: ")
    if not transcripts:
        raise NothingToImport(f"no thread with conversation ({len(reasons)} threads)")
    return transcripts


def _transcript(path: Path, row: rows.Row, options: ImportOptions,
                ledger: Ledger) -> Transcript:
    last = row.updated_at or row.created_at
    if options.since and last and last[:10] < options.since:
        raise NothingToImport("thread last active before --since")
    thread = rows.decode(row)
    if isinstance(thread, str):
        raise NothingToImport(thread)
    messages = read_messages(thread, options, ledger)
    if not messages:
        raise NothingToImport("thread without conversation")
    ledger.imported(ROW, "thread metadata")
    cwd = _cwd(row.folder_paths, thread)
    record: dict[str, Any] = {"sessionId": safe_session_id(NAME, row.id), "channel": CHANNEL,
                              "messages": messages, "origin": origin(NAME, row.id, cwd, path),
                              "title": _title(row.summary, thread, messages)}
    if row.created_at or last:
        record["date"] = (row.created_at or last or "")[:10]
    if folder_name(cwd):
        record["topics"] = [folder_name(cwd)]
    summary = _summary(thread)
    if summary:
        record["summary"] = summary
    transcript = Transcript.build(record, ledger)
    return dataclasses.replace(transcript, last_activity=last)


def _title(summary: Any, thread: dict[str, Any], messages: list[dict[str, Any]]) -> str:
    for candidate in (summary, thread.get("title"), thread.get("summary")):
        if isinstance(candidate, str) and candidate.strip() not in _PLACEHOLDER_TITLES:
            return clip(candidate.strip(), TITLE_CHARS * 2)
    first = next((m["content"] for m in messages if m["role"] == "user"), messages[0]["content"])
    return clip(first.split("\n", 1)[0], TITLE_CHARS)


def _summary(thread: dict[str, Any]) -> str | None:
    """The detailed summary Zed generated: `detailed_summary` now, `detailed_summary_state:
    {"Generated": {"text": ...}}` in older threads."""
    current = thread.get("detailed_summary")
    if isinstance(current, str) and current.strip():
        return current.strip()
    state = thread.get("detailed_summary_state")
    generated = state.get("Generated") if isinstance(state, dict) else None
    text = generated.get("text") if isinstance(generated, dict) else None
    return text.strip() if isinstance(text, str) and text.strip() else None


def _cwd(folder_paths: Any, thread: dict[str, Any]) -> str | None:
    """The thread's first project folder: the `folder_paths` column (one a line), else the first
    worktree of the project snapshot older threads kept."""
    if isinstance(folder_paths, str) and folder_paths.strip():
        return folder_paths.strip().split("\n", 1)[0].strip()
    snapshot = thread.get("initial_project_snapshot")
    trees = snapshot.get("worktree_snapshots") if isinstance(snapshot, dict) else None
    first = trees[0] if isinstance(trees, list) and trees and isinstance(trees[0], dict) else {}
    found = first.get("worktree_path")
    return found if isinstance(found, str) and found.strip() else None


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.DATABASE,),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("FLATPAK_XDG_DATA_HOME", "XDG_DATA_HOME", "LOCALAPPDATA"),
    resume=Resume(None, "Zed has no command that opens a thread by its id: open the project "
                        "(cwd) in Zed, then the thread from the agent panel's history"),
    sniff_connection=looks_like_database, read_database=parse_database)
