"""Crush (Charmbracelet's agent): one SQLite database per project, `<project>/.crush/crush.db`
(internal/db/connect.go; the `.crush` data folder is the one nearest the working folder, or
`options.data_directory`: internal/config/load.go). Crush lists the projects it ran in, with
their data folders, in `projects.json` of its global data folder (internal/projects): that is
`$CRUSH_GLOBAL_DATA`, else `${XDG_DATA_HOME:-~/.local/share}/crush`, on Windows
`%LOCALAPPDATA%\\crush` (config.GlobalConfigData).

database.py reads the database, parts.py a message's parts; this module finds the databases and
builds the session records. Choices:

- A session's id is crush's own, prefixed `crush-`; its title crush's (unless still "Untitled
  Session" or "New Agent Session": then the first prompt's first line); the project folder
  (the `.crush` folder's parent) is its working folder and its last part the topic.
- The newest summary crush wrote when it compacted the conversation is the session's summary;
  older ones are left out. System rows, and rows left empty, are left out with their reason.
- `recall index` walks no hidden folder: name a `.crush` folder or its `crush.db` directly, or
  use `recall import crush`, which reads every project `projects.json` lists.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    clip,
    folder_name,
    label,
    origin,
    safe_session_id,
)
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.crush import database, parts
from indexer.formats.crush.database import Row, Session
from indexer.formats.ledger import Ledger

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "parse_database"]

NAME = "crush"
CHANNEL = "crush"
ID_PREFIX = "crush"
TITLE_CHARS = 80
DATABASE_NAME = "crush.db"
DATA_FOLDER = ".crush"
_DEFAULT_TITLES = {"", "untitled session", "new session", "new agent session"}


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The database of every project crush lists, and of a session run in the home folder."""
    own, xdg, local = env.get("CRUSH_GLOBAL_DATA"), env.get("XDG_DATA_HOME"), env.get("LOCALAPPDATA")
    if own:
        globals_ = [Path(own)]
    else:
        globals_ = [(Path(xdg) if xdg else home / ".local" / "share") / "crush"]
        if local:  # Windows
            globals_.append(Path(local) / "crush")
    found = [home / DATA_FOLDER / DATABASE_NAME]
    for folder in globals_:
        found += [Path(d) / DATABASE_NAME for d in _project_data_folders(folder / "projects.json")]
    return list(dict.fromkeys(found))


def _project_data_folders(listing: Path) -> list[str]:
    try:
        value = json.loads(listing.read_text("utf-8"))
    except (OSError, ValueError):
        return []
    projects = value.get("projects") if isinstance(value, dict) else None
    return [p["data_dir"] for p in projects or [] if isinstance(p, dict)
            and isinstance(p.get("data_dir"), str) and p["data_dir"]]


def is_candidate(path: Path) -> bool:
    return path.name == DATABASE_NAME


def parse_database(path: Path, connection: sqlite3.Connection, options: ImportOptions,
                   ledger: Ledger) -> list[Transcript]:
    transcripts, empty = [], 0
    for session in database.read_sessions(connection, options.since):
        if not session.passed_over:
            try:
                transcripts.append(_transcript(path, session, options))
            except NothingToImport:
                empty += 1
                session.ledger.left_out(database.SESSION_ROW, "session without conversation")
        ledger.absorb(session.ledger, prefix=f"session {session.id}: ")
    database.orphans(connection, ledger)
    if not transcripts:
        raise NothingToImport(f"no session with conversation messages ({empty} sessions)")
    return transcripts


def _transcript(path: Path, session: Session, options: ImportOptions) -> Transcript:
    ledger = session.ledger
    messages, summary = _conversation(session.rows, options, ledger)
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    ledger.imported(database.SESSION_ROW, "session metadata")
    folder = path.absolute().parent
    cwd = str(folder.parent) if folder.name == DATA_FOLDER else None
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, session.id),
                              "channel": CHANNEL, "messages": messages,
                              "origin": origin(NAME, session.id, cwd, path)}
    started = database.iso(session.info["created_at"])
    if started:
        record["date"] = started[:10]
    project = folder_name(cwd)
    if project:
        record["topics"] = [project]
    if summary:
        record["summary"] = summary
    title = session.info["title"].strip() if isinstance(session.info["title"], str) else ""
    if title.lower() in _DEFAULT_TITLES:
        first_prompt = next((m["content"] for m in messages if m["role"] == "user"), "")
        title = clip(first_prompt.split("\n", 1)[0], TITLE_CHARS)
    if title:
        record["title"] = title
    return Transcript.build(record, ledger)


def _conversation(rows: list[Row], options: ImportOptions,
                  ledger: Ledger) -> tuple[list[dict[str, Any]], str | None]:
    """The archive's messages and the newest summary; every row gets its fate."""
    messages: list[dict[str, Any]] = []
    summaries = [row for row in rows if row.summary]
    for row in rows:
        if row.summary:
            continue
        if row.role not in ("user", "assistant", "tool"):
            ledger.left_out(row.where, f"message of role {label(row.role)}")
            continue
        rendered = parts.render(row.parts, options, ledger)
        time = database.iso(row.created)
        base = {"time": time} if time else {}
        text = "\n".join(line for line in rendered.lines if line.strip())
        if text:
            messages.append({"id": row.id, "role": row.role, "content": text, **base})
        if rendered.results:
            messages.append({"id": row.id if not text else f"{row.id}-results", "role": "tool",
                             "content": "\n".join(rendered.results), **base})
        if text or rendered.results:
            ledger.imported(row.where)
        else:
            ledger.left_out(row.where, "message left empty")
    return messages, _summary(summaries, options, ledger)


def _summary(rows: list[Row], options: ImportOptions, ledger: Ledger) -> str | None:
    kept = None
    for row in reversed(rows):
        text = "\n".join(parts.render(row.parts, options, Ledger()).lines).strip()
        if kept is None and text:
            kept = text
            ledger.imported(row.where, "the session's summary")
        else:
            ledger.left_out(row.where, "compaction summary (an older one)" if text
                            else "compaction summary left empty")
    return kept


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.DATABASE,),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("CRUSH_GLOBAL_DATA", "XDG_DATA_HOME", "LOCALAPPDATA"),
    # internal/cmd/root.go: `crush --session <id>` (-s), in the project the session is of
    resume=Resume("crush --session {id}",
                  "crush reads the sessions of the project it starts in: run it in cwd"),
    sniff_connection=database.looks_like, read_database=parse_database)
