"""`recall import FORMAT` end to end, in-process, on the hash embedder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from api.service.indexing import Rejected
from indexer.formats import FORMAT_NAMES

from .helpers import (
    AGENT_LOCATION_VARIABLES,
    CC,
    DAMAGED_FORMAT_FILES,
    FORMATS,
    GPT,
    OC,
    damaged_format_files,
)


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    """HOME for the run: the formats' default locations are looked up under it."""
    home = tmp_path / "user"
    home.mkdir()
    return home


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """RECALL_HOME for the run."""
    return tmp_path / "data"


@pytest.fixture
def recall(recall, user_home: Path, data: Path, monkeypatch: pytest.MonkeyPatch):
    """The `recall` fixture with a user home of its own and no CLAUDE_CONFIG_DIR, so no default
    location outside the test is read."""
    monkeypatch.setenv("RECALL_HOME", str(data))
    monkeypatch.setenv("HOME", str(user_home))
    for name in AGENT_LOCATION_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return recall


def test_dry_run_lists_sessions_and_writes_nothing(recall, data: Path) -> None:
    out = json.loads(recall("import", "claude-code", str(CC), "--dry-run", "--json").stdout)
    assert out["format"] == "claude-code" and out["dry_run"] is True and out["files"] == 3
    by_id = {s["session_id"]: s for s in out["sessions"]}
    main = by_id["claude-code-5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13"]
    assert (main["messages"], main["date"], main["last_activity"]) == (9, "2026-02-10", "2026-02-10T09:21:30.000Z")
    assert main["file"].endswith("5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13.jsonl")
    assert main["skipped"]["sidechain line"] == 2 and main["skipped"]["unknown line type x-telemetry"] == 1
    notes = by_id["claude-code-c7d1e9f0-3a5b-4e2c-8f61-0b9d2a4c6e88"]
    assert "sk-ant-" not in notes["title"]  # redacted, as an import would store it
    assert [Path(e["path"]).name for e in out["empty"]] == ["agent-3f2a9c1d.jsonl"]
    assert out["rejected"] == []
    assert not data.exists()  # nothing written

    human = recall("import", "chatgpt", str(GPT.parent), "--dry-run", "--since", "2026-03").stdout
    assert "chatgpt-67c5a1b2-8e44-800a-9f1e-3a6b2c4d5e6f  2026-03-03  4 messages  ISO date regex" in human
    assert "1× message on another branch" in human
    assert "would import 2 sessions (6 messages) from 1 files" in human
    assert "1 older than 2026-03-01; nothing written" in human
    assert not data.exists()


def test_default_locations(recall, user_home: Path) -> None:
    sessions = user_home / ".openclaw" / "agents"
    shutil.copytree(OC, sessions)
    out = json.loads(recall("import", "openclaw", "--dry-run", "--json").stdout)
    assert sorted(s["session_id"] for s in out["sessions"]) == [
        "openclaw-9a3c5e7f-1b2d-4f6a-8c0e-2d4f6a8c0e1b", "openclaw-e4f6a8b0-c2d4-4e6f-8a0b-c2d4e6f8a0b2"]
    assert out["files"] == 2  # sessions.json is metadata, not a candidate

    missing = recall("import", "claude-code", ok=False)
    assert missing.returncode == 1
    assert f"no claude-code transcripts at {user_home / '.claude' / 'projects'}" in missing.stderr

    missing = recall("import", "codex", ok=False)
    assert f"no codex transcripts at {user_home / '.codex' / 'sessions'} or " in missing.stderr
    # Codex keeps sessions/ and archived_sessions/; either one is enough
    shutil.copytree(FORMATS / "codex" / "sessions", user_home / ".codex" / "sessions")
    out = json.loads(recall("import", "codex", "--dry-run", "--json").stdout)
    assert (out["files"], len(out["sessions"])) == (2, 2)

    downloads = user_home / "Downloads" / "chatgpt-export-2026-03"
    downloads.mkdir(parents=True)
    shutil.copy(GPT, downloads / "conversations.json")
    (downloads / "user.json").write_text('{"id": "user-1", "email": "lin@example.com"}')
    out = json.loads(recall("import", "chatgpt", "--dry-run", "--json").stdout)
    assert out["files"] == 1 and len(out["sessions"]) == 3


def test_sources_and_import_all(recall, user_home: Path) -> None:
    shutil.copytree(FORMATS / "codex", user_home / ".codex")
    shutil.copytree(FORMATS / "gemini", user_home / ".gemini")
    found = {s["format"]: s for s in json.loads(recall("sources", "--json").stdout)}
    assert tuple(found) == FORMAT_NAMES
    assert (found["codex"]["files"], found["gemini"]["files"]) == (3, 2)
    assert found["codex"]["found"] == [str(user_home / ".codex" / "sessions"),
                                       str(user_home / ".codex" / "archived_sessions")]
    assert found["claude-code"]["files"] == 0
    assert found["claude-code"]["missing"] == [str(user_home / ".claude" / "projects")]
    assert found["codex"]["newest"]  # a YYYY-MM-DD
    human = recall("sources").stdout
    assert "codex" in human and "not found" in human

    planned = json.loads(recall("import", "--all", "--dry-run", "--json").stdout)
    assert set(planned) == {"codex", "gemini"} and len(planned["codex"]["sessions"]) == 3
    done = recall("import", "--all").stdout
    assert "codex: read 3 files; indexed 3 sessions" in done
    assert "gemini: read 2 files; indexed 2 sessions" in done
    assert "claude-code: nothing found at" in done
    stats = json.loads(recall("stats", "--json").stdout)
    assert stats["channels"] == {"codex": 3, "gemini": 2}


def test_import_needs_a_format_or_all(recall) -> None:
    assert "give a FORMAT or --all" in recall("import", ok=False).stderr
    assert "give a FORMAT or --all" in recall("import", "codex", "--all", ok=False).stderr
    empty = recall("import", "--all", ok=False)
    assert empty.returncode == 1 and "no agent's transcripts found" in empty.stderr


def test_import_then_search(recall) -> None:
    first = json.loads(recall("import", "openclaw", str(OC), "--json").stdout)
    assert (first["indexed"], first["rejected"], first["format"]) == (2, [], "openclaw")
    again = json.loads(recall("import", "openclaw", str(OC), "--json").stdout)
    assert (again["indexed"], again["unchanged"]) == (0, 2)
    out = json.loads(recall("search", "G7355", "--channel", "telegram", "--json").stdout)
    assert out["results"][0]["session_id"] == "openclaw-9a3c5e7f-1b2d-4f6a-8c0e-2d4f6a8c0e1b"
    assert out["results"][0]["title"] == "杭州出差"

    human = recall("import", "claude-code", str(CC), "--since", "2026-01-01", "--tool-chars", "80").stdout
    assert "claude-code: read 3 files; indexed 1 sessions" in human
    shown = json.loads(recall("show", "claude-code-5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13", "--json").stdout)
    assert shown["channel"] == "claude-code" and shown["topics"] == ["ledger"]
    assert max(len(m["content"]) for m in shown["messages"] if m["role"] == "tool") <= 110


def test_index_recognizes_every_format(recall) -> None:
    report = json.loads(recall("index", str(FORMATS), "--json").stdout)
    assert damaged_format_files([Rejected(**r) for r in report["rejected"]]) == DAMAGED_FORMAT_FILES
    stats = json.loads(recall("stats", "--json").stdout)
    assert stats["channels"] == {"aider": 2, "chatgpt": 3, "claude-code": 2, "codex": 3,
                                 "gemini": 2, "telegram": 1, "webchat": 1, "cursor": 8,
                                 "cline": 6, "opencode": 6, "copilot": 7, "zed": 5, "kimi": 3,
                                 "goose": 5, "crush": 3, "windsurf": 3, "warp": 3, "qwen": 3,
                                 "continue": 2, "grok": 2, "kiro": 6, "amp": 2}
    assert report["indexed"] == sum(stats["channels"].values())  # every session, once
    # each file read has its ledger, and it adds up
    assert all(f["records"] == f["imported"] + f["merged"] + sum(f["left_out"].values())
               for f in report["files_read"])
    assert {f["outcome"] for f in report["files_read"]} == {"read", "empty", "rejected"}


@pytest.mark.parametrize("args,status,message", [
    (["import", "notepad", "--dry-run"], 2, "Invalid value for '[FORMAT]': 'notepad' is not one of"),
    (["import", "chatgpt", str(GPT), "--since", "yesterday"], 1, "cannot read date"),
    (["import", "chatgpt", str(GPT), "--tool-chars", "-1"], 1, "must not be negative"),
    (["import", "openclaw", "/no/such/folder"], 1, "no such file or folder"),
])
def test_import_errors_are_clear(recall, args: list[str], status: int, message: str) -> None:
    proc = recall(*args, ok=False)
    assert proc.returncode == status
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
