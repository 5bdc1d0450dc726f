"""The CLI's outputs, the OpenAPI document and the MCP tool list match the recorded baseline.

A change to any of them is either a bug or a decision: re-record with
`python scripts/check_interfaces.py record tests/data/interfaces/baseline.json` and say why.
Every answer they record speaks snake_case, and so do the answers the baseline does not hold:
each MCP tool's, and the `--json` of the commands it does not run (run here).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import click
import pytest
from mcp.types import CallToolResult

from api.cli.main import cli
from api.mcp.server import build_mcp

from .helpers import CAMEL, EXAMPLES, FORMATS, camel_keys, json_keys, make_service

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "tests" / "data" / "interfaces" / "baseline.json"


def test_interfaces_match_the_baseline() -> None:
    proc = subprocess.run(
        [sys.executable, "scripts/check_interfaces.py", "compare", "tests/data/interfaces/baseline.json"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr


def _keys(value: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, where
            yield from _keys(item, where)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item, where)


def _property_names(schema: Any, where: str) -> Iterator[tuple[str, str]]:
    """The names a JSON Schema gives its objects' properties (not its own keywords)."""
    if isinstance(schema, dict):
        for key, item in schema.items():
            if key == "properties" and isinstance(item, dict):
                yield from ((name, where) for name in item)
            yield from _property_names(item, where)
    elif isinstance(schema, list):
        for item in schema:
            yield from _property_names(item, where)


def test_no_answer_of_any_interface_has_a_camel_case_key() -> None:
    recorded = json.loads(BASELINE.read_text())
    found: list[tuple[str, str]] = []
    for run in recorded["cli"]:
        found += _keys(run["stdout"], "recall " + " ".join(run["argv"]))
    for token, document in recorded["openapi"].items():
        for name, schema in document["components"]["schemas"].items():
            found += _property_names(schema, f"OpenAPI ({token}) {name}")
    for tool in recorded["mcp_tools"]:
        found += _property_names(tool.get("outputSchema") or {}, f"MCP {tool['name']}")
    camel = sorted({(key, where) for key, where in found if CAMEL.match(key)})
    assert camel == [], camel[:20]
    assert len(found) > 1000  # the walk saw the answers


# The `--json` commands the baseline does not run (they need a file of the test's, a replaced
# version, an agent's configuration), run here; `publish --json` needs an object store: its
# answer is checked by tests/test_object_storage.py.
UPGRADE = "063fbb6a-7c1c-4326-b4de-bb73c5b807f8"  # examples/: the OpenClaw upgrade
CLAUDE_CODE = "claude-code-5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13"  # tests/data/formats/claude-code
CHECKED_ELSEWHERE = {"publish"}
# arguments each MCP tool runs with, in this order; a new tool fails the test until added
TOOL_ARGUMENTS: dict[str, dict[str, Any]] = {
    "search_archive": {"query": "deploy", "scope": "all"},
    "get_session": {"session_id": UPGRADE}, "resume_session": {"session_id": CLAUDE_CODE},
    "context_pack": {"query": "deploy on Friday"},
    "archive_session": {"session": {"sessionId": "mcp-1", "date": "2026-06-02", "messages": [
        {"role": "user", "content": "which harbour did we pick?"}]}},
    "extract_memories": {"session_id": "mcp-1"}, "delete_session": {"session_id": "mcp-1"},
    "recover_session": {"session_id": UPGRADE, "context": "the upgrade"},
    "snapshot_changes": {"session_id": UPGRADE}, "memory_digest": {"period": "month"},
    "current_facts": {}, "start_session": {"session_id": "live-mcp"},
    "append_messages": {"session_id": "live-mcp",
                        "messages": [{"role": "user", "content": "a live line"}]},
    "set_session_status": {"session_id": "live-mcp", "status": "paused"},
    "add_todo": {"content": "a todo from MCP"}, "list_todos": {},
    "complete_todo": {},  # the todo add_todo made
}


def _leaves(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[tuple[str, click.Command]]:
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _leaves(sub, (*path, name))
    else:
        yield " ".join(path), command


def _recorded_with_json(recorded: dict[str, Any], name: str) -> bool:
    words = name.split()
    return any(run["argv"][2:2 + len(words)] == words and "--json" in run["argv"]
               for run in recorded["cli"])


def test_the_answers_no_baseline_holds_have_no_camel_case_key(
        recall, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # setup mcp looks for agents there
    recall("index", EXAMPLES, FORMATS / "claude-code")
    replaced = tmp_path / "in" / f"{UPGRADE}.json"  # a session a later file replaces
    replaced.parent.mkdir()
    shutil.copy(next(EXAMPLES.glob(f"*/{UPGRADE}.json")), replaced)
    recall("index", replaced)
    record = json.loads(replaced.read_text())
    replaced.write_text(json.dumps({**record, "messages": record["messages"][:2]}))
    recall("index", replaced)
    secret = tmp_path / "secret.env"
    secret.write_text("DB_PASSWORD=Hunter2Secret!x\nname=ok\n")
    runs: dict[str, list[tuple[str, ...]]] = {
        "pack": [("pack", "deploy on Friday", "--json")],
        "sources": [("sources", "--json")],
        "redact": [("redact", str(secret), "--json"), ("redact", str(secret), "--check", "--json")],
        "audit-secrets": [("audit-secrets", "--json")],
        "restore": [("restore", UPGRADE, "--list", "--json"), ("restore", UPGRADE, "--json")],
        "resume": [("resume", CLAUDE_CODE, "--json")],
        "setup mcp": [("setup", "mcp", "--agent", "claude-code", "--dry-run", "--json")],
    }
    answers = {"recall " + " ".join(argv): json.loads(recall(*argv).stdout)
               for argvs in runs.values() for argv in argvs}

    # every command that takes --json is recorded by the baseline, run here, or checked elsewhere
    recorded = json.loads(BASELINE.read_text())
    unchecked = [name for name, command in _leaves(cli)
                 if any("--json" in p.opts for p in command.params if isinstance(p, click.Option))
                 and not _recorded_with_json(recorded, name)
                 and name not in runs and name not in CHECKED_ELSEWHERE]
    assert unchecked == []

    # every MCP tool, called as an agent calls it (the recorded output schemas name no fields)
    service = make_service(tmp_path / "home")
    service.snapshots.create(UPGRADE)
    server = build_mcp(service)
    assert {tool.name for tool in server._tool_manager.list_tools()} == set(TOOL_ARGUMENTS)

    async def call_every_tool() -> None:
        for name, arguments in TOOL_ARGUMENTS.items():
            if name == "complete_todo":
                arguments = {"todo_id": answers["MCP add_todo"]["id"]}
            result = await server.call_tool(name, arguments)
            assert isinstance(result, CallToolResult) and not result.is_error, (name, result)
            answers[f"MCP {name}"] = json.loads(result.content[0].text)  # type: ignore[union-attr]
            answers[f"MCP {name} (structured)"] = result.structured_content

    anyio.run(call_every_tool)
    assert {where: camel_keys(answer) for where, answer in answers.items()
            if camel_keys(answer)} == {}
    assert [where for where, answer in answers.items() if not any(json_keys(answer))] == []
    assert sum(1 for answer in answers.values() for _ in json_keys(answer)) > 300
