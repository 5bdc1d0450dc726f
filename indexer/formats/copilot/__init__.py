"""GitHub Copilot's sessions, of two agents: Copilot Chat in VS Code
(`<editor>/User/workspaceStorage/<hash>/chatSessions/<sessionId>.json` or `.jsonl`, and
`globalStorage/emptyWindowChatSessions/` for windows without a folder, and any chat the user
saved with "Chat: Export Chat...") and the Copilot CLI
(`${COPILOT_HOME:-~/.copilot}/session-state/<sessionId>/events.jsonl`, and
`history-session-state/session_<id>_<time>.json` of releases before the event log).

One format, four readers: a VS Code chat written whole (`.json`, before VS Code 1.109, and
exported chats) is read by vscode.py; since 1.109 VS Code writes an operation log
instead (`.jsonl`), which oplog.py replays into the same object; a CLI event log is read
by cli.py, an older CLI session by history.py. This module finds the files,
tells their lines and documents apart, and builds the session record. Choices:

- A `.json` chat beside a `.jsonl` of the same id is the copy VS Code wrote before it switched
  to the log; VS Code reads the log, and so does this reader: the copy has nothing to import.
- `workspaceStorage/<hash>/workspace.json` names the folder a workspace's chats belong to; it is
  metadata with nothing to import (VS Code's forks, Cursor among them, write the same file).
- The title is the agent's (a chat's custom title, the CLI's session title), else the first
  prompt; the working folder's last part is the topic; the channel is `copilot`. The origin
  agent tells the two apart for `recall resume`: `copilot` (the CLI: `copilot --resume=<id>`)
  and `copilot-vscode` (VS Code cannot reopen a chat by id).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from indexer.formats.common import (
    ImportOptions,
    NothingToImport,
    Transcript,
    clip,
    folder_name,
    origin,
    read_transcript_lines,
    safe_session_id,
)
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.copilot import cli, history, oplog, vscode
from indexer.formats.editors import user_dirs
from indexer.formats.ledger import Ledger
from models import InvalidSession

__all__ = ["CHANNEL", "FORMAT", "NAME", "VSCODE_AGENT", "default_paths",
           "is_candidate", "looks_like", "looks_like_document", "parse", "parse_value"]

NAME = "copilot"
CHANNEL = "copilot"
ID_PREFIX = "copilot"
TITLE_CHARS = 80
VSCODE_AGENT = "copilot-vscode"  # the origin agent of VS Code's chats; the CLI's is NAME
# the editors Copilot Chat runs in, by the folder name of their user data
_EDITORS = ("Code", "Code - Insiders", "VSCodium")
_SESSION_FOLDERS = {"chatSessions", "emptyWindowChatSessions"}
_SNIFF = 30
_MARKERS = re.compile(r"(\[image\]\s*)+")  # a prompt that is only attachments


def default_paths(home: Path, env: dict[str, str]) -> list[Path]:
    """VS Code's user data on Linux, macOS and Windows (VSCODE_APPDATA replaces all three, as
    VS Code's getUserDataPath does; VSCODE_PORTABLE adds a portable install), then the CLI's
    session-state and, beside it, the history-session-state of older releases."""
    users = user_dirs(home, env, _EDITORS)
    roots = [p for user in users for p in (user / "workspaceStorage",
                                           user / "globalStorage" / "emptyWindowChatSessions")]
    return list(dict.fromkeys(roots + cli.default_roots(home, env)))


def is_candidate(path: Path) -> bool:
    """A VS Code chat (`chatSessions/*.json(l)`), a Copilot CLI event log or an older CLI
    session. Exported chats are wherever the user saved them: they are read when named."""
    if path.parent.name in _SESSION_FOLDERS:
        return path.suffix in (".json", ".jsonl")
    return cli.is_event_file(path) or history.is_history_file(path)


def looks_like(item: Any) -> bool:
    """One line of a VS Code chat's operation log or of a Copilot CLI event log."""
    return oplog.looks_like_entry(item) or cli.looks_like_event(item)


def looks_like_document(value: Any, path: Path) -> bool:
    """A VS Code chat written whole or exported, the `workspace.json` beside a workspace's
    chats, or a session of the older Copilot CLI."""
    return (vscode.is_chat(value) or vscode.is_workspace_meta(value)
            or history.is_history(value))


def parse(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    items = read_transcript_lines(text, ledger)
    sniffed = [item for _, item in items[:_SNIFF]]
    if any(oplog.looks_like_entry(item) for item in sniffed):
        return [_log(path, items, options, ledger)]
    if any(cli.looks_like_event(item) for item in sniffed):
        events = cli.read_events(items, options, ledger)
        raw_id = events.session_id or (path.parent.name if path.name == "events.jsonl"
                                       else path.stem)
        return [_transcript(path, NAME, raw_id, events.cwd, folder_name(events.cwd),
                            events.started, events.title, events.summary, events.messages, ledger)]
    raise InvalidSession("not a Copilot transcript: neither a VS Code chat log nor CLI events")


def parse_value(path: Path, value: Any, options: ImportOptions,
                ledger: Ledger) -> list[Transcript]:
    if vscode.is_workspace_meta(value):
        raise NothingToImport("VS Code workspace metadata (workspace.json): which folder the "
                              "workspace's chats belong to, not a transcript")
    if history.is_history(value):
        older = history.read_history(path, value, options, ledger)
        return [_transcript(path, NAME, older.session_id or path.stem, None, None, older.started,
                            None, None, older.messages, ledger)]
    if not vscode.is_chat(value):
        raise InvalidSession("not a VS Code chat session (no requests with a sessionId or a "
                             "responderUsername) nor a Copilot CLI session")
    if path.suffix == ".json" and isinstance(value.get("sessionId"), str) \
            and path.with_suffix(".jsonl").is_file():
        raise NothingToImport("an older copy of a chat whose operation log (.jsonl) VS Code "
                              "reads instead")
    chat = vscode.read_chat(path, value, options, ledger)
    return [_chat(path, chat, ledger)]


def _log(path: Path, items: list[tuple[int, Any]], options: ImportOptions,
         ledger: Ledger) -> Transcript:
    """A chat's operation log: replayed, read as a chat, and each line given the fate of what
    it changed (oplog.settle)."""
    log = oplog.replay(items, ledger)
    requests = Ledger()  # the fates of the replayed state's requests, settled onto lines
    try:
        chat = vscode.read_chat(path, log.state, options, requests)
        oplog.settle(log, requests, ledger)
        return _chat(path, chat, ledger)
    except NothingToImport:
        oplog.settle(log, requests, ledger)
        ledger.left_out(log.initial, "the chat's state, without conversation")
        raise


def _chat(path: Path, chat: vscode.Chat, ledger: Ledger) -> Transcript:
    return _transcript(path, VSCODE_AGENT, chat.session_id, chat.cwd, chat.project, chat.created,
                       chat.title, None, chat.messages, ledger)


def _transcript(path: Path, agent: str, raw_id: str, cwd: str | None, project: str | None,
                started: str | None, title: str | None, summary: str | None,
                messages: list[dict[str, Any]], ledger: Ledger) -> Transcript:
    if not messages:
        raise NothingToImport(f"no conversation messages ({ledger.describe()})")
    record: dict[str, Any] = {"sessionId": safe_session_id(ID_PREFIX, raw_id), "channel": CHANNEL,
                              "messages": messages, "origin": origin(agent, raw_id, cwd, path)}
    if started:
        record["date"] = started[:10]
    if project:
        record["topics"] = [project]
    if summary:
        record["summary"] = summary
    prompts = [m["content"] for m in messages if m["role"] == "user"]
    # the first prompt with words names the session, not a screenshot sent alone ("[image]")
    first_prompt = next((p for p in prompts if not _MARKERS.fullmatch(p)), None) or \
        next(iter(prompts), None)
    title = title or (clip(first_prompt.split("\n", 1)[0], TITLE_CHARS) if first_prompt else None)
    if title:
        record["title"] = title
    return Transcript.build(record, ledger)


FORMAT = Format(
    name=NAME, channel=CHANNEL, stored_as=(Storage.LINES, Storage.DOCUMENT),
    default_paths=default_paths, is_candidate=is_candidate,
    environment=("VSCODE_PORTABLE", "VSCODE_APPDATA", "XDG_CONFIG_HOME", "APPDATA", "COPILOT_HOME"),
    # the CLI's exit message prints `copilot --resume=<id>`
    resume=Resume("copilot --resume={id}", "recent Copilot CLI releases reopen a session in its "
                                           "saved folder; older ones: run it in cwd"),
    agents={VSCODE_AGENT: Resume(None, "VS Code has no command that reopens a chat by its id: "
                                       "open cwd in VS Code and pick the chat from the chat "
                                       "view's history")},
    sniff_line=looks_like, sniff_document=looks_like_document,
    read_lines=parse, read_document=parse_value)
