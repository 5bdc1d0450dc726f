"""Cline, Roo Code and Kilo Code tasks: `<editor>/User/globalStorage/<extension>/tasks/<taskId>/
api_conversation_history.json`, one task per folder, and the Cline CLI's sessions
(`~/.cline/data/sessions/<id>/<id>.messages.json`).

One kind of message, two readers: a task folder is read by tasks.py, a CLI session by
cli.py, and the messages of both by content.py. This module finds the files, tells
them and the metadata beside them apart, and builds the session record. Choices:

- The title is the agent's (the task list's prompt, the CLI manifest's title), else the first
  prompt; the working folder's last part is the topic. The origin's agent is cline, roo-code or
  kilo-code by the extension's folder (cline-cli for the CLI's sessions); the channel is `cline`
  for all.
- The task folder's other files (ui_messages.json, task_metadata.json, context_history.json, ...),
  the task lists, a CLI session's manifest and compaction state, and a sub-agent's messages are
  recognized and have nothing to import.
- Every stored message is a record of the file's ledger (`messages[N]`, indexer/formats/
  ledger.py): imported, or left out with its reason; what is left out of a kept message (the
  environment details, thinking, the extension's wording) is counted as pieces.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from indexer.formats.cline import cli, tasks
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
from models import InvalidSession, parse_time

__all__ = ["CHANNEL", "FORMAT", "NAME", "default_paths", "is_candidate", "looks_like_document",
           "parse_value"]

NAME = "cline"
CHANNEL = "cline"
ID_PREFIX = "cline"
TITLE_CHARS = 80
CLI_AGENT = "cline-cli"


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """The tasks folder of each extension in each editor's user data on Linux, macOS and Windows
    (VSCODE_APPDATA replaces the three, VSCODE_PORTABLE adds a portable install) and in the
    remote servers' data, then the Cline CLI's tasks and sessions (CLINE_DATA_DIR, CLINE_DIR,
    CLINE_SESSION_DATA_DIR)."""
    return list(dict.fromkeys([*tasks.default_roots(home, env),
                               *cli.default_roots(home, env)]))


def is_candidate(path: Path) -> bool:
    """A task's conversation history, or a CLI session's own messages (not a sub-agent's)."""
    return tasks.is_history_file(path) or cli.is_messages_file(path)


def looks_like_document(value: Any, path: Path) -> bool:
    """A task's history or a CLI session's messages, or one of the metadata files beside them
    (by name and shape: other lists of messages are not claimed)."""
    if _metadata(value, path):
        return True
    if path.name in tasks.HISTORY_FILES:
        return isinstance(value, list) and (not value or tasks.is_history(value))
    return path.name.endswith(".messages.json") and cli.is_session(value)


def parse_value(path: Path, value: Any, options: ImportOptions,
                ledger: Ledger) -> list[Transcript]:
    described = _metadata(value, path)
    if described:
        raise NothingToImport(f"{described}: metadata, not a transcript")
    if cli.is_session(value):
        session = cli.read_session(path, value, options, ledger)
        return [_transcript(path, session.session_id, CLI_AGENT, session.cwd, session.started,
                            session.title, session.messages, ledger)]
    if tasks.is_history(value) or (value == [] and path.name in tasks.HISTORY_FILES):
        task = tasks.read_task(path, value, options, ledger)
        transcript = _transcript(path, task.task_id, task.agent, task.cwd, task.started,
                                 task.title, task.messages, ledger)
        if task.latest_ms is None:
            return [transcript]
        return [dataclasses.replace(transcript, last_activity=parse_time(task.latest_ms))]
    raise InvalidSession("not a Cline task: api_conversation_history.json holds a list of "
                         "{role, content} messages, a CLI session's messages.json an object with "
                         "sessionId and messages")


def _metadata(value: Any, path: Path) -> str | None:
    """What a metadata file of these agents is, by its name and shape; None for anything else."""
    return tasks.metadata(value, path) or cli.metadata(value, path)


def _transcript(path: Path, raw_id: str, agent: str, cwd: str | None, start: str | None,
                title: str | None, messages: list[dict[str, Any]],
                ledger: Ledger) -> Transcript:
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": messages, "origin": origin(agent, raw_id, cwd, path)}
    if start:
        record["date"] = start[:10]
    project = folder_name(cwd)
    if project:
        record["topics"] = [project]
    first_prompt = next((m["content"] for m in messages if m["role"] == "user"), None)
    title = title or first_prompt
    if title:
        record["title"] = clip(title.strip().split("\n", 1)[0], TITLE_CHARS)
    return Transcript.build(record, ledger)


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.DOCUMENT,),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("VSCODE_PORTABLE", "VSCODE_APPDATA", "XDG_CONFIG_HOME", "APPDATA", "CLINE_DIR",
                 "CLINE_DATA_DIR", "CLINE_SESSION_DATA_DIR"),
    resume=Resume(None, "a Cline task reopens from the History view of the Cline extension in "
                        "the editor it ran in; it has no command line"),
    agents={"roo-code": Resume(None, "a Roo Code task reopens from Roo Code's task history in "
                                     "the editor"),
            "kilo-code": Resume(None, "a Kilo Code task reopens from Kilo Code's task history "
                                      "in the editor"),
            CLI_AGENT: Resume("cline --id {id}",
                              "the Cline CLI resumes its session by id: run it in cwd")},
    sniff_document=looks_like_document, read_document=parse_value)
