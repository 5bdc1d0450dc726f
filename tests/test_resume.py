"""`recall resume`: imported sessions remember where they came from, and each agent's command
reopens them; over the CLI, HTTP and (by the same service call) MCP."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from api import RecallService
from api.http.app import create_app
from models import NotFound

from .helpers import DAMAGED_FORMAT_FILES, FORMATS, SESSIONS, damaged_format_files, make_service

CLAUDE = "claude-code-5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13"
CODEX = "codex-0199a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b"
GEMINI = "gemini-7c0d2e4f-6a8b-4c1d-9e3f-5a7b9c1d3e5f"
AIDER = "aider-ledger-2026-03-05T16-40-03"
OPENCLAW = "openclaw-9a3c5e7f-1b2d-4f6a-8c0e-2d4f6a8c0e1b"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> RecallService:
    root = tmp_path_factory.mktemp("resume")
    shutil.copytree(FORMATS, root / "formats")
    shutil.copytree(SESSIONS, root / "sessions")
    service = make_service(root / "home")
    report = service.index([root / "formats", root / "sessions"])
    assert damaged_format_files(report.rejected, root / "formats") == DAMAGED_FORMAT_FILES
    return service


@pytest.mark.parametrize(("session_id", "command", "cwd"), [
    (CLAUDE, "claude --resume 5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13", "/home/lin/code/ledger"),
    (CODEX, "codex resume 0199a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b", "/home/lin/code/ledger"),
    (GEMINI, "gemini --resume 7c0d2e4f-6a8b-4c1d-9e3f-5a7b9c1d3e5f", "/home/lin/code/ledger"),
    ("chatgpt-67c70000-3333-800a-8888-000000000004",
     "https://chatgpt.com/c/67c70000-3333-800a-8888-000000000004", None),
])
def test_each_agent_gets_its_own_command(imported: RecallService, session_id: str,
                                         command: str, cwd: str | None) -> None:
    hint = imported.resume(session_id)
    assert (hint.command, hint.cwd) == (command, cwd)
    assert hint.transcript and Path(hint.transcript).is_file()


def test_aider_restores_its_folder_and_openclaw_says_why_not(imported: RecallService) -> None:
    aider = imported.resume(AIDER)
    assert aider.command == "aider --restore-chat-history"
    assert aider.cwd and Path(aider.cwd).name == "ledger" and "not one session" in aider.note
    claw = imported.resume(OPENCLAW)
    assert claw.command is None and claw.agent == "openclaw" and claw.transcript
    archived = imported.resume("t-zh-upgrade")
    assert archived.agent is None and "not imported from an agent" in archived.note
    with pytest.raises(NotFound):
        imported.resume("no-such-session")


def test_the_origin_is_kept_in_the_archive(imported: RecallService) -> None:
    origin = imported.session(CODEX).origin
    assert origin is not None and (origin.agent, origin.id) == ("codex", CODEX.removeprefix("codex-"))


@pytest.fixture
def http(imported: RecallService) -> Iterator[TestClient]:
    with TestClient(create_app(imported.settings, imported), base_url="http://127.0.0.1") as c:
        yield c


def test_over_http(http: TestClient) -> None:
    body = http.get(f"/v1/sessions/{CODEX}/resume").json()
    assert body == {"session_id": CODEX, "agent": "codex",
                    "command": "codex resume 0199a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b",
                    "cwd": "/home/lin/code/ledger", "transcript": body["transcript"],
                    "note": body["note"]}
    assert http.get("/v1/sessions/no-such-session/resume").status_code == 404


def test_from_the_command_line(recall, imported: RecallService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_HOME", str(imported.data.root))
    shown = recall("resume", CODEX)
    assert shown.stdout.strip() == ("cd /home/lin/code/ledger && "
                                    "codex resume 0199a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b")
    assert "transcript:" in shown.stderr
    claw = recall("resume", OPENCLAW, ok=False)
    assert claw.returncode == 1 and "OpenClaw sessions are picked up again" in claw.stdout
    context = recall("resume", CODEX, "--print-context", "--token-budget", "60").stdout
    assert context.startswith(CODEX) and "CHANGELOG" in context
    assert json.loads(recall("resume", GEMINI, "--json").stdout)["agent"] == "gemini"
