"""Goose's fixtures, laid out as under its data folder (~/.local/share/goose); generate.py runs this
with the rest (goose/README.md names the source each shape follows).

goose/sessions/sessions.db       the database of today's schema (13): a session with its traps
                                 (thinking, redacted thinking, tool calls with a long, a failed
                                 and a broken result, a message hidden from the user, a system
                                 notification, an unknown block, a screenshot alone, a message
                                 left empty, a torn row, a row of another role), a sub-agent's
                                 session still named "CLI Session", one without messages, and a
                                 message row of no session
goose/sessions/20250610_093015.jsonl   a session file goose copied into the database: not read
goose/schema-5/sessions/sessions.db    the schema of release 1.10 (5: no message_id, a
                                 description column), as a real database of it has it
goose/older-install/sessions/    session files of the releases before the database: one with
                                 its metadata line, results in the oldest shape and a torn last
                                 line; one named by the user, without a metadata line
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from fixture_io import HERE, dump, write_lines

ROOT = HERE / "goose"
LEDGER = "/home/lin/code/ledger"
T0 = 1773479520  # 2026-03-14T09:12:00Z, epoch seconds as goose writes them

V5_SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY,
  applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
  session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER,
  output_tokens INTEGER, accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER,
  accumulated_output_tokens INTEGER, schedule_id TEXT, recipe_json TEXT,
  user_recipe_values_json TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
  content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
  timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_timestamp ON messages(timestamp);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);
CREATE INDEX idx_sessions_type ON sessions(session_type);
"""
# what migrations 6 to 13 add (crates/goose/src/session/migrations.rs)
LATER = """
ALTER TABLE sessions ADD COLUMN provider_name TEXT;
ALTER TABLE sessions ADD COLUMN model_config_json TEXT;
ALTER TABLE messages ADD COLUMN message_id TEXT;
ALTER TABLE sessions ADD COLUMN goose_mode TEXT NOT NULL DEFAULT 'auto';
ALTER TABLE sessions ADD COLUMN thread_id TEXT;
CREATE TABLE threads (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'New Chat',
  user_set_name BOOLEAN DEFAULT FALSE, working_dir TEXT,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  archived_at TIMESTAMP, metadata_json TEXT DEFAULT '{}');
CREATE TABLE thread_messages (id INTEGER PRIMARY KEY AUTOINCREMENT,
  thread_id TEXT NOT NULL REFERENCES threads(id), session_id TEXT, message_id TEXT,
  role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
  metadata_json TEXT DEFAULT '{}');
ALTER TABLE sessions ADD COLUMN archived_at TIMESTAMP;
ALTER TABLE sessions ADD COLUMN project_id TEXT;
ALTER TABLE sessions ADD COLUMN accumulated_cost REAL;
"""
VISIBLE = {"userVisible": True, "agentVisible": True}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def call(ident: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "toolRequest", "id": ident,
            "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}}}


def result(ident: str, output: str, is_error: bool = False) -> dict[str, Any]:
    return {"type": "toolResponse", "id": ident, "toolResult": {"status": "success", "value": {
        "content": [{"type": "text", "text": output}], "isError": is_error}}}


TEST_OUTPUT = "".join(f"tests/test_vat.py::test_case_{n} PASSED\n" for n in range(60))
# (role, content, seconds after T0, metadata); content a string is a row goose could not parse
MAIN_MESSAGES: list[tuple[str, Any, int, dict[str, Any] | None]] = [
    ("user", [text("The monthly export rounds VAT wrong for Swiss invoices; round to 0.05 CHF.")],
     0, VISIBLE),
    ("assistant", [{"type": "thinking", "thinking": "Find every caller of round_vat.",
                    "signature": "sig-1"},
                   text("Let me find the callers of round_vat first."),
                   call("toolu_01", "developer__shell", {"command": "rg -n round_vat src"})], 4,
     {**VISIBLE, "inference": {"provider": "anthropic", "requestedModel": "claude-sonnet-4-5"}}),
    ("user", [result("toolu_01", "src/ledger/vat.py:41: def round_vat(amount):")], 5, VISIBLE),
    ("assistant", [{"type": "redactedThinking", "data": "EqQBCkYIARgCKkD"},
                   call("toolu_02", "developer__shell", {"command": "uv run pytest -q"})], 9, None),
    ("user", [result("toolu_02", TEST_OUTPUT)], 30, VISIBLE),
    ("assistant", [call("toolu_03", "developer__text_editor",
                        {"command": "write", "path": "CHANGELOG.md"})], 40, VISIBLE),
    ("user", [{"type": "toolResponse", "id": "toolu_03",
               "toolResult": {"status": "error", "error": "File CHANGELOG.md is read-only"}}],
     41, VISIBLE),
    ("user", [text("<info-msg>Current date: 2026-03-14</info-msg>")], 42,
     {"userVisible": False, "agentVisible": True}),
    ("assistant", [text("Rounding now goes to 0.05 CHF; CHANGELOG.md is read-only."),
                   {"type": "systemNotification", "notificationType": "inlineMessage",
                    "msg": "Context window 80% full"},
                   {"type": "mysteryWidget", "payload": 1}], 60, VISIBLE),
    ("user", [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}], 70, VISIBLE),
    ("assistant", [{"type": "actionRequired", "data": {
        "actionType": "toolConfirmation", "id": "toolu_04", "toolName": "developer__shell",
        "arguments": {"command": "git push"}, "prompt": None}}], 80, VISIBLE),
    ("assistant", '[{"type":"text","text":"torn', 85, VISIBLE),
    ("system", [text("You are goose.")], 86, VISIBLE),
]
CHILD_MESSAGES: list[tuple[str, Any, int, dict[str, Any] | None]] = [
    ("user", [text("List the modules that import round_vat.")], 6, VISIBLE),
    ("assistant", [text("export.py and invoice.py import it.")], 8, VISIBLE),
]


def goose() -> None:
    current()
    schema_five()
    older_install()


def _database(path: Path, later: bool) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.executescript(V5_SCHEMA + (LATER if later else ""))
    db.executemany("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                   [(v, "2026-03-01 08:00:00") for v in range(5, 14 if later else 6)])
    return db


def _messages(db: sqlite3.Connection, session: str, rows: list[tuple[str, Any, int, Any]],
              with_ids: bool, start: int = T0) -> None:
    for n, (role, content, after, metadata) in enumerate(rows):
        stored = content if isinstance(content, str) else json.dumps(content)
        values: list[Any] = [session, role, stored, start + after,
                             None if metadata is None else json.dumps(metadata)]
        columns = "session_id, role, content_json, created_timestamp, metadata_json"
        if with_ids:
            columns += ", message_id"
            values.append(f"msg_{session}_{n}")
        db.execute(f"INSERT INTO messages ({columns}) VALUES ({', '.join('?' * len(values))})",
                   values)


def current() -> None:
    db = _database(ROOT / "sessions" / "sessions.db", later=True)
    sessions = [("20260314_1", "Round Swiss VAT", 0, "user", "2026-03-14 09:12:00",
                 "2026-03-14 09:13:26"),
                ("20260314_2", "CLI Session", 0, "sub_agent", "2026-03-14 09:12:05",
                 "2026-03-14 09:12:08"),
                ("20260315_1", "CLI Session", 0, "user", "2026-03-15 10:00:00",
                 "2026-03-15 10:00:00")]
    db.executemany("INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, "
                   "created_at, updated_at, extension_data) VALUES (?, ?, ?, ?, ?, ?, ?, '{}')",
                   [(i, name, set_, kind, LEDGER, c, u) for i, name, set_, kind, c, u in sessions])
    _messages(db, "20260314_1", MAIN_MESSAGES, with_ids=True)
    _messages(db, "20260314_2", CHILD_MESSAGES, with_ids=True)
    _messages(db, "20260301_9", [("user", [text("a session deleted since")], -9, VISIBLE)], True)
    db.commit()
    db.close()
    # a session file of the older releases, copied into the database when goose created it
    write_lines(ROOT / "sessions" / "20250610_093015.jsonl", OLD_SESSION)


def schema_five() -> None:
    """The schema of a real database of release 1.10 (jwp23/dotfiles, schema_version 5)."""
    db = _database(ROOT / "schema-5" / "sessions" / "sessions.db", later=False)
    db.execute("INSERT INTO sessions (id, name, description, user_set_name, session_type, "
               "working_dir, created_at, updated_at) VALUES ('20251202_1', 'CLI Session', "
               "'Explain the vsl layout', 0, 'user', '/Users/lin/workspace/tmp/vsl', "
               "'2025-12-02 16:58:55', '2025-12-02 17:01:10')")
    _messages(db, "20251202_1", [
        ("user", [text("What does the vsl folder hold?")], 0, VISIBLE),
        ("assistant", [text("Three Verilog modules and their testbenches.")], 10, VISIBLE),
    ], with_ids=False, start=1764694740)  # 2025-12-02T16:59:00Z
    db.commit()
    db.close()


OLD_SESSION: list[Any] = [
    {"working_dir": "/home/lin/code/notes", "description": "Weekly todo cleanup",
     "schedule_id": None, "message_count": 4, "total_tokens": 812, "input_tokens": 700,
     "output_tokens": 112, "accumulated_total_tokens": 2403, "accumulated_input_tokens": 2100,
     "accumulated_output_tokens": 303},
    {"role": "user", "created": 1749548000,
     "content": [text("Archive the done items in TODO.md")]},
    {"role": "assistant", "created": 1749548004,
     "content": [{"type": "reasoning", "text": "Read the file first."},
                 call("toolu_a1", "developer__text_editor", {"command": "view",
                                                             "path": "TODO.md"})]},
    {"role": "user", "created": 1749548005,  # the oldest result shape: the content list alone
     "content": [{"type": "toolResponse", "id": "toolu_a1", "toolResult": {
         "status": "success", "value": [{"type": "text", "text": "- [x] file taxes\n- [ ] call"}]}}]},
    {"role": "assistant", "created": 1749548010,
     "content": [text("Moved one done item to ARCHIVE.md."),
                 {"type": "contextLengthExceeded", "msg": "too long"}]},
]


def older_install() -> None:
    folder = ROOT / "older-install" / "sessions"
    write_lines(folder / "20250610_093015.jsonl", OLD_SESSION,
                torn='{"role":"user","created":1749548020,"content":[{"type":"te')
    named = [
        {"id": "msg_1", "role": "user", "created": 1749650000,
         "content": [text("Name the ledger's export job")],
         "metadata": {"userVisible": True, "agentVisible": True}},
        {"id": "msg_2", "role": "assistant", "created": 1749650003,
         "content": [text("Call it monthly-vat-export.")],
         "metadata": {"userVisible": True, "agentVisible": True}},
    ]
    (folder / "ledger-naming.jsonl").write_text("".join(dump(m) + "\n" for m in named), "utf-8")


if __name__ == "__main__":
    goose()
