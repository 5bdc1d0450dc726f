"""opencode sessions: the SQLite database `${XDG_DATA_HOME:-~/.local/share}/opencode/opencode.db`
(or `$OPENCODE_DB`), and the JSON tree under `storage/` that releases before it wrote.

Two stores, three readers: database.py reads the database and tree.py the tree, each
into sessions with their messages and parts, which parts.py turns into the archive's
messages. This module finds the database and the session files, tells them apart from other
agents' and builds the session record. Choices:

- One session per `session` row (or session file), child sessions included: a sub-agent's
  session (parent_id set, titled "... (@agent subagent)") is its own session, as opencode shows
  and reopens it, since its parent keeps only the task call and the final report, cut short.
- The title is opencode's own unless it is still the default "New session - <time>"; then the
  first prompt. The project (the last part of the session's directory) is the topic.
- Every row the database reader reads has a fate: each session's in a ledger of its own, taken
  into the database's with the places prefixed `session <id>: `; a session with nothing to
  import has its rows left out with their reasons and its own row "session without
  conversation". The session's row (or file) is its metadata, imported with it.
"""

from __future__ import annotations

import re
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
from indexer.formats.opencode import database, parts, tree
from indexer.formats.opencode.parts import Session
from models import InvalidSession

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like_database",
           "looks_like_document", "parse_database", "parse_value"]

NAME = "opencode"
CHANNEL = "opencode"
ID_PREFIX = "opencode"
TITLE_CHARS = 80
_DEFAULT_TITLE = re.compile(r"(New|Child) [Ss]ession - \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
# opencode.db for the released channels, opencode-<channel>.db for the others (storage/db.ts)
_DATABASE_NAME = re.compile(r"opencode(-[A-Za-z0-9._-]+)?\.db")


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The database and the session files of the older tree. opencode takes its data folder
    from xdg-basedir on every system (Windows too: `%USERPROFILE%\\.local\\share`)."""
    data = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    root = data / "opencode"
    stored = root / "opencode.db"
    override = env.get("OPENCODE_DB")
    if override and override != ":memory:":
        stored = Path(override) if Path(override).is_absolute() else root / override
    return [stored, root / "storage" / "session"]


def is_candidate(path: Path) -> bool:
    """The database, or a session file of the tree (not its message and part files)."""
    if _DATABASE_NAME.fullmatch(path.name):
        return True
    folders = path.parts
    return (path.suffix == ".json" and path.name.startswith("ses_") and len(folders) >= 4
            and folders[-3] == "session" and folders[-4] == "storage" and folders[-2] != "share")


def looks_like_database(tables: set[str]) -> bool:
    return tables >= database.TABLES


def looks_like_document(value: Any, path: Path) -> bool:
    """A session, message or part file of the tree, or one of its metadata files."""
    return tree.kind(value) is not None


def parse_database(path: Path, connection: sqlite3.Connection, options: ImportOptions,
                   ledger: Ledger) -> list[Transcript]:
    transcripts, empty = [], 0
    for session in database.read_sessions(connection, options.since):
        try:
            if not session.passed_over:
                transcripts.append(_transcript(path, session, options))
        except NothingToImport:
            empty += 1
            session.ledger.left_out(session.where, "session without conversation")
        ledger.absorb(session.ledger, prefix=f"session {session.id}: ")
    database.orphans(connection, ledger)
    if not transcripts:
        raise NothingToImport(f"no session with conversation messages ({empty} sessions)")
    return transcripts


def parse_value(path: Path, value: Any, options: ImportOptions,
                ledger: Ledger) -> list[Transcript]:
    kind = tree.kind(value)
    if kind is None:
        raise InvalidSession("not an opencode session: no ses_ id, title and time")
    if kind != "session":
        raise NothingToImport(f"an opencode {kind}: read with its session")
    session = tree.read_session(path, value, ledger)
    try:
        return [_transcript(path, session, options)]
    except NothingToImport:
        ledger.left_out(session.where, "session without conversation")
        raise


def _transcript(path: Path, session: Session, options: ImportOptions) -> Transcript:
    ledger = session.ledger
    conversation = parts.read_conversation(session.messages, options, ledger)
    messages = conversation.messages
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    ledger.imported(session.where, "session metadata")
    directory = session.directory
    cwd = directory if isinstance(directory, str) and directory else conversation.cwd
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, session.id),
                              "channel": CHANNEL, "messages": messages,
                              "origin": origin(NAME, session.id, cwd, path)}
    started = parts.iso(session.created)
    if started:
        record["date"] = started[:10]
    project = folder_name(cwd)
    if project:
        record["topics"] = [project]
    if conversation.summary:
        record["summary"] = conversation.summary
    title = session.title.strip() if isinstance(session.title, str) else ""
    if not title or _DEFAULT_TITLE.fullmatch(title):
        first_prompt = next((m["content"] for m in messages if m["role"] == "user"), "")
        title = clip(first_prompt.split("\n", 1)[0], TITLE_CHARS)
    if title:
        record["title"] = title
    return Transcript.build(record, ledger)


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.DOCUMENT, Storage.DATABASE),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("XDG_DATA_HOME", "OPENCODE_DB"),
    # packages/opencode/src/cli/cmd/tui/thread.ts: `opencode [project] --session <id>`
    resume=Resume("opencode --session {id}",
                  "opencode finds sessions of the project it starts in: run it in cwd"),
    sniff_document=looks_like_document, sniff_tables=looks_like_database,
    read_document=parse_value, read_database=parse_database)
