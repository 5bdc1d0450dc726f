"""Seeded transcript generators for benchmarks/import_speed.py: the file-per-session formats added
after the first ten (Kimi CLI, Qwen Code, Grok Build, Kiro CLI, Amp, Continue).

The turns come from transcript_turns.py; each file is laid out as the format's fixture under
tests/data/formats/<format>/ (its generate_<format>.py, or the hand-written files for Qwen Code
and Continue) lays it out, with a few records that are not messages. Each generator returns the
messages recall must read from each file.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any
from urllib.parse import quote

from benchmarks.transcript_generators import dump, ms, sentence, ts
from benchmarks.transcript_turns import BASE, CWD, Expected, Turn, turns

__all__ = ["GENERATORS"]


def _write(path: Path, items: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(dump(item) + "\n" for item in items), "utf-8")


# Kimi CLI: <share>/sessions/<md5(cwd)>/<id>/wire.jsonl -------------------------------------------

def kimi(folder: Path, sessions: int, rng: random.Random) -> Expected:
    expected: Expected = {}
    bucket = folder / "sessions" / hashlib.md5(CWD.encode()).hexdigest()
    for s in range(sessions):
        base = BASE + s * 86400
        lines: list[Any] = [{"type": "metadata", "protocol_version": "1.10"}]

        def rec(i: int, kind: str, base: float = base, **payload: Any) -> dict[str, Any]:
            return {"timestamp": base + 7 * i, "message": {"type": kind, "payload": payload}}

        count = 0
        for t in turns(rng, s):
            lines += [rec(t.index, "TurnBegin", user_input=t.prompt),
                      rec(t.index, "StepBegin", n=1)]
            if t.thinking:
                lines.append(rec(t.index + 1, "ContentPart", type="think", think=t.thinking,
                                 encrypted=None))
            lines.append(rec(t.index + 1, "ContentPart", type="text", text=t.answer))
            if t.tool:
                lines += [rec(t.index + 1, "ToolCall", type="function", id=t.tool.call_id,
                              function={"name": "Shell", "arguments": json.dumps(
                                  {"command": t.tool.command})}),
                          rec(t.index + 1, "StatusUpdate", context_usage=0.04),
                          rec(t.index + 2, "ToolResult", tool_call_id=t.tool.call_id,
                              return_value={"is_error": False, "output": t.tool.output,
                                            "message": "", "display": []})]
            lines.append(rec(t.index + 2, "TurnEnd"))
            count += t.messages
        path = bucket / f"66666666-0000-4000-8000-{s:012d}" / "wire.jsonl"
        _write(path, lines)
        expected[path] = count
    (folder / "kimi.json").write_text(dump({"work_dirs": [{"path": CWD}]}), "utf-8")
    return expected


# Qwen Code: projects/<cwd>/chats/<id>.jsonl ------------------------------------------------------

def qwen(folder: Path, sessions: int, rng: random.Random) -> Expected:
    expected: Expected = {}
    chats = folder / "projects" / CWD.replace("/", "-") / "chats"
    for s in range(sessions):
        sid, base = f"77777777-0000-4000-8000-{s:012d}", BASE + s * 86400
        lines: list[dict[str, Any]] = []

        def line(kind: str, i: int, sid: str = sid, base: float = base,
                 lines: list[dict[str, Any]] = lines, **fields: Any) -> None:
            parent = lines[-1]["uuid"] if lines else None
            lines.append({"uuid": f"u{len(lines)}", "parentUuid": parent, "sessionId": sid,
                          "timestamp": ts(base, i), "type": kind, "cwd": CWD,
                          "version": "0.22.2", **fields})

        count = 0
        for t in turns(rng, s):
            line("user", t.index, message={"role": "user", "parts": [{"text": t.prompt}]})
            line("system", t.index, subtype="ui_telemetry", systemPayload={"uiEvent": {
                "event.name": "qwen-code.api_response", "model": "qwen3-coder-plus"}})
            parts: list[dict[str, Any]] = [{"text": t.thinking, "thought": True}] \
                if t.thinking else []
            parts.append({"text": t.answer})
            if t.tool:
                parts.append({"functionCall": {"id": t.tool.call_id, "name": "run_shell_command",
                                               "args": {"command": t.tool.command}}})
            line("assistant", t.index + 1, model="qwen3-coder-plus",
                 message={"role": "model", "parts": parts})
            if t.tool:
                line("tool_result", t.index + 2, message={"role": "user", "parts": [
                    {"functionResponse": {"id": t.tool.call_id, "name": "run_shell_command",
                                          "response": {"output": t.tool.output}}}]},
                     toolCallResult={"callId": t.tool.call_id, "status": "success"})
            count += t.messages
        _write(chats / f"{sid}.jsonl", lines)
        expected[chats / f"{sid}.jsonl"] = count
    return expected


# Grok Build: sessions/<URL-encoded cwd>/<id>/updates.jsonl and summary.json ----------------------

def grok(folder: Path, sessions: int, rng: random.Random) -> Expected:
    expected: Expected = {}
    for s in range(sessions):
        sid, base = f"019f6a00-0000-7000-8000-{s:012d}", BASE + s * 86400
        lines: list[dict[str, Any]] = []

        def update(i: int, update_kind: str, method: str = "session/update", /, sid: str = sid,
                   base: float = base, **fields: Any) -> dict[str, Any]:
            return {"timestamp": base + 7 * i, "method": method, "params": {
                "sessionId": sid, "update": {"sessionUpdate": update_kind, **fields}}}

        count = 0
        for t in turns(rng, s):
            lines.append(update(t.index, "user_message_chunk",
                                content={"type": "text", "text": t.prompt}))
            if t.thinking:
                lines.append(update(t.index + 1, "agent_thought_chunk",
                                    content={"type": "text", "text": t.thinking}))
            half = len(t.answer) // 2  # an answer streams in chunks
            for chunk in (t.answer[:half], t.answer[half:]):
                lines.append(update(t.index + 1, "agent_message_chunk",
                                    content={"type": "text", "text": chunk}))
            if t.tool:
                lines += [update(t.index + 1, "tool_call", toolCallId=t.tool.call_id,
                                 title=f"Run `{t.tool.command}`", kind="execute",
                                 status="pending", rawInput={"command": t.tool.command}),
                          update(t.index + 2, "tool_call_update", toolCallId=t.tool.call_id,
                                 status="completed", content=[{"type": "content", "content": {
                                     "type": "text", "text": t.tool.output}}])]
            lines.append(update(t.index + 2, "turn_completed", "_x.ai/session/update",
                                prompt_id=f"p{t.index}"))
            count += t.messages
        session = folder / "sessions" / quote(CWD, safe="") / sid
        _write(session / "updates.jsonl", lines)
        (session / "summary.json").write_text(dump({
            "info": {"id": sid, "cwd": CWD}, "session_summary": sentence(rng, 4),
            "created_at": ts(base, 0), "updated_at": ts(base, 100)}), "utf-8")
        expected[session / "updates.jsonl"] = count
    return expected


# Kiro CLI: sessions/cli/<id>.jsonl and its <id>.json -----------------------------------------------

def _kiro_entry(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"version": "v1", "kind": kind, "data": data}


def kiro(folder: Path, sessions: int, rng: random.Random) -> Expected:
    expected: Expected = {}
    logs = folder / "sessions" / "cli"
    for s in range(sessions):
        sid, base = f"88888888-0000-4000-8000-{s:012d}", BASE + s * 86400
        lines, count = [], 0
        for t in turns(rng, s):
            lines.append(_kiro_entry("Prompt", {
                "message_id": f"p-{t.index}", "meta": {"timestamp": base + 7 * t.index},
                "content": [{"kind": "text", "data": t.prompt}]}))
            content: list[dict[str, Any]] = [{"kind": "thinking", "data": {
                "text": t.thinking, "signature": None}}] if t.thinking else []
            content.append({"kind": "text", "data": t.answer})
            if t.tool:
                content.append({"kind": "toolUse", "data": {
                    "toolUseId": t.tool.call_id, "name": "shell",
                    "input": {"command": t.tool.command}}})
            lines.append(_kiro_entry("AssistantMessage", {"message_id": f"a-{t.index}",
                                                          "content": content}))
            if t.tool:
                lines.append(_kiro_entry("ToolResults", {"message_id": f"r-{t.index}", "content": [
                    {"kind": "toolResult", "data": {
                        "toolUseId": t.tool.call_id, "status": "success", "content": [
                            {"kind": "json", "data": {"exit_status": "exit status: 0",
                                                      "stdout": t.tool.output, "stderr": ""}}]}}],
                    "results": {}}))
            count += t.messages
        _write(logs / f"{sid}.jsonl", lines)
        (logs / f"{sid}.json").write_text(dump({
            "session_id": sid, "cwd": CWD, "created_at": ts(base, 0),
            "updated_at": ts(base, 100), "title": sentence(rng, 4)}), "utf-8")
        expected[logs / f"{sid}.jsonl"] = count
    return expected


# Amp: threads/T-<id>.json ---------------------------------------------------------------------------

def _amp_messages(t: Turn, base: float) -> list[dict[str, Any]]:
    prompt = {"role": "user", "messageId": t.index, "content": [{"type": "text", "text": t.prompt}],
              "meta": {"sentAt": ms(base, t.index)}}
    content: list[dict[str, Any]] = [{"type": "thinking", "thinking": t.thinking,
                                      "signature": "sig"}] if t.thinking else []
    content.append({"type": "text", "text": t.answer})
    if t.tool:
        content.append({"type": "tool_use", "complete": True, "id": t.tool.call_id,
                        "name": "Bash", "input": {"cmd": t.tool.command, "cwd": CWD}})
    answer = {"role": "assistant", "messageId": t.index + 1, "content": content,
              "state": {"type": "complete", "stopReason": "tool_use" if t.tool else "end_turn"},
              "usage": {"model": "claude-sonnet-4-5", "timestamp": ts(base, t.index + 1)}}
    if not t.tool:
        return [prompt, answer]
    result = {"role": "user", "messageId": t.index + 2, "content": [
        {"type": "tool_result", "toolUseID": t.tool.call_id, "run": {
            "status": "done", "result": {"output": t.tool.output, "exitCode": 0}}}]}
    return [prompt, answer, result]


def amp(folder: Path, sessions: int, rng: random.Random) -> Expected:
    expected: Expected = {}
    threads = folder / "threads"
    threads.mkdir(parents=True, exist_ok=True)
    for s in range(sessions):
        tid, base = f"T-019cf0a1-0000-7000-8000-{s:012d}", BASE + s * 86400
        messages, count = [], 0
        for t in turns(rng, s):
            messages += _amp_messages(t, base)
            count += t.messages
        thread = {"v": 42, "id": tid, "created": ms(base, 0), "title": sentence(rng, 4),
                  "agentMode": "smart", "nextMessageId": len(messages), "~debug": {},
                  "env": {"initial": {"trees": [{"uri": f"file://{CWD}", "displayName": "app"}]}},
                  "messages": messages}
        path = threads / f"{tid}.json"
        path.write_text(dump(thread), "utf-8")
        expected[path] = count
    return expected


# Continue: sessions/<id>.json and sessions.json --------------------------------------------------

def _continue_items(t: Turn) -> list[dict[str, Any]]:
    prompt = {"message": {"role": "user", "content": t.prompt}, "contextItems": [],
              "editorState": {"type": "doc", "content": []}}
    answer: dict[str, Any] = {"message": {"role": "assistant", "content": t.answer},
                              "contextItems": []}
    if t.thinking:
        answer["reasoning"] = {"active": False, "text": t.thinking}
    if not t.tool:
        return [prompt, answer]
    call = {"id": t.tool.call_id, "type": "function", "function": {
        "name": "run_terminal_command", "arguments": json.dumps({"command": t.tool.command})}}
    answer["message"]["toolCalls"] = [call]
    answer["toolCallStates"] = [{"toolCallId": t.tool.call_id, "toolCall": call,
                                 "status": "done", "parsedArgs": {"command": t.tool.command}}]
    result = {"message": {"role": "tool", "content": t.tool.output,
                          "toolCallId": t.tool.call_id}, "contextItems": []}
    return [prompt, answer, result]


def continue_(folder: Path, sessions: int, rng: random.Random) -> Expected:
    expected: Expected = {}
    target = folder / "sessions"
    target.mkdir(parents=True, exist_ok=True)
    listing = []
    for s in range(sessions):
        sid, base = f"99999999-0000-4000-8000-{s:012d}", BASE + s * 86400
        history, count = [], 0
        for t in turns(rng, s):
            history += _continue_items(t)
            count += t.messages
        title = sentence(rng, 4)
        session = {"sessionId": sid, "title": title, "workspaceDirectory": f"file://{CWD}",
                   "history": history, "mode": "agent", "chatModelTitle": "Claude Sonnet 4"}
        (target / f"{sid}.json").write_text(dump(session), "utf-8")
        listing.append({"sessionId": sid, "title": title, "dateCreated": str(ms(base, 0)),
                        "workspaceDirectory": f"file://{CWD}"})
        expected[target / f"{sid}.json"] = count
    (target / "sessions.json").write_text(dump(listing), "utf-8")
    return expected


GENERATORS = {"kimi": kimi, "qwen": qwen, "grok": grok, "kiro": kiro, "amp": amp,
              "continue": continue_}
