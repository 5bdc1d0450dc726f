"""What several test modules use that is not a fixture: the test data's paths, a service on the
hash embedder, the session the todo tests promote tasks from, the problem+json check, `recall
serve` on a free port, the check that every store agrees, reading MCP tool answers, and the
scope each HTTP route needs.
Fixtures are in conftest.py."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import httpx
from mcp import ClientSession
from mcp.types import CallToolResult

from api import RecallService, Settings
from indexer import HashEmbedder
from indexer.formats.common import Transcript
from indexer.formats.ledger import UNACCOUNTED, Ledger
from indexer.formats.registry import FORMATS as FORMAT_RECORDS
from indexer.stores.documents import session_text
from indexer.stores.memories import MemoryStore
from indexer.stores.state import State
from models.files import decode_session

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SESSIONS = DATA / "sessions"
JSONL = DATA / "jsonl"
BAD = DATA / "bad"
EXAMPLES = ROOT / "examples" / "sessions"

# transcripts of the formats recall imports (tests/data/formats/generate.py writes them)
FORMATS = DATA / "formats"
CC = FORMATS / "claude-code" / "projects"
OC = FORMATS / "openclaw" / "agents"
GPT = FORMATS / "chatgpt" / "conversations.json"
# what moves an agent's default location away from the home folder: every variable a format's
# default_paths reads (indexer/formats/registry.py), unset by tests that read default locations
AGENT_LOCATION_VARIABLES = tuple(sorted({name for f in FORMAT_RECORDS for name in f.environment}))
# format fixtures damaged on purpose: `recall index` rejects each, with this in its reason, and
# imports the rest
DAMAGED_FORMAT_FILES = {
    "cline/config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1772600000789/"
    "api_conversation_history.json": "invalid JSON at line 1",
    "cursor/Cursor/User/workspaceStorage/9e107d9d372bb6826bd81d3542a419d6/state.vscdb":
        "unreadable SQLite database: database disk image is malformed",
    "opencode/older-install/storage/part/msg_a4c1f0e50001CsVeXpOrTs0002/"
    "prt_a4c1f0e50001004Ts0002.json": "invalid JSON at line 3",
}


def damaged_format_files(rejected: list[Any], root: Path = FORMATS) -> dict[str, str]:
    """The rejections of an index run over the format fixtures (copied to root), as
    {path under root: the part of the reason DAMAGED_FORMAT_FILES expects}."""
    out = {}
    for rejection in rejected:
        relative = Path(rejection.path).resolve().relative_to(root.resolve()).as_posix()
        expected = DAMAGED_FORMAT_FILES.get(relative, "")
        out[relative] = expected if expected and expected in rejection.reason else rejection.reason
    return out

PROBLEM = "application/problem+json"

# a session with two tasks (one due on a day) and a decision: what todos are promoted from
TASKS = {
    "sessionId": "t-tasks", "date": "2026-03-10", "channel": "webchat", "category": "planning",
    "messages": [
        {"role": "user", "content": "Remember to renew the TLS certificate by Friday 2026-03-13.",
         "time": "2026-03-10T09:00:00+08:00"},
        {"role": "user", "content": "We decided to keep Postgres for the quotes service.",
         "time": "2026-03-10T09:01:00+08:00"},
        {"role": "user", "content": "记得把数据库备份脚本交给运维。", "time": "2026-03-10T09:02:00+08:00"},
    ],
}


# a key of a JSON object recall sends: snake_case, never camelCase (the archive's files keep
# camelCase on disk; nothing recall answers does)
CAMEL = re.compile(r"^[a-z][a-z0-9]*[A-Z]")


def json_keys(value: Any) -> Iterator[str]:
    """Every key of every object in a decoded JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from json_keys(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from json_keys(item)


def camel_keys(value: Any) -> list[str]:
    return sorted({key for key in json_keys(value) if CAMEL.match(key)})


def make_service(home: Path) -> RecallService:
    return RecallService(Settings(home=home, embedder="hash", lock_wait=2),
                         embedder=HashEmbedder())


def tasks_memory(service: RecallService, needle: str) -> str:
    """The id of the memory of TASKS whose text holds `needle`."""
    return next(m.id for m in service.memories.of("t-tasks") if needle in m.text)


def assert_problem(response: httpx.Response, status: int, title: str, detail: str | None) -> None:
    """The one shape of every error: problem+json with type, title, status and detail."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert set(body) == {"type", "title", "status", "detail"}
    assert (body["status"], body["title"]) == (status, title)
    if detail is not None:
        assert body["detail"] == detail


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve(home: Path, *args: str, env: dict[str, str] | None = None, log: IO[str] | None = None
          ) -> tuple[subprocess.Popen[str], str]:
    """`recall serve` on a free port, as a real process; its output goes to `log` (for long runs:
    a pipe nobody reads would fill up and stall the server), else to pipes read when it ends."""
    port = free_port()
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_EMBEDDER": "hash", **(env or {})}
    out = log or subprocess.PIPE
    proc = subprocess.Popen([sys.executable, "-m", "api.cli", "serve", "--port", str(port), *args],
                            cwd=ROOT, env=env, stdout=out, stderr=out, text=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code in (200, 401, 503):
                return proc, base
        except httpx.TransportError:
            if proc.poll() is not None:
                raise AssertionError(proc.communicate()[1]) from None
            time.sleep(0.1)
    proc.kill()
    proc.communicate()
    raise AssertionError("server did not start")


def agreement(service: RecallService) -> dict[str, int]:
    """Sessions -> message count, asserting archive, state, Tantivy and LanceDB all agree."""
    state = State(service.data.state_db)
    rows = {r.session_id: r for r in state.sessions()}
    state.close()
    assert all(r.status == "indexed" for r in rows.values()), "unfinished rows left behind"
    gen = service.searcher.generation()
    keyword = gen.keyword.session_ids()
    vectors = gen.vectors.session_counts()
    archive = {p.stem: len(json.loads(p.read_text())["messages"])
               for p in service.data.archive.rglob("*.json")}
    # a session with no messages and no title has nothing to index
    assert set(rows) == set(archive) and set(keyword) == set(vectors) <= set(rows)
    nonempty = {sid: sum(1 for m in json.loads((service.data.archive / rows[sid].archive_path)
                                                .read_text())["messages"] if m["content"].strip())
                for sid in rows}
    # one document per message, no duplicates
    assert {sid: keyword.get(sid, 0) for sid in rows} == nonempty
    assert {sid: vectors.get(sid, 0) for sid in rows} == nonempty
    # memory documents: exactly the memories stored for each session, no more, no fewer
    stored_memories = {sid: MemoryStore(service.data).load(sid) for sid in rows}
    assert all(m is not None for m in stored_memories.values()), "a session has no stored memories"
    memory_docs = sum(len(m or []) for m in stored_memories.values())
    assert gen.keyword.num_docs() == memory_docs + sum(nonempty.values()) + sum(
        1 for sid in rows if session_text(decode_session(
            (service.data.archive / rows[sid].archive_path).read_bytes())))
    return {sid: r.message_count for sid, r in rows.items()}


async def call_tool(client: ClientSession, name: str, /, **arguments: Any) -> CallToolResult:
    result = await client.call_tool(name, arguments)
    assert isinstance(result, CallToolResult)
    return result


def tool_data(result: CallToolResult) -> dict[str, Any]:
    """A tool's answer; its text is the same object as its structured content, for clients
    that read only text."""
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]  # a TextContent
    assert result.structured_content is not None
    return result.structured_content


def tool_error(result: CallToolResult) -> str:
    assert result.is_error
    return result.content[0].text  # type: ignore[union-attr]  # a TextContent


def _standup(session_id: str, date: str, lines: list[tuple[str, str]]) -> dict[str, Any]:
    return {"sessionId": session_id, "date": date, "channel": "webchat",
            "participants": ["Ana", "Bot"],
            "messages": [{"id": f"{session_id}-m{n}", "role": role, "content": text,
                          "time": f"{date}T10:0{n}:00Z"}
                         for n, (role, text) in enumerate(lines, start=1)]}


# a decision (January) and the later one that changes its value in words (February)
KESTREL_STANDUPS = (
    _standup("standup-jan", "2026-01-05", [
        ("user", "Let's set the rules for the Kestrel team standup."),
        ("user", "We decided the Kestrel standup is at 9:30 every weekday."),
        ("assistant", "Noted: Kestrel standup at 9:30.")]),
    _standup("standup-feb", "2026-02-10", [
        ("user", "Quick change for the Kestrel team."),
        ("user", "We decided to move the Kestrel standup to 10:15 instead of 9:30, starting Monday."),
        ("assistant", "Noted: Kestrel standup now at 10:15.")]),
)


# every route a token guards, and the scope it needs: a new route must be added here
ROUTE_SCOPES = {
    ("GET", "/v1/search"): "read", ("POST", "/v1/pack"): "read",
    ("GET", "/v1/sessions"): "read", ("POST", "/v1/sessions"): "write",
    ("DELETE", "/v1/sessions/{session_id:str}"): "admin",
    ("GET", "/v1/sessions/{session_id:str}/versions"): "read",
    ("POST", "/v1/sessions/{session_id:str}/restore"): "admin",
    ("PATCH", "/v1/sessions/{session_id:str}"): "write",
    ("GET", "/v1/sessions/{session_id:str}"): "read",
    ("GET", "/v1/sessions/{session_id:str}/resume"): "read",
    ("GET", "/v1/facets"): "read", ("GET", "/v1/stats"): "read", ("GET", "/v1/check"): "read",
    ("POST", "/v1/cleanup"): "admin",
    ("POST", "/v1/sessions/{session_id:str}/memories"): "read",
    ("GET", "/v1/digest"): "read", ("GET", "/v1/facts"): "read",
    ("GET", "/v1/sessions/{session_id:str}/snapshots"): "read",
    ("POST", "/v1/sessions/{session_id:str}/snapshots"): "write",
    ("DELETE", "/v1/sessions/{session_id:str}/snapshots"): "admin",
    ("GET", "/v1/sessions/{session_id:str}/snapshots/{snapshot_id:str}"): "read",
    ("GET", "/v1/sessions/{session_id:str}/changes"): "read",
    ("POST", "/v1/recovery"): "read",
    ("POST", "/v1/todos"): "write", ("GET", "/v1/todos"): "read",
    ("POST", "/v1/todos/promote"): "write", ("GET", "/v1/todos/{todo_id:str}"): "read",
    ("POST", "/v1/todos/{todo_id:str}/done"): "write",
    ("POST", "/v1/todos/{todo_id:str}/reopen"): "write",
    ("GET", "/v1/memories/relevance"): "read", ("POST", "/v1/memories/prune"): "admin",
    ("POST", "/v1/memories/decay"): "admin", ("GET", "/v1/memories/pruned"): "read",
    ("POST", "/v1/sessions/{session_id:str}/messages"): "write",
    ("GET", "/metrics"): "read",
}
RANK = {"read": 0, "write": 1, "admin": 2}


def checked(ledger: Ledger) -> Ledger:
    """The ledger of a read, asserted to add up with every record given its fate."""
    totals = ledger.totals()
    assert totals.adds_up() and UNACCOUNTED not in totals.left_out, totals
    return ledger


def contents(transcript: Transcript) -> list[tuple[str, str]]:
    """A transcript's messages as (role, content)."""
    return [(m["role"], m["content"]) for m in transcript.record["messages"]]
