"""Windsurf's fixtures, laid out as under its `User` folder (see windsurf/README.md for where the
shapes come from). Run on its own or from generate.py.

windsurf/Windsurf/User/workspaceStorage/<hash>/state.vscdb   a workspace's chat panel under
                                                             aiChat.chatdata (tabs and bubbles)
windsurf/Windsurf/User/workspaceStorage/<hash2>/state.vscdb  a VS Code chat session under the
                                                             panel key, a damaged row beside it
windsurf/Windsurf/User/globalStorage/state.vscdb             Windsurf's own state, no chat
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from fixture_io import HERE, dump

ROOT = HERE / "windsurf"
USER = ROOT / "Windsurf" / "User"
WS_TABS = "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c"
WS_SESSION = "4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d"
TAB_MAIN = "b6c7d8e9-0a1b-4c2d-8e3f-4a5b6c7d8e9f"
TAB_SHOT = "c7d8e9f0-1a2b-4c3d-9e4f-5a6b7c8d9e0f"
TAB_IDLE = "d8e9f0a1-2b3c-4d4e-8f5a-6b7c8d9e0f1a"
SESSION = "e9f0a1b2-3c4d-4e5f-9a6b-7c8d9e0f1a2b"
SCHEMA = "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"  # VS Code's


def ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).replace(tzinfo=UTC).timestamp() * 1000)


def write_db(path, rows: list[tuple[str, object]]) -> None:
    """A state.vscdb with VS Code's ItemTable; a str value is stored as given (JSON text, or
    damage), anything else as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    connection = sqlite3.connect(path)
    with connection:
        connection.execute(SCHEMA)
        connection.executemany("INSERT INTO ItemTable VALUES (?, ?)", [
            (key, value if isinstance(value, str) else dump(value)) for key, value in rows])
    connection.close()


def tabs() -> dict:
    """Three tabs: a conversation (a rawText answer, an unknown bubble, an empty one), a
    screenshot sent without words, one never sent; and a tab without an id."""
    main = {"tabId": TAB_MAIN, "chatTitle": "Cache the exchange rates\n(edited)",
            "lastSendTime": ms("2026-03-12T14:05:00"),
            "bubbles": [
                {"type": "user", "id": "u1", "text": "Cache the ECB exchange rates for a day; "
                 "the key is sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKE0000", "timestamp":
                 ms("2026-03-12T14:00:00")},
                {"type": "ai", "id": "a1", "rawText": "Use functools.lru_cache with a TTL "
                 "wrapper; here is the change.", "text": "Use functools.lru_cache",
                 "timestamp": ms("2026-03-12T14:00:20")},
                {"type": "system", "id": "s1", "text": "context refreshed"},
                {"type": "user", "id": "u2", "text": "Make the TTL configurable.",
                 "timestamp": ms("2026-03-12T14:04:00")},
                {"type": "ai", "id": "a2", "text": "", "timestamp": ms("2026-03-12T14:04:30")},
                {"type": "ai", "id": "a3", "text": "Added RATES_TTL_SECONDS to settings.py.",
                 "timestamp": ms("2026-03-12T14:05:00")}]}
    shot = {"tabId": TAB_SHOT, "chatTitle": "",
            "bubbles": [{"type": "user", "id": "u3", "text": "",
                         "images": [{"uuid": "img-1", "dimension": {"width": 800}}],
                         "timestamp": ms("2026-03-13T08:00:00")},
                        {"type": "ai", "id": "a4", "text": "That is a 502 from the rates API.",
                         "timestamp": ms("2026-03-13T08:00:09")}]}
    idle = {"tabId": TAB_IDLE, "chatTitle": "New chat",
            "bubbles": [{"type": "ai", "id": "a5", "text": "How can I help?"}]}
    return {"tabs": [main, shot, idle, {"chatTitle": "no id", "bubbles": []}]}


def vscode_session() -> dict:
    """One VS Code chat session (ISerializableChatData), as some builds keep under the key."""
    return {"version": 3, "sessionId": SESSION, "creationDate": ms("2026-03-15T10:00:00"),
            "customTitle": "Flaky invoice test", "requesterUsername": "lin",
            "responderUsername": "Cascade",
            "requests": [
                {"requestId": "request_1", "timestamp": ms("2026-03-15T10:00:00"),
                 "message": {"text": "Why does test_invoice_totals fail on Mondays?",
                             "parts": []},
                 "variableData": {"variables": []},
                 "response": [{"value": "It builds the week from date.today(); "
                               "freeze the date in the test."}]},
                {"requestId": "request_2", "timestamp": ms("2026-03-15T10:03:00"),
                 "message": {"text": "Do it with time-machine.", "parts": []},
                 "variableData": {"variables": []},
                 "response": [{"value": "Done: the test now travels to 2026-03-16."}]}]}


def windsurf() -> None:
    workspace = USER / "workspaceStorage"
    write_db(workspace / WS_TABS / "state.vscdb", [
        ("codeium.windsurf", {"lastSeenVersion": "1.9.4"}),
        ("workbench.explorer.treeViewState", {"focus": [], "expanded": []}),
        ("aiChat.chatdata", tabs())])
    (workspace / WS_TABS / "workspace.json").write_text(
        json.dumps({"folder": "file:///home/lin/code/rates"}), "utf-8")
    write_db(workspace / WS_SESSION / "state.vscdb", [
        ("windsurf.cascadeViewState", {"open": True}),
        ("aiChat.chatdata", '{"tabs": [{"tabId": "x", "bub'),  # a row cut short
        ("workbench.panel.aichat.view.aichat.chatdata", vscode_session())])
    (workspace / WS_SESSION / "workspace.json").write_text(
        json.dumps({"folder": "file:///home/lin/code/invoices"}), "utf-8")
    write_db(USER / "globalStorage" / "state.vscdb", [
        ("codeium.windsurf", {"installationId": "00000000-0000-4000-8000-000000000000"}),
        ("windsurfAuthStatus", {"signedIn": True})])


if __name__ == "__main__":
    windsurf()
