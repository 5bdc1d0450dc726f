"""Seeded transcript generators for benchmarks/import_speed.py: the editors' formats (Cursor's
state.vscdb, Cline task folders, opencode's opencode.db, Copilot Chat's chatSessions/*.json).

Same mix as transcript_generators.py: prompts, answers with thinking on ~30 % of turns, a tool
call with its result on half the turns, and a few records that are not messages (checkpoint
rows, environment details, step parts, undo stops). Shapes follow the fixtures written by
tests/data/formats/generate_{cursor,cline,opencode,copilot}.py.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

from benchmarks.transcript_generators import (
    MESSAGES_PER_SESSION,
    WORDS,
    dump,
    ms,
    sentence,
    text,
    ts,
)

__all__ = ["GENERATORS"]

BASE = 1767225600  # 2026-01-01, as the other generators
CWD = "/home/lin/code/app"


def _command(rng: random.Random) -> str:
    return f"pytest -q tests/test_{rng.choice(WORDS)}.py"


# Cursor: composerData and bubbleId rows in cursorDiskKV ----------------------------------------

def cursor(folder: Path, sessions: int, rng: random.Random) -> None:
    kv: list[tuple[str, str]] = []
    listing = []
    for s in range(sessions):
        cid = f"44444444-0000-4000-8000-{s:012d}"
        base = BASE + s * 86400
        bubbles: list[dict[str, Any]] = []  # in the order Cursor shows them
        i = 0
        while i < MESSAGES_PER_SESSION:
            bubbles.append({"type": 1, "createdAt": ts(base, i), "text": text(rng)})
            if rng.random() < 0.5:  # a tool bubble: the call, and its result as a tool message
                bubbles.append({"type": 2, "createdAt": ts(base, i + 1), "capabilityType": 15,
                                "toolFormerData": {
                                    "tool": 15, "name": "run_terminal_cmd",
                                    "toolCallId": f"toolu_{s}_{i}", "status": "completed",
                                    "rawArgs": json.dumps({"command": _command(rng)}),
                                    "result": json.dumps({"output": text(rng) * 3,
                                                          "exitCode": 0})}})
                i += 2
            answer: dict[str, Any] = {"type": 2, "createdAt": ts(base, i + 1), "text": text(rng)}
            if rng.random() < 0.3:
                answer["thinking"] = {"text": text(rng), "signature": "sig"}
            bubbles.append(answer)
            if rng.random() < 0.1:
                kv.append((f"checkpointId:{cid}:cp{i}",
                           dump({"files": [], "nonExistentFiles": []})))
            i += 2
        headers = []
        for n, bubble in enumerate(bubbles):
            bid = f"b{n:05d}"
            headers.append({"bubbleId": bid, "type": bubble["type"]})
            kv.append((f"bubbleId:{cid}:{bid}", dump(
                {"_v": 3, "bubbleId": bid, "richText": "", "isAgentic": True, **bubble})))
        workspace = {"id": "c0ffee00", "uri": {"$mid": 1, "fsPath": CWD, "path": CWD,
                                               "external": f"file://{CWD}", "scheme": "file"}}
        kv.append((f"composerData:{cid}", dump(
            {"_v": 10, "composerId": cid, "name": sentence(rng, 4), "text": "", "richText": "",
             "status": "completed", "unifiedMode": "agent", "createdAt": ms(base, 0),
             "lastUpdatedAt": ms(base, i), "workspaceIdentifier": workspace,
             "fullConversationHeadersOnly": headers, "conversationMap": {}})))
        listing.append({"composerId": cid, "name": sentence(rng, 4), "createdAt": ms(base, 0)})
    items = [("workbench.colorTheme", "Cursor Dark"),
             ("composer.composerHeaders", dump({"allComposers": listing}))]
    path = folder / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as connection:
        for table, rows in (("ItemTable", items), ("cursorDiskKV", kv)):
            connection.execute(f"CREATE TABLE {table} (key TEXT UNIQUE ON CONFLICT REPLACE, "
                               "value BLOB)")  # as Cursor's
            connection.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows)
    connection.close()


# Cline: a task folder per session ---------------------------------------------------------------

def cline(folder: Path, sessions: int, rng: random.Random) -> None:
    storage = folder / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev"
    environment = {"type": "text", "text": (
        "<environment_details>\n# VSCode Visible Files\nREADME.md\n\n# Current Time\n"
        f"1/1/2026, 8:00:00 AM (Europe/Zurich, UTC+1:00)\n\n# Current Working Directory ({CWD}) "
        "Files\nREADME.md\nsrc/\n\n# Current Mode\nACT MODE\n</environment_details>")}
    tasks = []
    for s in range(sessions):
        base = BASE + s * 86400
        task_id = str(ms(base, 0))
        history: list[dict[str, Any]] = []
        ui: list[dict[str, Any]] = []
        result: dict[str, Any] | None = None  # a tool result goes out with the next user message
        first = ""
        i = 0
        while i < MESSAGES_PER_SESSION:
            words, tag = text(rng), "task" if i == 0 else "feedback"
            first = first or words
            history.append({"role": "user", "ts": ms(base, i), "content": [
                *([result] if result else []),
                {"type": "text", "text": f"<{tag}>\n{words}\n</{tag}>"}, environment]})
            ui.append({"ts": ms(base, i), "type": "say", "say": "task" if i == 0 else
                       "user_feedback", "text": words,
                       "conversationHistoryIndex": len(history) - 2})
            blocks: list[dict[str, Any]] = []
            if rng.random() < 0.3:
                blocks.append({"type": "thinking", "thinking": text(rng), "signature": "sig"})
            blocks.append({"type": "text", "text": text(rng)})
            result = None
            if rng.random() < 0.5:
                call, command = f"toolu_{s}_{i}", _command(rng)
                blocks.append({"type": "tool_use", "id": call, "name": "execute_command",
                               "input": {"command": command, "requires_approval": False}})
                result = {"type": "tool_result", "tool_use_id": call, "content":
                          f"[execute_command for '{command}'] Result:\nCommand executed.\n"
                          f"Output:\n{text(rng) * 3}"}
                i += 1
            history.append({"role": "assistant", "ts": ms(base, i + 1), "content": blocks})
            ui.append({"ts": ms(base, i + 1), "type": "say", "say": "api_req_started",
                       "text": "{}", "conversationHistoryIndex": len(history) - 2})
            i += 2
        if result:
            history.append({"role": "user", "ts": ms(base, i), "content": [result, environment]})
        task = storage / "tasks" / task_id
        task.mkdir(parents=True, exist_ok=True)
        (task / "api_conversation_history.json").write_text(dump(history), "utf-8")
        (task / "ui_messages.json").write_text(dump(ui), "utf-8")
        tasks.append({"id": task_id, "ts": ms(base, i), "task": first, "tokensIn": 9120,
                      "tokensOut": 611, "totalCost": 0.04, "cwdOnTaskInitialization": CWD})
    (storage / "state").mkdir(parents=True, exist_ok=True)
    (storage / "state" / "taskHistory.json").write_text(dump(tasks), "utf-8")


# opencode: session, message and part rows in opencode.db --------------------------------------

OPENCODE_SCHEMA = """
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text,
  time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text,
  slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
"""
STEP_FINISH = {"type": "step-finish", "reason": "stop", "cost": 0.01, "tokens": {
    "input": 10, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}}}


def opencode(folder: Path, sessions: int, rng: random.Random) -> None:
    path = folder / "opencode" / "opencode.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    connection.executescript(OPENCODE_SCHEMA)
    project = "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"
    connection.execute("INSERT INTO project VALUES (?,?,?,?,?,?,?)",
                       (project, CWD, "git", "app", BASE * 1000, BASE * 1000, "[]"))
    for s in range(sessions):
        sid, base = f"ses_{s:06d}ffeBenchSession", BASE + s * 86400
        messages: list[tuple[Any, ...]] = []
        parts: list[tuple[Any, ...]] = []

        def message(role: str, i: int, content: list[dict[str, Any]], sid: str = sid,
                    base: float = base, messages: list[tuple[Any, ...]] = messages,
                    parts: list[tuple[Any, ...]] = parts, **data: Any) -> str:
            mid, at = f"msg_{sid[4:10]}{len(messages):06d}", ms(base, i)
            info = {"role": role, "time": {"created": at}, **data}
            messages.append((mid, sid, at, at, dump(info)))
            parts.extend((f"prt_{mid[4:]}{n:03d}", mid, sid, at, at, dump(part))
                         for n, part in enumerate(content))
            return mid

        i = 0
        while i < MESSAGES_PER_SESSION:
            prompt = message("user", i, [{"type": "text", "text": text(rng)}], agent="build")
            content: list[dict[str, Any]] = [{"type": "step-start", "snapshot": "9c1e2d3f"}]
            if rng.random() < 0.3:
                content.append({"type": "reasoning", "text": text(rng), "time": {"start": 1}})
            content.append({"type": "text", "text": text(rng)})
            if rng.random() < 0.5:
                state = {"status": "completed", "input": {"command": _command(rng)},
                         "output": text(rng) * 3, "title": "bash", "metadata": {},
                         "time": {"start": 1, "end": 2}}
                content.append({"type": "tool", "callID": f"toolu_{s}_{i}", "tool": "bash",
                                "state": state})
                i += 1
            message("assistant", i + 1, [*content, STEP_FINISH], parentID=prompt,
                    modelID="claude-sonnet-4-5", providerID="anthropic", mode="build",
                    path={"cwd": CWD, "root": CWD})
            i += 2
        connection.execute(
            "INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?)",
            (sid, project, None, "brave-otter", CWD, sentence(rng, 5), "1.2.10", ms(base, 0),
             ms(base, i)))
        connection.executemany("INSERT INTO message VALUES (?,?,?,?,?)", messages)
        connection.executemany("INSERT INTO part VALUES (?,?,?,?,?,?)", parts)
    connection.commit()
    connection.close()


# Copilot Chat in VS Code: chatSessions/<id>.json written whole -------------------------------

def copilot(folder: Path, sessions: int, rng: random.Random) -> None:
    storage = folder / "Code" / "User" / "workspaceStorage" / "5c2e9a7f1b3d4e6a8c0f2b4d6e8a0c1e"
    chats = storage / "chatSessions"
    chats.mkdir(parents=True, exist_ok=True)
    (storage / "workspace.json").write_text(json.dumps({"folder": f"file://{CWD}"}), "utf-8")

    def markdown(value: str) -> dict[str, Any]:
        return {"value": value, "supportThemeIcons": False, "supportHtml": False}

    for s in range(sessions):
        sid, base = f"55555555-0000-4000-8000-{s:012d}", BASE + s * 86400
        requests = []
        i = 0
        while i < MESSAGES_PER_SESSION:
            prompt, response = text(rng), list[dict[str, Any]]()
            if rng.random() < 0.3:
                response.append({"kind": "thinking", "value": text(rng), "id": f"thinking_{i}"})
            asked = i
            if rng.random() < 0.5:
                command = _command(rng)
                response.append({
                    "kind": "toolInvocationSerialized", "toolId": "run_in_terminal",
                    "toolCallId": f"call_{s}_{i}", "isConfirmed": {"type": 4},
                    "invocationMessage": markdown(f"Running `{command}`"),
                    "pastTenseMessage": markdown(f"Ran `{command}`"),
                    "isComplete": True, "toolSpecificData": {
                        "kind": "terminal", "language": "sh", "commandLine": {"original": command},
                        "terminalCommandOutput": {"text": text(rng) * 3, "lineCount": 3},
                        "terminalCommandState": {"exitCode": 0, "duration": 2310}}})
                i += 1
            response.append(markdown(text(rng)))
            if rng.random() < 0.1:
                response.append({"kind": "undoStop", "id": f"stop_{i}"})
            request: dict[str, Any] = {
                "requestId": f"request_{s}_{asked}", "message": {"text": prompt, "parts": [
                    {"range": {"start": 0, "endExclusive": len(prompt)}, "text": prompt,
                     "kind": "text"}]},
                "variableData": {"variables": []}, "response": response,
                "responseId": f"response_{s}_{asked}",
                "result": {"timings": {"totalElapsed": 4200}},
                "followups": [], "modelState": {"value": 1, "completedAt": ms(base, i + 1)},
                "contentReferences": [], "codeCitations": [], "timestamp": ms(base, asked),
                "modelId": "copilot/gpt-4.1", "agent": {"id": "github.copilot.editsAgent",
                                                        "name": "agent"}}
            requests.append(request)
            i += 2
        chat = {"version": 3, "responderUsername": "GitHub Copilot", "initialLocation": "panel",
                "requests": requests, "sessionId": sid, "creationDate": ms(base, 0),
                "customTitle": sentence(rng, 4), "requesterUsername": "lin"}
        (chats / f"{sid}.json").write_text(dump(chat), "utf-8")


GENERATORS = {"cursor": cursor, "cline": cline, "opencode": opencode, "copilot": copilot}
