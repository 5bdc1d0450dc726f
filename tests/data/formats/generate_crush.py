"""Crush's fixture: a project's database (crush keeps it in `<project>/.crush/crush.db`; here it
lies in an unhidden folder, since `recall index` walks none that is hidden); generate.py runs
this with the rest (crush/README.md names the source each shape follows).

crush/crush.db   the schema of every migration in internal/db/migrations/: a session with its
                 traps (attachments, reasoning, tool calls with a long and a failed result, a `!`
                 shell command, two compaction summaries, a turn that ended in an error, an
                 unknown part type, a system row, a torn row), the sub-agent session it started,
                 the session crush made to name it, a session whose only prompt is a screenshot,
                 one without messages, and a message row of no session
"""

from __future__ import annotations

import base64
import json
import sqlite3
from typing import Any

from fixture_io import HERE

PATH = HERE / "crush" / "crush.db"
T0 = 1773479520  # 2026-03-14T09:12:00Z, epoch seconds as crush writes them
MAIN = "6f1c0b2a-3d4e-4f50-8a6b-7c8d9e0f1a2b"
SHOT = "8a3e2d4c-5f60-4172-9c8d-9e0f1a2b3c4d"
EMPTY = "9b4f3e5d-6071-4283-ad9e-0f1a2b3c4d5e"
CHILD = "4c2d1e3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f$$call_vat_scan"

SCHEMA = """
CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL,
  is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
  prompt_tokens INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
  completion_tokens INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens>= 0),
  cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0), updated_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL,
  content TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, FOREIGN KEY (session_id) REFERENCES sessions (id)
  ON DELETE CASCADE, UNIQUE(path, session_id, version));
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
  parts TEXT NOT NULL default '[]', model TEXT, created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT,
  is_summary_message INTEGER DEFAULT 0 NOT NULL);
CREATE TABLE read_files (session_id TEXT NOT NULL CHECK (session_id != ''),
  path TEXT NOT NULL CHECK (path != ''), read_at INTEGER NOT NULL,
  PRIMARY KEY (path, session_id));
CREATE INDEX idx_messages_session_id ON messages (session_id);
CREATE INDEX idx_messages_created_at ON messages (created_at);
"""
MIGRATIONS = [0, 20250424200609, 20250515105448, 20250624000000, 20250627000000,
              20250810000000, 20250812000000, 20260127000000]


def part(kind: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "data": data}


def finish(reason: str, after: int) -> dict[str, Any]:
    return part("finish", reason=reason, time=T0 + after)


def tool_call(ident: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return part("tool_call", id=ident, name=name, input=json.dumps(arguments),
                provider_executed=False, finished=True)


def tool_result(ident: str, name: str, content: str, is_error: bool = False) -> dict[str, Any]:
    return part("tool_result", tool_call_id=ident, name=name, content=content, data="",
                mime_type="", metadata="", is_error=is_error)


PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n fake screenshot").decode()
TEST_OUTPUT = "".join(f"ok {n} - vat rounding case {n}\n" for n in range(60))
# (id, role, parts, seconds after T0, is_summary_message); parts a string: a torn row
MAIN_ROWS: list[tuple[str, str, Any, int, int]] = [
    ("m01", "user", [part("text", text="Swiss invoices round VAT wrong; fix it to 0.05 CHF."),
                     part("binary", Path="/home/lin/shots/invoice.png", MIMEType="image/png",
                          Data=PNG),
                     part("binary", Path="/home/lin/code/ledger/notes.txt",
                          MIMEType="text/plain", Data=base64.b64encode(b"VAT notes").decode()),
                     finish("stop", 0)], 0, 0),
    ("m02", "assistant", [part("reasoning", thinking="Find round_vat and run the tests.",
                               signature="sig", started_at=T0 + 1, finished_at=T0 + 2),
                          part("text", text="Let me run the tests first."),
                          tool_call("call_1", "bash", {"command": "uv run pytest -q"}),
                          finish("tool_use", 3)], 1, 0),
    ("m03", "tool", [tool_result("call_1", "bash", TEST_OUTPUT)], 20, 0),
    ("m04", "assistant", [tool_call("call_2", "edit", {"file_path": "CHANGELOG.md"}),
                          finish("tool_use", 25)], 24, 0),
    ("m05", "tool", [tool_result("call_2", "edit", "file is read-only", is_error=True)], 26, 0),
    ("m06", "assistant", [part("text", text="Rounding now goes to 0.05 CHF."),
                          part("citation", url="https://example.org/vat"),
                          finish("end_turn", 31)], 30, 0),
    ("m07", "assistant", [part("text", text="Summary: asked about VAT rounding.")], 40, 1),
    ("m08", "user", [part("shell_command", command="git status --short",
                          output=" M src/ledger/vat.py\n", exit_code=0), finish("stop", 50)],
     50, 0),
    ("m09", "assistant", [finish("error", 61)], 60, 0),
    ("m10", "system", [part("text", text="You are Crush.")], 61, 0),
    ("m11", "assistant", '[{"type":"text","data":{"text":"torn', 62, 0),
    ("m12", "assistant", [part("text", text="Summary: fixed VAT rounding in vat.py; CHANGELOG.md "
                                            "is read-only.")], 70, 1),
    ("m13", "user", [part("text", text="Thanks, push it."), finish("stop", 80)], 80, 0),
]


def crush() -> None:
    PATH.parent.mkdir(parents=True, exist_ok=True)
    PATH.unlink(missing_ok=True)
    db = sqlite3.connect(PATH)
    db.executescript(SCHEMA)
    db.executemany("INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)",
                   [(v,) for v in MIGRATIONS])
    sessions = [(MAIN, None, "Fix Swiss VAT rounding", 0, 80), (CHILD, MAIN, "New Agent Session",
                                                                 2, 5),
                (f"title-{MAIN}", MAIN, "Generate a title", 1, 1),
                (SHOT, None, "Untitled Session", 200, 200), (EMPTY, None, "Untitled Session",
                                                             300, 300)]
    db.executemany("INSERT INTO sessions (id, parent_session_id, title, created_at, updated_at, "
                   "summary_message_id) VALUES (?, ?, ?, ?, ?, ?)",
                   [(i, parent, title, T0 + c, T0 + u, "m12" if i == MAIN else None)
                    for i, parent, title, c, u in sessions])
    rows = [(MAIN, *row) for row in MAIN_ROWS]
    rows += [(CHILD, "c01", "user", [part("text", text="Which modules call round_vat?")], 2, 0),
             (CHILD, "c02", "assistant", [part("text", text="export.py and invoice.py."),
                                          finish("end_turn", 5)], 5, 0),
             (f"title-{MAIN}", "t01", "user", [part("text", text="Generate a title for: Swiss "
                                                                 "invoices round VAT wrong")], 1, 0),
             (f"title-{MAIN}", "t02", "assistant", [part("text", text="Fix Swiss VAT rounding")],
              1, 0),
             (SHOT, "s01", "user", [part("image_url", url="data:image/png;base64," + PNG),
                                    finish("stop", 200)], 200, 0),
             ("0d1e2f3a-gone", "o01", "user", [part("text", text="a session deleted since")], 9, 0)]
    for session, ident, role, parts, after, summary in rows:
        stored = parts if isinstance(parts, str) else json.dumps(parts)
        db.execute("INSERT INTO messages (id, session_id, role, parts, model, provider, "
                   "created_at, updated_at, is_summary_message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (ident, session, role, stored, "claude-sonnet-4-5", "anthropic", T0 + after,
                    T0 + after, summary))
    db.commit()
    db.close()


if __name__ == "__main__":
    crush()
