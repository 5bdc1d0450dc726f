"""Import speed per transcript format, and what the readers leave out of the sample fixtures.

    python benchmarks/import_speed.py [--messages 10000] [--json]

For each format (Claude Code, Codex, OpenClaw, ChatGPT) it generates a transcript set of about
--messages messages in a temporary folder (seeded, so every run reads the same text), then times
  read     the format reader alone (sources.load_file: decode, JSON, branch choice, tool clipping)
  parse    read + redaction + normalization into a Session (what an import does before writing)
  ingest   a whole `recall import` into an empty data dir with the hash embedder: archive, memory
           extraction, Tantivy and LanceDB, but no model (embedding speed is measured elsewhere)
and prints messages per second. Then, on tests/data/formats, the share of lines (ChatGPT: of
mapping nodes) each skip reason accounts for.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexer import DataDir, HashEmbedder
from indexer.formats import ImportOptions, NothingToImport
from indexer.formats.importer import candidate_files
from indexer.formats.sources import decode, load_file, normalize, read_transcripts
from indexer.ingest.ingestor import Ingestor

FIXTURES = ROOT / "tests" / "data" / "formats"
MESSAGES_PER_SESSION = 100
WORDS = ["deploy", "cache", "latency", "postgres", "index", "migration", "retry", "timeout", "budget", "review", "release", "schema", "queue", "worker", "memory", "cluster", "shard", "replica", "backup", "restore", "metric", "alert", "dashboard", "token", "parser", "branch", "merge", "commit", "rollback", "feature", "flag", "config", "secret", "rotate"]
CJK = ["部署", "缓存", "数据库", "迁移", "回滚", "告警", "预算", "周报", "发布", "配置"]


def sentence(rng: random.Random, words: int) -> str:
    out = [rng.choice(WORDS) if rng.random() > 0.15 else rng.choice(CJK) for _ in range(words)]
    return " ".join(out).capitalize() + "."


def text(rng: random.Random) -> str:
    return " ".join(sentence(rng, rng.randint(6, 18)) for _ in range(rng.randint(1, 4)))


def ts(base: float, i: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(base + 7 * i))


# generators: one session is MESSAGES_PER_SESSION turns' worth of lines -----------------------

def claude_code(folder: Path, sessions: int, rng: random.Random) -> None:
    for s in range(sessions):
        sid = f"00000000-0000-4000-8000-{s:012d}"
        base, parent, lines = 1767225600 + s * 86400, None, []

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


GENERATORS = {"claude-code": claude_code, "codex": codex, "openclaw": openclaw, "chatgpt": chatgpt}


def measure(fmt: str, folder: Path, sessions: int) -> dict[str, Any]:
    GENERATORS[fmt](folder, sessions, random.Random(8))
    files = candidate_files(fmt, [folder])
    options = ImportOptions(format=fmt)
    blobs = [(p, p.read_bytes()) for p in files]
    started = time.perf_counter()
    raws = [raw for path, data in blobs for raw in load_file(path, data, 10**9, options)]
    read = time.perf_counter() - started
    started = time.perf_counter()
    messages = sum(len(normalize(r.record, r.fallback_id)[0].messages) for r in raws)  # type: ignore[union-attr]
    parse = read + time.perf_counter() - started
    home = folder / "home"
    ingestor = Ingestor(DataDir(home), HashEmbedder(), import_options=options)
    report = ingestor.index_paths(files)
    assert report.indexed == len(raws) and not report.rejected, report
    return {"format": fmt, "files": len(files), "sessions": len(raws), "messages": messages,
            "megabytes": round(sum(len(d) for _, d in blobs) / 1e6, 1),
            "read_s": round(read, 2), "parse_s": round(parse, 2), "ingest_s": round(report.seconds, 2),
            "read_msgs_per_s": round(messages / read), "parse_msgs_per_s": round(messages / parse),
            "ingest_msgs_per_s": round(messages / report.seconds)}


def skipped_shares() -> list[dict[str, Any]]:
    """Per format: what share of the sample fixtures' lines (ChatGPT: mapping nodes) each skip
    reason covers. Block-level reasons (a thinking block) are counted too, against the same base."""
    out = []
    for fmt, root in (("claude-code", FIXTURES / "claude-code"), ("codex", FIXTURES / "codex"),
                      ("openclaw", FIXTURES / "openclaw"), ("chatgpt", FIXTURES / "chatgpt")):
        units, reasons = 0, Counter[str]()
        for path in candidate_files(fmt, [root]):
            body = decode(path.read_bytes(), 10**9)
            if fmt == "chatgpt":
                units += sum(len(c.get("mapping", {})) for c in json.loads(body))
            else:
                units += sum(1 for line in body.split("\n") if line.strip())
            try:
                for t in read_transcripts(path, body, ImportOptions(format=fmt)) or []:
                    reasons.update(t.skipped)
            except NothingToImport as exc:  # a sub-agent file: all its lines are left out
                reasons[f"file with nothing to import ({exc.detail})"] += sum(
                    1 for line in body.split("\n") if line.strip())
        out.append({"format": fmt, "units": units, "skipped": {
            reason: {"count": n, "share": round(n / units, 3)} for reason, n in reasons.most_common()}})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sessions = max(1, args.messages // MESSAGES_PER_SESSION)
    results = []
    for fmt in GENERATORS:
        with tempfile.TemporaryDirectory() as tmp:
            results.append(measure(fmt, Path(tmp), sessions))
    shares = skipped_shares()
    if args.json:
        print(json.dumps({"speed": results, "skipped": shares}, ensure_ascii=False, indent=1))
        return 0
    print("| format | sessions | messages | MB | read msg/s | parse msg/s | ingest msg/s (hash) |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['format']} | {r['sessions']} | {r['messages']} | {r['megabytes']} | "
              f"{r['read_msgs_per_s']:,} | {r['parse_msgs_per_s']:,} | {r['ingest_msgs_per_s']:,} |")
    print()
    for s in shares:
        parts = ", ".join(f"{reason} {v['count']} ({v['share']:.0%})" for reason, v in s["skipped"].items())
        print(f"{s['format']}: {s['units']} units; skipped: {parts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
