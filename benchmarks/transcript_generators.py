"""Seeded transcript generators for benchmarks/import_speed.py: the terminal agents' formats
(Claude Code, Codex, OpenClaw, ChatGPT, Gemini CLI, aider), and the text helpers the editors'
generators (transcript_generators_ide.py) share.

Each generator writes `sessions` sessions of about MESSAGES_PER_SESSION messages under a folder,
laid out as the agent keeps them: prompts, answers (thinking on ~30 % of turns), a tool call
with its result on half the turns, and a few lines that are not messages.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

__all__ = ["GENERATORS", "MESSAGES_PER_SESSION", "WORDS", "dump", "ms", "sentence", "text", "ts"]

MESSAGES_PER_SESSION = 100
WORDS = ["deploy", "cache", "latency", "postgres", "index", "migration", "retry", "timeout",
         "budget", "review", "release", "schema", "queue", "worker", "memory", "cluster", "shard",
         "replica", "backup", "restore", "metric", "alert", "dashboard", "token", "parser",
         "branch", "merge", "commit", "rollback", "feature", "flag", "config", "secret", "rotate"]
CJK = ["部署", "缓存", "数据库", "迁移", "回滚", "告警", "预算", "周报", "发布", "配置"]


def sentence(rng: random.Random, words: int) -> str:
    out = [rng.choice(WORDS) if rng.random() > 0.15 else rng.choice(CJK) for _ in range(words)]
    return " ".join(out).capitalize() + "."


def text(rng: random.Random) -> str:
    return " ".join(sentence(rng, rng.randint(6, 18)) for _ in range(rng.randint(1, 4)))


def ts(base: float, i: int) -> str:
    """The time of the i-th message of a session that began at base (epoch seconds)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(base + 7 * i))


def ms(base: float, i: int) -> int:
    """The same time as epoch milliseconds, as the editors store it."""
    return int((base + 7 * i) * 1000)


def dump(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


# one session is MESSAGES_PER_SESSION messages' worth of lines --------------------------------

def claude_code(folder: Path, sessions: int, rng: random.Random) -> None:
    for s in range(sessions):
        sid = f"00000000-0000-4000-8000-{s:012d}"
        base, parent = 1767225600 + s * 86400, None
        lines: list[dict[str, Any]] = []

        def line(kind: str, message: dict[str, Any], i: int, s: int = s, sid: str = sid,
                 base: float = base, lines: list[dict[str, Any]] = lines,
                 **extra: Any) -> dict[str, Any]:
            nonlocal parent
            uuid = f"{s:08d}-0000-4000-8000-{len(lines):012d}"
            item = {"parentUuid": parent, "isSidechain": False, "userType": "external",
                    "cwd": "/home/lin/code/app", "sessionId": sid, "version": "1.0.51", "type": kind,
                    "message": message, "uuid": uuid, "timestamp": ts(base, i), **extra}
            parent = uuid
            return item

        lines.append({"type": "summary", "summary": text(rng), "leafUuid": "x"})
        i = 0
        while i < MESSAGES_PER_SESSION:
            lines.append(line("user", {"role": "user", "content": text(rng)}, i))
            mid = f"msg_{s}_{i}"
            blocks = [{"type": "thinking", "thinking": text(rng)}] if rng.random() < 0.3 else []
            blocks += [{"type": "text", "text": text(rng)}]
            for block in blocks:  # one line per block, sharing message.id, as Claude Code writes
                lines.append(line("assistant", {"id": mid, "role": "assistant", "content": [block]},
                                  i + 1))
            if rng.random() < 0.5:
                tool = f"toolu_{s}_{i}"
                lines.append(line("assistant", {"id": mid, "role": "assistant", "content": [
                    {"type": "tool_use", "id": tool, "name": "Bash",
                     "input": {"command": f"pytest -q tests/test_{rng.choice(WORDS)}.py"}}]}, i + 1))
                lines.append(line("user", {"role": "user", "content": [
                    {"tool_use_id": tool, "type": "tool_result", "content": text(rng) * 3}]}, i + 2))
                i += 1
            if rng.random() < 0.1:
                lines.append({"type": "file-history-snapshot", "messageId": "x", "snapshot": {}})
            i += 2
        body = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
        path = folder / "projects" / "-home-lin-code-app" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, "utf-8")


def openclaw(folder: Path, sessions: int, rng: random.Random) -> None:
    target = folder / "agents" / "main" / "sessions"
    target.mkdir(parents=True, exist_ok=True)
    for s in range(sessions):
        sid = f"11111111-0000-4000-8000-{s:012d}"
        base = 1767225600 + s * 86400
        lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": sid,
                                        "timestamp": ts(base, 0), "cwd": "/home/lin/ws"}]
        parent: str | None = None

        def msg(role: str, content: Any, i: int, base: float = base,
                lines: list[dict[str, Any]] = lines, **fields: Any) -> None:
            nonlocal parent
            eid = f"e{len(lines):07d}"
            lines.append({"type": "message", "id": eid, "parentId": parent, "timestamp": ts(base, i),
                          "message": {"role": role, "content": content, **fields}})
            parent = eid

        i = 0
        while i < MESSAGES_PER_SESSION:
            msg("user", [{"type": "text", "text": text(rng)}], i)
            blocks: list[dict[str, Any]] = [{"type": "text", "text": text(rng)}]
            if rng.random() < 0.3:
                blocks.insert(0, {"type": "thinking", "thinking": text(rng)})
            if rng.random() < 0.5:
                blocks.append({"type": "toolCall", "id": f"c{i}", "name": "bash",
                               "arguments": {"command": f"ls {rng.choice(WORDS)}"}})
                msg("assistant", blocks, i + 1)
                msg("toolResult", [{"type": "text", "text": text(rng) * 3}], i + 2,
                    toolCallId=f"c{i}", toolName="bash", isError=False)
                i += 1
            else:
                msg("assistant", blocks, i + 1)
            i += 2
        body = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
        (target / f"{sid}.jsonl").write_text(body, "utf-8")


def chatgpt(folder: Path, sessions: int, rng: random.Random) -> None:
    conversations = []
    for s in range(sessions):
        base = 1767225600.0 + s * 86400
        mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None,
                                            "children": []}}
        parent = "root"
        for i in range(MESSAGES_PER_SESSION):
            nid = f"n{s}-{i}"
            role = "user" if i % 2 == 0 else "assistant"
            mapping[nid] = {"id": nid, "parent": parent, "children": [], "message": {
                "id": nid, "author": {"role": role, "name": None, "metadata": {}},
                "create_time": base + 7 * i, "content": {"content_type": "text",
                                                         "parts": [text(rng)]},
                "status": "finished_successfully", "metadata": {}, "recipient": "all"}}
            mapping[parent]["children"].append(nid)
            if role == "assistant" and rng.random() < 0.1:  # a regenerated answer left behind
                alt = nid + "-old"
                mapping[alt] = {**mapping[nid], "id": alt, "children": []}
                mapping[parent]["children"].insert(0, alt)
            parent = nid
        conversations.append({"title": sentence(rng, 4), "create_time": base,
                              "update_time": base + 700, "mapping": mapping, "current_node": parent,
                              "conversation_id": f"c-{s:06d}", "id": f"c-{s:06d}"})
    path = folder / "export" / "conversations.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(conversations, ensure_ascii=False, separators=(",", ":")), "utf-8")


def codex(folder: Path, sessions: int, rng: random.Random) -> None:
    for s in range(sessions):
        sid = f"22222222-0000-4000-8000-{s:012d}"
        base = 1767225600 + s * 86400

        def line(kind: str, payload: dict[str, Any], i: int, base: float = base) -> dict[str, Any]:
            return {"timestamp": ts(base, i), "type": kind, "payload": payload}

        def message(role: str, body: str, kind: str) -> dict[str, Any]:
            return {"type": "message", "role": role, "content": [{"type": kind, "text": body}]}

        lines = [line("session_meta", {"id": sid, "timestamp": ts(base, 0), "cwd": "/home/lin/app",
                                       "cli_version": "0.63.0"}, 0),
                 line("response_item", message("user", "<environment_context>cwd</environment_context>",
                                               "input_text"), 0)]
        i = 0
        while i < MESSAGES_PER_SESSION:
            prompt, answer = text(rng), text(rng)
            lines.append(line("turn_context", {"cwd": "/home/lin/app", "model": "gpt-5-codex"}, i))
            lines.append(line("response_item", message("user", prompt, "input_text"), i))
            lines.append(line("event_msg", {"type": "user_message", "message": prompt}, i))
            if rng.random() < 0.3:
                lines.append(line("response_item", {"type": "reasoning", "summary": [
                    {"type": "summary_text", "text": text(rng)}]}, i + 1))
            if rng.random() < 0.5:
                call = f"call_{s}_{i}"
                lines.append(line("response_item", {"type": "function_call", "name": "shell",
                                                    "call_id": call, "arguments": json.dumps(
                                                        {"command": ["pytest", "-q"]})}, i + 1))
                lines.append(line("response_item", {"type": "function_call_output", "call_id": call,
                                                    "output": text(rng) * 3}, i + 2))
                i += 1
            lines.append(line("response_item", message("assistant", answer, "output_text"), i + 1))
            lines.append(line("event_msg", {"type": "agent_message", "message": answer}, i + 1))
            i += 2
        body = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
        path = folder / "sessions" / "2026" / "01" / "01" / f"rollout-2026-01-01T00-00-00-{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, "utf-8")


def gemini(folder: Path, sessions: int, rng: random.Random) -> None:
    """Chat logs: a metadata line, each message a line, a gemini message written again as its
    tool call runs and finishes, a `$set` of lastUpdated per turn, an occasional info notice."""
    chats = folder / "tmp" / "app" / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    (folder / "projects.json").write_text(dump({"projects": {"/home/lin/code/app": "app"}}))
    for s in range(sessions):
        sid = f"33333333-0000-4000-8000-{s:012d}"
        base = 1767225600 + s * 86400
        lines: list[dict[str, Any]] = [{"sessionId": sid, "projectHash": "3f" * 32,
                                        "startTime": ts(base, 0), "lastUpdated": ts(base, 0),
                                        "kind": "main"}]
        i = 0
        while i < MESSAGES_PER_SESSION:
            lines.append({"id": f"u{i}", "timestamp": ts(base, i), "type": "user",
                          "content": [{"text": text(rng)}]})
            reply: dict[str, Any] = {"id": f"g{i}", "timestamp": ts(base, i + 1), "type": "gemini",
                                     "content": text(rng), "model": "gemini-2.5-pro"}
            if rng.random() < 0.3:
                reply["thoughts"] = [{"subject": sentence(rng, 3), "description": text(rng),
                                      "timestamp": ts(base, i + 1)}]
            if rng.random() < 0.5:
                call = {"id": f"run_shell_command-{i}", "name": "run_shell_command",
                        "args": {"command": f"pytest -q tests/test_{rng.choice(WORDS)}.py"},
                        "status": "executing", "timestamp": ts(base, i + 1)}
                lines.append({**reply, "content": "", "toolCalls": [call]})
                reply["toolCalls"] = [{**call, "status": "success", "result": [
                    {"functionResponse": {"id": call["id"], "name": call["name"],
                                          "response": {"output": text(rng) * 3}}}]}]
                i += 1
            lines.append(reply)
            lines.append({"$set": {"lastUpdated": ts(base, i + 1)}})
            if rng.random() < 0.05:
                lines.append({"id": f"n{i}", "timestamp": ts(base, i + 1), "type": "info",
                              "content": "Switched model to gemini-2.5-flash."})
            i += 2
        body = "".join(dump(x) + "\n" for x in lines)
        (chats / f"session-{ts(base, 0)[:16].replace(':', '-')}-{sid[:8]}.jsonl").write_text(
            body, "utf-8")


def aider(folder: Path, sessions: int, rng: random.Random) -> None:
    """One `.aider.chat.history.md` holding every session: the banner (`> ` lines, kept as a
    tool message), `#### ` prompts, answers (thinking as aider prints a reasoning model's), and
    on half the turns a SEARCH/REPLACE edit followed by aider's `> Applied edit` result."""
    out = []
    for s in range(sessions):
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(1767225600 + s * 86400))
        out.append(f"\n# aider chat started at {started}\n\n> Aider v0.82.1\n"
                   "> Main model: sonnet with diff edit format\n> Git repo: .git with 41 files\n\n")
        i = 1  # the banner
        while i < MESSAGES_PER_SESSION:
            out.append(f"#### {text(rng)}\n\n")
            answer = text(rng)
            if rng.random() < 0.3:  # aider/reasoning_tags.py: REASONING_START ... REASONING_END
                answer = (f"--------------\n► **THINKING**\n\n{text(rng)}\n\n------------\n"
                          f"► **ANSWER**\n\n{answer}")
            if rng.random() < 0.5:
                file = f"src/app/{rng.choice(WORDS)}.py"
                answer += (f"\n\n{file}\n```python\n<<<<<<< SEARCH\n    {sentence(rng, 5)}\n"
                           f"=======\n    {sentence(rng, 6)}\n>>>>>>> REPLACE\n```")
                out.append(f"{answer}\n\n> Applied edit to {file}\n"
                           f"> Commit {rng.getrandbits(28):07x} fix: {sentence(rng, 6)}\n\n")
                i += 1
            else:
                out.append(f"{answer}\n\n")
            i += 2
    path = folder / "app" / ".aider.chat.history.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(out), "utf-8")


GENERATORS = {"claude-code": claude_code, "codex": codex, "gemini": gemini, "aider": aider,
              "openclaw": openclaw, "chatgpt": chatgpt}
