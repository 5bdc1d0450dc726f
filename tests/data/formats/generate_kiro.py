"""Kiro CLI's fixtures, laid out as under ~/.kiro and ~/.local/share (run: `python generate_kiro.py`; the
output is committed). The shapes follow aws/amazon-q-developer-cli at 16d05aa5 (release 1.28.3):
the session log of crates/agent/src/agent/event_log.rs and agent_loop/types.rs, the metadata of
crates/chat-cli-v2/src/agent/session/mod.rs, the database of crates/chat-cli/src/database/ and
the conversation state of crates/chat-cli/src/cli/chat/{conversation,message}.rs. See
kiro/README.md for what each file holds.

kiro/sessions/cli/         two session logs (one with its metadata, one without), with the traps
kiro/kiro-cli/data.sqlite3 the database: conversations_v2 with three rows
kiro/Kiro/User/globalStorage/kiro.kiroagent/
                           Kiro IDE's store (as under ~/.config): a .chat file, two
                           workspace-sessions files with their sessions.json, an execution log;
                           Kiro IDE is closed source, so the shapes follow kenn-io/agentsview's
                           internal/parser/kiro_ide.go @ 538600744d1b87614d3746d36a0966c1f2ac1cad
"""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
from typing import Any

from fixture_io import HERE, dump, write_lines

ROOT = HERE / "kiro"
LOGS = ROOT / "sessions" / "cli"  # as under ~/.kiro
DATABASE = ROOT / "kiro-cli" / "data.sqlite3"  # as under ~/.local/share
LEDGER = "/home/lin/code/ledger"
MAIN = "3f1c9a2e-5b7d-4e60-8a1b-2c3d4e5f6a70"
BARE = "8d2e4f60-1a3b-4c5d-9e7f-0a1b2c3d4e5f"
DB_MAIN = "c0a1b2c3-d4e5-4f60-8172-8394a5b6c7d8"
DB_BROKEN = "c0a1b2c3-d4e5-4f60-8172-000000000bad"
DB_EMPTY = "c0a1b2c3-d4e5-4f60-8172-0000000000e0"


def entry(kind: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"version": "v1", "kind": kind, **({"data": data} if data is not None else {})}


def text(value: str) -> dict[str, Any]:
    return {"kind": "text", "data": value}


def tool_use(tool_id: str, name: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "toolUse", "data": {"toolUseId": tool_id, "name": name, "input": value}}


def tool_result(tool_id: str, status: str, *content: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "toolResult", "data": {"toolUseId": tool_id, "content": list(content),
                                           "status": status}}


def logs() -> None:
    big = "test result: 212 passed\n" + "ok\n" * 400
    main = [
        entry("Prompt", {"message_id": "p-01", "meta": {"timestamp": 1773479524},
                         "content": [text("The monthly export rounds VAT wrong for Swiss "
                                          "invoices; fix the rounding to 0.05 CHF.")]}),
        entry("AssistantMessage", {"message_id": "a-01", "content": [
            {"kind": "thinking", "data": {"text": "Find round_vat first.", "signature": None}},
            text("Let me find the VAT rounding helper."),
            tool_use("tooluse_grep1", "grep", {"pattern": "round_vat", "path": "src"}),
            tool_use("tooluse_shell1", "shell", {"command": "uv run pytest -q"})]}),
        entry("ToolResults", {"message_id": "r-01", "content": [
            tool_result("tooluse_grep1", "success",
                        {"kind": "text", "data": "src/ledger/vat.py:41: def round_vat(a):"}),
            tool_result("tooluse_shell1", "success", {"kind": "json", "data": {
                "exit_status": "exit status: 0", "stdout": big, "stderr": ""}})],
            "results": {}}),
        entry("AssistantMessage", {"message_id": "a-02", "content": [
            text("Swiss invoices now round VAT to the nearest 0.05 CHF; all 212 tests pass.")]}),
        # a screenshot pasted alone
        entry("Prompt", {"message_id": "p-02", "meta": {"timestamp": 1773479700},
                         "content": [{"kind": "image", "data": {"format": "png",
                                                                "source": {"bytes": [137, 80]}}}]}),
        entry("AssistantMessage", {"message_id": "a-03", "content": [
            text("The screenshot shows the invoice total rounded to 12.35 CHF, as expected.")]}),
        # a prompt the user cancelled before any answer
        entry("Prompt", {"message_id": "p-03", "meta": {"timestamp": 1773479760},
                         "content": [text("also check the EUR invoices")]}),
        entry("CancelledPrompt"),
        # a detour the user rewound (/rewind to entry 8: these two lines are dropped)
        entry("Prompt", {"message_id": "p-04", "meta": {"timestamp": 1773479800},
                         "content": [text("rename round_vat to vat_round everywhere")]}),
        entry("AssistantMessage", {"message_id": "a-04", "content": [
            tool_use("tooluse_write1", "write", {"path": "src/ledger/vat.py"})]}),
        entry("ResetTo", {"target_index": 8}),
        entry("Compaction", {"summary": "Fixed Swiss VAT rounding to 0.05 CHF; tests pass.",
                             "strategy": {}, "messages_snapshot": []}),
        entry("Clear"),
        {"version": "v1", "kind": "Checkpoint", "data": {"tag": "after-fix"}},  # unknown kind
        42,
        entry("Prompt", {"message_id": "p-05", "meta": {"timestamp": 1773479900},
                         "content": [text("Thanks, commit it.")]}),
        entry("AssistantMessage", {"message_id": "a-05", "content": [
            text(""), tool_use("tooluse_shell2", "shell", {
                "command": "git commit -am 'Round Swiss VAT'",
                "__tool_use_purpose": "Commit the fix"})]}),
        entry("ToolResults", {"message_id": "r-02", "content": [
            tool_result("tooluse_shell2", "error", {"kind": "json", "data": {
                "exit_status": "exit status: 1", "stdout": "",
                "stderr": "error: nothing to commit"}})],
            "results": {}}),
    ]
    torn = dump(entry("AssistantMessage", {"message_id": "a-06", "content": [text("It was alr")]}))
    write_lines(LOGS / f"{MAIN}.jsonl", main, torn=torn[: len(torn) // 2])
    metadata = {"session_id": MAIN, "cwd": LEDGER, "created_at": "2026-03-14T09:12:00Z",
                "updated_at": "2026-03-14T09:18:30Z", "title": "Swiss VAT rounding",
                "session_state": {"version": "v1", "conversation_metadata": {},
                                  "rts_model_state": {}, "permissions": {}, "agent_name": None}}
    (LOGS / f"{MAIN}.json").write_text(json.dumps(metadata, indent=2), "utf-8")
    # an earlier release's log: no message ids, no timestamps, and no metadata file beside it
    write_lines(LOGS / f"{BARE}.jsonl", [
        entry("Prompt", {"content": [text("What does the ledger CLI's --dry-run flag do?")]}),
        entry("AssistantMessage", {"content": [text("It prints the postings it would write "
                                                    "and exits without saving.")]}),
    ])


# the database ---------------------------------------------------------------------------------

SCHEMA = """
CREATE TABLE migrations (id INTEGER PRIMARY KEY, version INTEGER NOT NULL,
  migration_time INTEGER NOT NULL);
CREATE TABLE history (id INTEGER PRIMARY KEY, command TEXT, shell TEXT, pid INTEGER,
  session_id TEXT, cwd TEXT, start_time INTEGER, hostname TEXT, exit_code INTEGER,
  end_time INTEGER, duration INTEGER);
CREATE TABLE state (key TEXT PRIMARY KEY, value BLOB);
CREATE TABLE auth_kv (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE conversations_v2 (key TEXT NOT NULL, conversation_id TEXT NOT NULL,
  value TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  PRIMARY KEY (key, conversation_id));
"""


def user(content: dict[str, Any], when: str | None, context: str = "",
         images: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"additional_context": context, "env_context": {"env_state": None},
            "content": content, "timestamp": when, "images": images}


def meta(start_ms: int, end_ms: int) -> dict[str, Any]:
    return {"request_id": None, "message_id": "m", "request_start_timestamp_ms": start_ms,
            "stream_end_timestamp_ms": end_ms, "time_to_first_chunk": None,
            "time_between_chunks": [], "user_prompt_length": 0, "response_size": 0,
            "chat_conversation_type": None, "tool_use_ids_and_names": [], "model_id": None,
            "message_meta_tags": []}


def state(conversation_id: str, history: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"conversation_id": conversation_id, "next_message": None, "history": history,
            "valid_history_range": [0, len(history)], "transcript": ["> (the screen's text)"],
            "tools": {}, "context_manager": None, "context_message_length": None,
            "latest_summary": None, "model_info": None, "file_line_tracker": {},
            "checkpoint_manager": None, "mcp_enabled": True, **extra}


def main_conversation() -> dict[str, Any]:
    results = {"tool_use_results": [
        {"tool_use_id": "tooluse_read1", "status": "Success",
         "content": [{"Text": "RATES = {'EUR': 1.0, 'CHF': 0.94}\n" + "# rate\n" * 200}]},
        {"tool_use_id": "tooluse_ls1", "status": "Error",
         "content": [{"Json": {"error": "no such folder: rates/"}}]}]}
    history = [
        {"user": user({"Prompt": {"prompt": "Where do the currency rates in fx.py come from?"}},
                      "2026-03-12T10:00:00.000+01:00",
                      context="--- CONTEXT ENTRY BEGIN ---\nAGENTS.md ...\n--- END ---"),
         "assistant": {"ToolUse": {"message_id": "resp-1", "content": "Let me read fx.py.",
                                   "tool_uses": [
                                       {"id": "tooluse_read1", "name": "fs_read",
                                        "orig_name": "fs_read",
                                        "args": {"path": f"{LEDGER}/fx.py"},
                                        "orig_args": {"path": f"{LEDGER}/fx.py"}},
                                       {"id": "tooluse_ls1", "name": "fs_read",
                                        "orig_name": "fs_read", "args": {"path": "rates/"},
                                        "orig_args": {"path": "rates/"}}]}},
         "request_metadata": meta(1773306001000, 1773306004000)},
        {"user": user({"ToolUseResults": results}, None),
         "assistant": {"Response": {"message_id": "resp-2",
                                    "content": "They are hard-coded in RATES in fx.py."}},
         "request_metadata": meta(1773306005000, 1773306009000)},
        # the user pressed Ctrl-C during a tool call, then typed a new prompt
        {"user": user({"CancelledToolUses": {
            "prompt": "Keep them hard-coded, but add a freshness test.",
            "tool_use_results": [{"tool_use_id": "tooluse_curl1", "status": "Error",
                                  "content": []}]}},
            "2026-03-12T10:05:00.000+01:00",
            images=[{"format": "png", "source": {"Bytes": [137, 80]}}]),
         "assistant": {"Response": {"message_id": None,
                                    "content": "Added test_rates_are_fresh to tests/test_fx.py."}},
         "request_metadata": None},
        "not an entry",
    ]
    return state(DB_MAIN, history, latest_summary=[
        "Kept hand-written FX rates; added a freshness test.", meta(0, 0)])


def database() -> None:
    DATABASE.parent.mkdir(parents=True, exist_ok=True)
    DATABASE.unlink(missing_ok=True)
    with sqlite3.connect(DATABASE) as db:
        db.executescript(SCHEMA)
        db.executemany("INSERT INTO migrations VALUES (?, ?, ?)",
                       [(n, n, 1773000000) for n in range(9)])
        db.execute("INSERT INTO state VALUES ('telemetryClientId', '\"x\"')")
        rows = [(LEDGER, DB_MAIN, json.dumps(main_conversation()), 1773306000000, 1773306309000),
                (f"{LEDGER}/docs", DB_EMPTY, json.dumps(state(DB_EMPTY, [])), 1773307000000,
                 1773307000000),
                ("/home/lin/scratch", DB_BROKEN, '{"conversation_id": "c0a1b2c3-d4e5-4f60-81',
                 1773308000000, 1773308000000)]
        db.executemany("INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)", rows)
        # the table before 008 migrated into conversations_v2; its copy is not read again
        db.execute("INSERT INTO conversations VALUES (?, ?)", (LEDGER, rows[0][2]))
    with sqlite3.connect(DATABASE) as db:
        db.execute("PRAGMA journal_mode = DELETE")
        db.execute("VACUUM")


IDE = ROOT / "Kiro" / "User" / "globalStorage" / "kiro.kiroagent"  # as under ~/.config
IDE_SESSION = "6b1e2f30-4a5c-4d7e-8f90-a1b2c3d4e5f6"
IDE_BARE = "6b1e2f30-4a5c-4d7e-8f90-0000000000b2"
EXECUTION = "e7a0c1d2-3b4c-4d5e-8f60-718293a4b5c6"
CHAT_FILE = "9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f"  # the .chat file's own hash


def workspace_hash(folder: str) -> str:
    return hashlib.sha256(folder.encode()).hexdigest()[:32]  # kiroIDEExecLogDir


def ide() -> None:
    workspace = IDE / workspace_hash(LEDGER)
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / f"{CHAT_FILE}.chat").write_text(json.dumps({
        "executionId": "e7a0c1d2-3b4c-4d5e-8f60-000000000c01", "actionId": "act-01",
        "context": [{"type": "file", "path": "src/ledger/export.py"}],
        "chat": [
            {"role": "human", "content": "# System Prompt\nYou are Kiro, an AI assistant."},
            {"role": "bot", "content": "I will follow these instructions."},
            {"role": "human", "content": "<kiro-ide-message>Why does the CSV export drop the "
                                         "last invoice line?</kiro-ide-message>"},
            {"role": "bot", "content": "The loop in export_csv stops one row early: it runs "
                                       "over range(len(rows) - 1)."},
            {"role": "tool", "content": "src/ledger/export.py:12: for i in range(len(rows) - 1):"
                                        + "\n" + "row ok" * 100},
            {"role": "bot", "content": "  "},
            {"role": "human", "content": "Fix it and add a regression test."},
            {"role": "bot", "content": "Fixed: export_csv iterates over every row now; "
                                       "test_last_row_exported covers it."},
            {"role": "system", "content": "context window 41% used"}],
        "metadata": {"modelId": "claude-sonnet-4", "workflow": "act", "workflowId": "wf-01",
                     "startTime": 1773652800000, "endTime": 1773653100000}}, indent=2), "utf-8")
    sessions = IDE / "workspace-sessions" / base64.b64encode(LEDGER.encode()).decode()
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / "sessions.json").write_text(json.dumps([
        {"sessionId": IDE_SESSION, "title": "Rate limiter for the export API",
         "dateCreated": "1773739200000", "workspaceDirectory": LEDGER},
        {"sessionId": IDE_BARE, "title": "", "dateCreated": "1773825600000",
         "workspaceDirectory": LEDGER}]), "utf-8")
    (sessions / f"{IDE_SESSION}.json").write_text(json.dumps({
        "sessionId": IDE_SESSION, "title": "Rate limiter for the export API",
        "workspaceDirectory": LEDGER, "history": [
            {"message": {"role": "user", "id": "m-01", "content": "Add a rate limiter to the "
                         "export API: ten requests a minute for each key."}, "contextItems": []},
            {"message": {"role": "assistant", "id": "m-02", "content": "On it."},
             "executionId": EXECUTION, "promptLogs": [{"completion": "(superseded by the log)"}]},
            {"message": {"role": "tool", "id": "m-03", "content": "wrote api/limits.py"}},
            {"message": {"role": "user", "id": "m-04", "content": [
                {"type": "text", "text": "Show this page when a caller is throttled."},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}},
            {"message": {"role": "assistant", "id": "m-05", "content": ""},
             "executionId": "e7a0c1d2-3b4c-4d5e-8f60-00000000dead",  # its log is gone
             "promptLogs": [{"completion": "The 429 page now shows when to retry, from the "
                                           "Retry-After header."}, {"completion": " "}]},
            "not a turn"]}, indent=2), "utf-8")
    (sessions / f"{IDE_BARE}.json").write_text(json.dumps({
        "sessionId": IDE_BARE, "title": "", "workspaceDirectory": LEDGER, "history": [
            {"message": {"role": "user", "content": "Which Python does the ledger CI use?"}},
            {"message": {"role": "assistant", "content": [
                {"type": "text", "text": "Python 3.12, pinned in .python-version."}]}}]}),
        "utf-8")
    executions = workspace / "414d1636299d2b9e4ce7e17fb11f63e9"  # kiroIDEExecSubdir
    executions.mkdir(parents=True, exist_ok=True)
    (executions / "5f0e1d2c3b4a59687766554433221100").write_text(json.dumps({
        "executionId": EXECUTION, "workflowType": "chat-agent", "actions": [
            {"actionId": "a1", "actionType": "say",
             "output": {"message": "I'll add a token bucket in api/limits.py."}},
            {"actionId": "a2", "actionType": "readCode", "input": {"file": "api/export.py"}},
            {"actionId": "a3", "actionType": "create", "input": {
                "file": "api/limits.py", "modifiedContent": "RATE = 10  # a minute\n" * 40}},
            {"actionId": "a4", "actionType": "replace", "input": {
                "file": "api/export.py", "originalContent": "def export(key):\n",
                "modifiedContent": "@limited(RATE)\ndef export(key):\n"}},
            {"actionId": "a5", "actionType": "taskList", "output": {"tasks": ["limiter"]}},
            {"actionId": "a6", "actionType": "say",
             "output": {"message": "Done: export answers 429 past ten requests a minute."}}]}),
        "utf-8")


def kiro() -> None:
    logs()
    database()
    ide()


if __name__ == "__main__":
    kiro()
