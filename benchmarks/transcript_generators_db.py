"""Seeded transcript generators for benchmarks/import_speed.py: the SQLite formats added after
the first ten (Zed, goose, Crush, Warp, Windsurf), one database each.

The turns come from transcript_turns.py; the schemas, and the row shapes, are those of the
fixtures' generators (tests/data/formats/generate_<format>.py), imported from there. Each
generator returns the messages recall must read from each database.
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
from pathlib import Path
from typing import Any

from benchmarks.transcript_generators import dump, ms, sentence, ts
from benchmarks.transcript_turns import BASE, CWD, Expected, Turn, turns

# the fixtures' folder is not a package: its generators import each other as top-level modules
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "data" / "formats"))
import generate_crush
import generate_goose
import generate_warp
import generate_windsurf
import generate_zed

__all__ = ["GENERATORS"]


def _connect(path: Path, schema: str) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    connection.executescript(schema)
    return connection


# Zed: threads/threads.db, a zstd-compressed thread (0.3.0) per row --------------------------------

def zed(folder: Path, sessions: int, rng: random.Random) -> Expected:
    path = folder / "threads" / "threads.db"
    db, total = _connect(path, generate_zed.SCHEMA), 0
    for s in range(sessions):
        tid, base = f"a3f1c2d4-0000-4000-8000-{s:012d}", BASE + s * 86400
        messages: list[dict[str, Any]] = []
        for t in turns(rng, s):
            messages.append({"User": {"id": f"{s:08d}-0000-4000-8000-{t.index:012d}",
                                      "content": [{"Text": t.prompt}]}})
            content: list[dict[str, Any]] = [{"Thinking": {"text": t.thinking,
                                                           "signature": "sig"}}] \
                if t.thinking else []
            content.append({"Text": t.answer})
            results = {}
            if t.tool:
                content.append(generate_zed.tool_use(t.tool.call_id, "terminal",
                                                     {"command": t.tool.command, "cd": "app"}))
                results[t.tool.call_id] = generate_zed.tool_result(t.tool.call_id, "terminal",
                                                                    t.tool.output)
            messages.append({"Agent": {"content": content, "tool_results": results}})
            total += t.messages
        title = sentence(rng, 4)
        thread = {"version": "0.3.0", "title": title, "updated_at": ts(base, 100),
                  "model": {"provider": "zed.dev", "model": "claude-sonnet-4-5"},
                  "messages": messages,
                  "initial_project_snapshot": {"worktree_snapshots": [{"worktree_path": CWD}]}}
        db.execute("INSERT INTO threads (id, parent_id, folder_paths, summary, updated_at, "
                   "data_type, data, created_at) VALUES (?, NULL, ?, ?, ?, 'zstd', ?, ?)",
                   (tid, CWD, title, ts(base, 100), generate_zed.compress(thread), ts(base, 0)))
    db.commit()
    db.close()
    return {path: total}


# goose: sessions/sessions.db of schema 13 -------------------------------------------------------

def goose(folder: Path, sessions: int, rng: random.Random) -> Expected:
    path = folder / "sessions" / "sessions.db"
    db = _connect(path, generate_goose.V5_SCHEMA + generate_goose.LATER)
    db.executemany("INSERT INTO schema_version (version) VALUES (?)", [(v,) for v in range(5, 14)])
    visible, total = json.dumps(generate_goose.VISIBLE), 0
    for s in range(sessions):
        sid, base = f"20260101_{s + 1}", BASE + s * 86400
        rows: list[tuple[str, list[dict[str, Any]], int]] = []
        for t in turns(rng, s):
            rows.append(("user", [generate_goose.text(t.prompt)], t.index))
            content = [{"type": "thinking", "thinking": t.thinking, "signature": "sig"}] \
                if t.thinking else []
            content.append(generate_goose.text(t.answer))
            if t.tool:
                content.append(generate_goose.call(t.tool.call_id, "developer__shell",
                                                   {"command": t.tool.command}))
                rows.append(("assistant", content, t.index + 1))
                rows.append(("user", [generate_goose.result(t.tool.call_id, t.tool.output)],
                             t.index + 2))
            else:
                rows.append(("assistant", content, t.index + 1))
            total += t.messages
        db.execute("INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, "
                   "created_at, updated_at, extension_data) VALUES (?, ?, 1, 'user', ?, ?, ?, "
                   "'{}')", (sid, sentence(rng, 4), CWD, ts(base, 0)[:19].replace("T", " "),
                             ts(base, 100)[:19].replace("T", " ")))
        db.executemany("INSERT INTO messages (session_id, role, content_json, created_timestamp, "
                       "metadata_json, message_id) VALUES (?, ?, ?, ?, ?, ?)",
                       [(sid, role, json.dumps(content), base + 7 * i, visible, f"msg_{sid}_{n}")
                        for n, (role, content, i) in enumerate(rows)])
    db.commit()
    db.close()
    return {path: total}


# Crush: .crush/crush.db (here an unhidden folder), parts as JSON per message row ----------------

def crush(folder: Path, sessions: int, rng: random.Random) -> Expected:
    path, part = folder / "crush" / "crush.db", generate_crush.part
    db = _connect(path, generate_crush.SCHEMA)
    db.executemany("INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)",
                   [(v,) for v in generate_crush.MIGRATIONS])
    total = 0
    for s in range(sessions):
        sid, base = f"6f1c0b2a-0000-4000-8000-{s:012d}", BASE + s * 86400
        rows: list[tuple[str, list[dict[str, Any]], int]] = []
        for t in turns(rng, s):
            rows.append(("user", [part("text", text=t.prompt),
                                  part("finish", reason="stop", time=base + 7 * t.index)],
                         t.index))
            parts = [part("reasoning", thinking=t.thinking, signature="sig")] if t.thinking else []
            parts.append(part("text", text=t.answer))
            if t.tool:
                parts += [generate_crush.tool_call(t.tool.call_id, "bash",
                                                   {"command": t.tool.command}),
                          part("finish", reason="tool_use", time=base + 7 * t.index + 7)]
                rows.append(("assistant", parts, t.index + 1))
                rows.append(("tool", [generate_crush.tool_result(t.tool.call_id, "bash",
                                                                 t.tool.output)], t.index + 2))
            else:
                parts.append(part("finish", reason="end_turn", time=base + 7 * t.index + 7))
                rows.append(("assistant", parts, t.index + 1))
            total += t.messages
        db.execute("INSERT INTO sessions (id, title, message_count, created_at, updated_at) "
                   "VALUES (?, ?, ?, ?, ?)", (sid, sentence(rng, 4), len(rows), base, base + 700))
        db.executemany("INSERT INTO messages (id, session_id, role, parts, model, provider, "
                       "created_at, updated_at) VALUES (?, ?, ?, ?, 'claude-sonnet-4-5', "
                       "'anthropic', ?, ?)",
                       [(f"m{s}_{n}", sid, role, json.dumps(parts), base + 7 * i, base + 7 * i)
                        for n, (role, parts, i) in enumerate(rows)])
    db.commit()
    db.close()
    return {path: total}


# Warp: warp.sqlite of a release that kept the agent's output (ai_blocks) ------------------------

def warp(folder: Path, sessions: int, rng: random.Random) -> Expected:
    path = folder / "warp-terminal" / "warp.sqlite"
    db = _connect(path, generate_warp.SCHEMA + generate_warp.BLOCKS)
    queries: list[tuple[Any, ...]] = []
    blocks: list[tuple[str, str]] = []
    total = 0
    for s in range(sessions):
        cid, base = f"e05f25f4-0000-4000-8000-{s:012d}", BASE + s * 86400
        for t in turns(rng, s):
            exchange = f"ex-{s}-{t.index}"
            queries.append((exchange, cid, ts(base, t.index)[:19].replace("T", " "),
                            json.dumps([{"Query": {"text": t.prompt}}])))
            output: list[dict[str, Any]] = [{"Text": {"text": t.answer}}]
            if t.tool:  # the command's output goes back to Warp as the next exchange's input
                output.append({"Action": {"id": t.tool.call_id, "action_type": {
                    "RequestCommandOutput": {"command": t.tool.command, "is_read_only": True}}}})
                queries.append((f"{exchange}-r", cid,
                                ts(base, t.index + 2)[:19].replace("T", " "),
                                json.dumps([generate_warp.command_result(
                                    t.tool.call_id, t.tool.command, t.tool.output)])))
            blocks.append((exchange, json.dumps({"Received": {"output": output}})))
            total += t.messages
        db.execute("INSERT INTO agent_conversations (conversation_id, conversation_data, "
                   "last_modified_at) VALUES (?, ?, ?)",
                   (cid, generate_warp.usage(1.5), ts(base, 100)[:19].replace("T", " ")))
    db.executemany("INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, "
                   "working_directory, output_status, model_id) VALUES (?, ?, ?, ?, ?, "
                   "'Completed', 'auto')", [(*q, CWD) for q in queries])
    db.executemany("INSERT INTO ai_blocks (exchange_id, output) VALUES (?, ?)", blocks)
    db.commit()
    db.close()
    return {path: total}


# Windsurf: a workspace's state.vscdb, its chat panel's tabs under aiChat.chatdata ---------------

TABS_PER_WORKSPACE = 10


def windsurf(folder: Path, sessions: int, rng: random.Random) -> Expected:
    """The chat panel keeps words only (no thinking or tool blocks): a prompt and an answer a
    turn, the tool's command and output in the answer's words."""
    expected: Expected = {}
    workspaces = folder / "Windsurf" / "User" / "workspaceStorage"
    for w in range((sessions + TABS_PER_WORKSPACE - 1) // TABS_PER_WORKSPACE):
        tabs, count = [], 0
        for s in range(w * TABS_PER_WORKSPACE, min(sessions, (w + 1) * TABS_PER_WORKSPACE)):
            base, bubbles = BASE + s * 86400, []
            for t in turns(rng, s, tool_messages=False):
                bubbles += [{"type": "user", "id": f"u{t.index}", "text": t.prompt,
                             "timestamp": ms(base, t.index)},
                            {"type": "ai", "id": f"a{t.index}", "rawText": _words(t),
                             "text": t.answer, "timestamp": ms(base, t.index + 1)}]
                count += t.messages
            tabs.append({"tabId": f"b6c7d8e9-0000-4000-8000-{s:012d}",
                         "chatTitle": sentence(rng, 4), "lastSendTime": ms(base, 100),
                         "bubbles": bubbles})
        workspace = workspaces / f"{w:032x}"
        db = _connect(workspace / "state.vscdb", generate_windsurf.SCHEMA)
        db.executemany("INSERT INTO ItemTable VALUES (?, ?)", [
            ("codeium.windsurf", dump({"lastSeenVersion": "1.9.4"})),
            ("aiChat.chatdata", dump({"tabs": tabs}))])
        db.commit()
        db.close()
        (workspace / "workspace.json").write_text(json.dumps({"folder": f"file://{CWD}"}))
        expected[workspace / "state.vscdb"] = count
    return expected


def _words(t: Turn) -> str:
    if not t.tool:
        return t.answer
    return f"{t.answer}\n\n```sh\n$ {t.tool.command}\n{t.tool.output}\n```"


GENERATORS = {"zed": zed, "goose": goose, "crush": crush, "warp": warp, "windsurf": windsurf}
