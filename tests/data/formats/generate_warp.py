"""Warp's fixtures, laid out as Warp keeps its database (see warp/README.md for the sources);
generate.py runs this with the rest.

warp/warp-terminal/warp.sqlite   Linux layout: a conversation with its traps (the context Warp
                                 attaches to a prompt, tool results fed back, a failed one, an
                                 empty follow-up, an unreadable input, an unknown input item,
                                 a task list in protobuf), one from a release that wrote epoch
                                 milliseconds, and two with nothing to import
warp/Warp/data/warp.sqlite       Windows layout of a release that kept the agent's output
                                 (`ai_blocks`): its words, its actions, an unreadable and a
                                 failed output
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from fixture_io import HERE

ROOT = HERE / "warp"
LEDGER = "/home/lin/code/ledger"

MAIN = "e05f25f4-4e57-411a-b126-f4c9ebca6781"
EPOCH = "1237cec7-c68c-4f77-986f-0746e5fc4655"
USAGE_ONLY = "3b9d2c1a-7e6f-4a5b-9c8d-0f1e2d3c4b5a"
FOLLOW_UP_ONLY = "4c0e3d2b-8f7a-4b6c-8d9e-1a2b3c4d5e6f"
ANSWERED = "5d1f4e3c-9a8b-4c7d-9e0f-2b3c4d5e6f70"

# the columns the public readers select (agentsview warp.go; the schema notes in README.md)
SCHEMA = """
CREATE TABLE ai_queries (id INTEGER PRIMARY KEY AUTOINCREMENT, exchange_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL, start_ts DATETIME NOT NULL, input TEXT NOT NULL,
  working_directory TEXT, output_status TEXT NOT NULL, model_id TEXT NOT NULL DEFAULT '',
  planning_model_id TEXT NOT NULL DEFAULT '', coding_model_id TEXT NOT NULL DEFAULT '');
CREATE TABLE agent_conversations (id INTEGER PRIMARY KEY AUTOINCREMENT,
  conversation_id TEXT NOT NULL UNIQUE, conversation_data TEXT NOT NULL,
  last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE agent_tasks (id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id TEXT NOT NULL,
  task_id TEXT NOT NULL, task BLOB NOT NULL,
  last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE blocks (id INTEGER PRIMARY KEY AUTOINCREMENT, pane_leaf_uuid BLOB,
  stylized_command BLOB, stylized_output BLOB, pwd TEXT, exit_code INTEGER, start_ts DATETIME,
  completed_ts DATETIME, ai_metadata TEXT);
CREATE TABLE terminal_panes (id INTEGER PRIMARY KEY, cwd TEXT, conversation_ids TEXT);
"""
BLOCKS = "CREATE TABLE ai_blocks (id INTEGER PRIMARY KEY AUTOINCREMENT, exchange_id TEXT NOT " \
         "NULL, output TEXT NOT NULL);"

CONTEXT = [{"Directory": {"pwd": LEDGER, "home_dir": "/home/lin"}}, {"Git": {"head": "main"}},
           {"CurrentTime": {"current_time": "2026-04-07T10:55:40+02:00"}},
           {"ExecutionEnvironment": {"os": {"category": "Linux"}, "shell_name": "zsh"}}]


def query(text: str, **extra: Any) -> str:
    return json.dumps([{"Query": {"text": text, "context": CONTEXT, **extra}}])


def command_result(ident: str, command: str, output: str, failed: bool = False) -> dict[str, Any]:
    outcome = {"Error": {"command": command, "output": output, "exit_code": 1}} if failed \
        else {"Success": {"command": command, "output": output}}
    return {"ActionResult": {"id": ident, "result": {"RequestCommandOutput": {"result": outcome}}}}


def usage(credits: float) -> str:
    return json.dumps({"server_conversation_token": "9f1c7e2a-0000-4000-8000-00000000c0de",
                       "conversation_usage_metadata": {
                           "was_summarized": False, "credits_spent": credits,
                           "token_usage": [{"model_id": "claude 4.5 sonnet", "warp_tokens": 60518,
                                            "byok_tokens": 0}],
                           "tool_usage_metadata": {"run_command_stats": {"count": 3}}},
                       "todo_lists": [{"pending_items": [{"title": "Seed the jitter"}]}]})


def linux() -> None:
    path = ROOT / "warp-terminal" / "warp.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    test_output = "tests/test_retry.py::test_backoff PASSED\n" + "." * 500 + "\n212 passed"
    exchanges = [  # exchange, conversation, start, input, cwd, status
        ("ex-0001", MAIN, "2026-04-07 08:55:40.123456",
         query("why does test_backoff fail one run in five?"), LEDGER, "Completed"),
        ("ex-0002", MAIN, "2026-04-07 08:55:52.004000",
         json.dumps([command_result("toolu_01SGHZ", "uv run pytest -q -k backoff", test_output)]),
         LEDGER, "Completed"),
        ("ex-0003", MAIN, "2026-04-07 08:56:10", "[]", LEDGER, "Completed"),
        ("ex-0004", MAIN, "2026-04-07 08:57:01",
         json.dumps([command_result("toolu_02QRST", "git stash pop", "conflict in retry.py",
                                    failed=True),
                     {"PassiveSuggestion": {"kind": "prompt"}}]), LEDGER, "Completed"),
        ("ex-0005", MAIN, "2026-04-07 08:58:30", '[{"Query": {"text": "seed the jit', LEDGER,
         "Cancelled"),
        ("ex-0006", MAIN, "2026-04-07 09:02:00",
         query("seed the jitter with the test's seed and run it three times",
               referenced_attachments={"block-9": {"kind": "Block"}}), LEDGER, "Completed"),
        ("ex-0101", EPOCH, 1728233003631, query("list the export formats we support"),
         "/home/lin/code/exports", "Completed"),
        ("ex-0201", FOLLOW_UP_ONLY, "2026-04-08 07:00:00", "[]", LEDGER, "Completed"),
    ]
    db.executemany("INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, "
                   "working_directory, output_status, model_id) VALUES (?, ?, ?, ?, ?, ?, "
                   "'auto')", exchanges)
    db.executemany("INSERT INTO agent_conversations (conversation_id, conversation_data, "
                   "last_modified_at) VALUES (?, ?, ?)",
                   [(MAIN, usage(35.71), "2026-04-07 09:03:12"),
                    (USAGE_ONLY, usage(0.0), "2026-04-06 12:00:00")])
    db.execute("INSERT INTO agent_tasks (conversation_id, task_id, task) VALUES (?, ?, ?)",
               (MAIN, "7a1e0c3b-task", b"\x0a\x0d7a1e0c3b-task\x12\x0fSeed the jitter"))
    db.execute("INSERT INTO blocks (pwd, exit_code, ai_metadata) VALUES (?, 0, ?)",
               (LEDGER, json.dumps({"action_id": "toolu_01SGHZ", "conversation_id": MAIN})))
    db.commit()
    db.close()


def windows() -> None:
    """A release that kept the agent's output beside each exchange (`ai_blocks`)."""
    path = ROOT / "Warp" / "data" / "warp.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA + BLOCKS)
    cwd = "C:\\Users\\lin\\code\\atlas"
    db.executemany(
        "INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, "
        "working_directory, output_status) VALUES (?, ?, ?, ?, ?, ?)",
        [("ex-0301", ANSWERED, "2025-10-14 18:20:00", query("why is the atlas build slow?"), cwd,
          "Completed"),
         ("ex-0302", ANSWERED, "2025-10-14 18:20:31",
          json.dumps([command_result("toolu_03", "cargo build --timings", "atlas 41.2s")]), cwd,
          "Completed")])
    answer = {"Received": {"output": [
        {"Text": {"text": "Let me time the build."}},
        {"Action": {"id": "toolu_03", "action_type": {
            "RequestCommandOutput": {"command": "cargo build --timings", "is_read_only": True}}}}]}}
    db.executemany("INSERT INTO ai_blocks (exchange_id, output) VALUES (?, ?)", [
        ("ex-0301", json.dumps(answer)),
        ("ex-0302", json.dumps({"Received": {"output": [
            {"Text": {"text": "The cache key changes every run: atlas rebuilds from scratch."}},
            {"Citation": {"url": "https://doc.rust-lang.org/cargo/"}}]}})),
        ("ex-0302", '{"Received": {"output": [{"Text'),
        ("ex-0302", json.dumps({"Failed": {"error": "rate limited"}}))])
    db.execute("INSERT INTO agent_conversations (conversation_id, conversation_data, "
               "last_modified_at) VALUES (?, ?, ?)", (ANSWERED, usage(4.2), "2025-10-14 18:21:00"))
    db.commit()
    db.close()


def warp() -> None:
    linux()
    windows()


if __name__ == "__main__":
    warp()
