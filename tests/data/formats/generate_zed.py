"""Zed's fixture, laid out as under its data folder (~/.local/share/zed); generate.py runs this
with the rest (see zed/README.md for the source it follows).

zed/threads/threads.db   the thread database: a current thread with its traps (an @-mention and
                         its file, thinking, redacted thinking, tool calls with a long, a failed
                         and a missing result, a screenshot pasted alone, the Resume marker, an
                         unknown content and an unknown message type), the sub-agent thread it
                         started, threads of the older shapes (0.2.0 stored as plain JSON with
                         the placeholder title, 0.1.0 with its results on the next message, and
                         one from before versions), and rows with nothing to import: a draft, a
                         damaged zstd frame, an unknown data type and JSON that is no object
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import zstandard
from fixture_io import HERE

ROOT = HERE / "zed" / "threads"
LEDGER = "/home/lin/code/ledger"

MAIN = "a3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
CHILD = "b4e2d3c5-6f70-4b8c-9dae-1f2a3b4c5d6e"
LEGACY = "c5f3e4d6-7081-4c9d-aebf-2a3b4c5d6e7f"
OLDER = "d6a4f5e7-8192-4dae-bfc0-3b4c5d6e7f80"
OLDEST = "e7b5a6f8-92a3-4ebf-c0d1-4c5d6e7f8091"

# crates/agent/src/db.rs ThreadsDatabase::new: the table, then the columns later releases added
SCHEMA = """
CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL,
  updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL);
ALTER TABLE threads ADD COLUMN parent_id TEXT;
ALTER TABLE threads ADD COLUMN folder_paths TEXT;
ALTER TABLE threads ADD COLUMN folder_paths_order TEXT;
ALTER TABLE threads ADD COLUMN created_at TEXT;
"""


def compress(value: dict[str, Any]) -> bytes:
    """zstd at level 3 without the content size in the frame, as zstd::encode_all writes it."""
    data = json.dumps(value, ensure_ascii=False).encode()
    return zstandard.ZstdCompressor(level=3, write_content_size=False).compress(data)


def tool_use(ident: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"ToolUse": {"id": ident, "name": name, "raw_input": json.dumps(arguments),
                        "input": arguments, "is_input_complete": True}}


def tool_result(ident: str, name: str, text: str, error: bool = False) -> dict[str, Any]:
    return {"tool_use_id": ident, "tool_name": name, "is_error": error,
            "content": {"Text": text}, "output": None}


def main_thread() -> dict[str, Any]:
    test_output = "test_retry.py::test_backoff PASSED\n" + "." * 600 + "\n212 passed in 3.1s"
    return {
        "version": "0.3.0", "title": "Fix the flaky retry test",
        "updated_at": "2026-03-14T09:31:02.512345+00:00",
        "detailed_summary": "Made the retry backoff deterministic; the flaky test passes.",
        "model": {"provider": "zed.dev", "model": "claude-sonnet-4-5"},
        "profile": "write", "thinking_enabled": True,
        "request_token_usage": {}, "cumulative_token_usage": {"input_tokens": 9120},
        "messages": [
            {"User": {"id": "7c0f6a2e-1d3b-4f5a-9e8d-2b1c0a9f8e7d", "content": [
                {"Text": "test_backoff fails one run in five; make it deterministic."},
                {"Mention": {"uri": {"File": {"abs_path": f"{LEDGER}/tests/test_retry.py"}},
                             "content": "import random\n\ndef test_backoff():\n    ..."}}]}},
            {"Agent": {"content": [
                {"Thinking": {"text": "The jitter uses the global random; seed it.",
                              "signature": "sig-1"}},
                {"Text": "The backoff jitter reads the global random state."},
                tool_use("toolu_01", "grep", {"regex": "random\\.", "include_pattern": "*.py"}),
                tool_use("toolu_02", "terminal", {"command": "uv run pytest -q", "cd": "ledger"}),
                tool_use("toolu_03", "edit_file", {"path": "ledger/retry.py", "mode": "edit"}),
                {"RedactedThinking": "ErUBCkYIBxgCKkB"}],
                "tool_results": {
                    "toolu_01": tool_result("toolu_01", "grep", "ledger/retry.py:12: random.random()"),
                    "toolu_02": tool_result("toolu_02", "terminal", test_output)},
                "reasoning_details": None}},
            {"User": {"id": "8d1a7b3f-2e4c-4a6b-8f9e-3c2d1b0a9f8e", "content": [
                {"Image": {"source": "iVBORw0KGgoAAAANSUhEUg", "size": {"width": 640, "height": 400}}}]}},
            {"Agent": {"content": [
                {"Text": "The screenshot shows the CI run; the edit failed, retrying."},
                tool_use("toolu_04", "edit_file", {"path": "ledger/retry.py", "mode": "edit"}),
                {"Citation": {"url": "https://example.org"}}],
                "tool_results": {"toolu_04": tool_result(
                    "toolu_04", "edit_file", "Some edits were produced but none of them could be "
                    "applied.", error=True)}}},
            "Resume",
            {"System": {"text": "a message kind of a later release"}},
            {"Agent": {"content": [{"Text": "Seeded the jitter; 212 passed three runs in a row."}],
                       "tool_results": {}}},
        ],
        "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": LEDGER}]},
        "draft_prompt": [{"type": "text", "text": "also check the other tests"}],
    }


def child_thread() -> dict[str, Any]:
    return {
        "version": "0.3.0", "title": "Find every caller of backoff",
        "updated_at": "2026-03-14T09:20:00Z",
        "subagent_context": {"parent_thread_id": MAIN, "depth": 1},
        "messages": [
            {"User": {"id": "9e2b8c40-3f5d-4b7c-9a0f-4d3e2c1b0a9f",
                      "content": [{"Text": "List the callers of backoff() in ledger/."}]}},
            {"Agent": {"content": [{"Text": "retry.py:40 and export.py:88 call backoff()."}],
                       "tool_results": {}}}],
    }


def legacy_thread() -> dict[str, Any]:
    """0.2.0 (crates/agent/src/legacy_thread.rs SerializedThread): tool results on the message
    that called the tools."""
    return {
        "version": "0.2.0", "summary": "New Thread", "updated_at": "2025-06-02T15:04:05Z",
        "detailed_summary_state": {"Generated": {"text": "Renamed the CSV columns.",
                                                 "message_range": {"start": 0, "end": 3}}},
        "initial_project_snapshot": {"worktree_snapshots": [
            {"worktree_path": "/home/lin/code/exports", "git_state": None}],
            "unsaved_buffer_paths": [], "timestamp": "2025-06-02T15:00:00Z"},
        "messages": [
            {"id": 0, "role": "system", "segments": [{"type": "text", "text": "You are..."}]},
            {"id": 1, "role": "user", "segments": [
                {"type": "text", "text": "Rename the amount column to amount_chf in export.csv"}],
             "context": "<files>export.py ...</files>", "creases": [], "is_hidden": False},
            {"id": 2, "role": "assistant", "segments": [
                {"type": "thinking", "text": "Find the header writer.", "signature": "s"},
                {"type": "text", "text": "The header is written in export.py."},
                {"type": "RedactedThinking", "data": "xx"}],
             "tool_uses": [{"id": "tu_1", "name": "read_file", "input": {"path": "export.py"}}],
             "tool_results": [{"tool_use_id": "tu_1", "is_error": False,
                               "content": "HEADER = ['date', 'amount']", "output": None}]},
            {"id": 3, "role": "user", "segments": [], "is_hidden": True,
             "context": "auto-attached diagnostics"},
            {"id": 4, "role": "assistant", "segments": [
                {"type": "text", "text": "Renamed it; export.csv now has amount_chf."}]},
        ],
    }


def older_thread() -> dict[str, Any]:
    """0.1.0: a tool's result came back on the user message after the call."""
    return {
        "version": "0.1.0", "summary": "Speed up the CSV export", "updated_at": "2025-04-20T08:00:00Z",
        "messages": [
            {"id": 1, "role": "user", "segments": [{"type": "text", "text": "Why is export slow?"}]},
            {"id": 2, "role": "assistant", "segments": [{"type": "text", "text": "Profiling it."}],
             "tool_uses": [{"id": "abc", "name": "terminal", "input": {"command": "py-spy top"}}]},
            {"id": 1, "role": "user", "segments": [],
             "tool_results": [{"tool_use_id": "abc", "is_error": False,
                               "content": "87% in csv.writer.writerow", "output": None}]},
            {"id": 3, "role": "assistant", "segments": [{"type": "text", "text": "Batch the rows."}]},
        ],
    }


def oldest_thread() -> dict[str, Any]:
    """Before versions (LegacySerializedThread): `text` in place of segments."""
    return {"summary": "Name the ledger CLI", "updated_at": "2025-03-01T10:00:00Z",
            "messages": [{"id": 0, "role": "user", "text": "Suggest a name for the ledger CLI"},
                         {"id": 1, "role": "assistant", "text": "How about `tally`?"}]}


def zed() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    path = ROOT / "threads.db"
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    rows = [  # id, parent, folders, summary, updated, type, data, created
        (OLDEST, None, None, "Name the ledger CLI", "2025-03-01T10:00:00+00:00", "json",
         json.dumps(oldest_thread()).encode(), None),
        (MAIN, None, f"{LEDGER}\n/home/lin/code/shared", "Fix the flaky retry test",
         "2026-03-14T09:31:02.512345+00:00", "zstd", compress(main_thread()),
         "2026-03-14T09:12:04+00:00"),
        (CHILD, MAIN, LEDGER, "Find every caller of backoff", "2026-03-14T09:20:00+00:00",
         "zstd", compress(child_thread()), "2026-03-14T09:14:00+00:00"),
        (LEGACY, None, None, "New Thread", "2025-06-02T15:04:05+00:00", "json",
         json.dumps(legacy_thread()).encode(), "2025-06-02T15:04:05+00:00"),
        (OLDER, None, None, "Speed up the CSV export", "2025-04-20T08:00:00+00:00", "zstd",
         compress(older_thread()), None),
        ("f8c6b7a9-a3b4-4fc0-d1e2-5d6e7f8091a2", None, LEDGER, "New Thread",
         "2026-03-15T07:00:00+00:00", "zstd", compress({"version": "0.3.0", "title": "New Thread",
         "updated_at": "2026-03-15T07:00:00Z", "messages": [],
         "draft_prompt": [{"type": "text", "text": "half a thought"}]}), "2026-03-15T07:00:00+00:00"),
        ("0a1b2c3d-0000-4000-8000-000000000001", None, None, "Torn", "2026-03-16T07:00:00+00:00",
         "zstd", compress(child_thread())[:20], "2026-03-16T07:00:00+00:00"),
        ("0a1b2c3d-0000-4000-8000-000000000002", None, None, "Other", "2026-03-16T08:00:00+00:00",
         "brotli", b"\x1b\x00", "2026-03-16T08:00:00+00:00"),
        ("0a1b2c3d-0000-4000-8000-000000000003", None, None, "List", "2026-03-16T09:00:00+00:00",
         "json", b"[1, 2]", "2026-03-16T09:00:00+00:00"),
    ]
    db.executemany("INSERT INTO threads (id, parent_id, folder_paths, summary, updated_at, "
                   "data_type, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()


if __name__ == "__main__":
    zed()
