"""Kiro IDE's chats (the `kiro` format's third store): `.chat` files and workspace-sessions
files in `globalStorage/kiro.kiroagent`, an assistant turn resolved from its execution log, the
ledger of each file, a damaged file rejected while the batch goes on, and the default locations
that `recall import kiro`, `recall import --all` and `recall sources` look in."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from indexer.formats import ImportOptions, detect_format
from indexer.formats.importer import candidate_files, default_paths, find_sources
from indexer.formats.kiro import FORMAT
from indexer.formats.ledger import Ledger
from indexer.formats.sources import RawSession, discover, load_file, normalize, read_transcripts
from models import SearchRequest

from .helpers import FORMATS, checked, make_service

CONFIG = FORMATS / "kiro" / "Kiro"  # as ~/.config/Kiro
STORE = CONFIG / "User" / "globalStorage" / "kiro.kiroagent"
WORKSPACE = STORE / "f9fbad57981704b547c535d15be46966"  # sha256("/home/lin/code/ledger")[:32]
CHAT = WORKSPACE / "9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f.chat"
EXECUTIONS = WORKSPACE / "414d1636299d2b9e4ce7e17fb11f63e9"
SESSIONS = STORE / "workspace-sessions" / "L2hvbWUvbGluL2NvZGUvbGVkZ2Vy"  # base64 of the folder
SESSION = SESSIONS / "6b1e2f30-4a5c-4d7e-8f90-a1b2c3d4e5f6.json"
BARE = SESSIONS / "6b1e2f30-4a5c-4d7e-8f90-0000000000b2.json"
LEDGER = "/home/lin/code/ledger"


def read(path: Path, **options: Any) -> tuple[dict[str, Any], Ledger]:
    ledger = Ledger()
    (transcript,) = read_transcripts(path, path.read_text("utf-8"), ImportOptions(**options),
                                     ledger) or []
    return transcript.record, checked(ledger)


def test_chats_and_sessions_are_recognized_by_content(tmp_path: Path) -> None:
    for path in (CHAT, SESSION, BARE):
        assert detect_format(path, path.read_text("utf-8")) == "kiro"
    # a session with execution ids is Kiro's wherever it is; Continue's stay Continue's
    moved = tmp_path / "sessions" / SESSION.name
    assert detect_format(moved, SESSION.read_text("utf-8")) == "kiro"
    continue_session = next((FORMATS / "continue" / "sessions").glob("*-*.json"))
    assert detect_format(continue_session, continue_session.read_text("utf-8")) == "continue"
    index = SESSIONS / "sessions.json"
    assert load_file(index, index.read_bytes(), 10_000_000) == []  # a list: nothing to import
    # the execution log has no file name suffix: `recall index` passes over it, and reads it
    # only through the session that names its execution id
    assert not [p for p in discover([STORE]) if p.parent == EXECUTIONS]


def test_a_chat_file_is_read_with_its_ledger() -> None:
    r, ledger = read(CHAT)
    assert r["sessionId"] == ("kiro-ide-f9fbad57981704b547c535d15be46966-"
                              "9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f")
    assert (r["channel"], r["date"], r["topics"]) == ("kiro", "2026-03-16", ["ledger"])
    assert r["origin"]["agent"] == "kiro-ide" and r["origin"]["cwd"] == LEDGER  # by its hash
    assert r["title"] == "Why does the CSV export drop the last invoice line?"
    assert [(m["id"], m["role"]) for m in r["messages"]] == [
        ("c2", "user"), ("c3", "assistant"), ("c4", "tool"), ("c6", "user"), ("c7", "assistant")]
    assert r["messages"][0]["content"] == "Why does the CSV export drop the last invoice line?"
    tool = r["messages"][2]["content"]
    assert tool.startswith("[tool result] src/ledger/export.py:12:") and len(tool) <= 320
    assert "You are Kiro" not in json.dumps(r)
    totals = ledger.totals()
    assert (totals.records, totals.imported) == (9, 5)
    assert totals.left_out == {"system prompt or steering rules the IDE added": 1,
                               "acknowledgement of the IDE's instructions": 1,
                               "message left empty": 1, "unknown chat role system": 1}


def test_a_session_takes_its_answers_from_the_execution_log() -> None:
    r, ledger = read(SESSION)
    assert r["sessionId"] == "kiro-ide-6b1e2f30-4a5c-4d7e-8f90-a1b2c3d4e5f6"
    assert (r["title"], r["date"], r["topics"]) == ("Rate limiter for the export API",
                                                    "2026-03-17", ["ledger"])  # sessions.json
    messages = {m["id"]: m for m in r["messages"]}
    assert list(messages) == ["m-01", "m-02", "m-04", "m-05"]
    answer = messages["m-02"]["content"].split("\n")
    assert answer[0] == "I'll add a token bucket in api/limits.py."  # not "On it."
    assert answer[1] == '[tool: readCode] {"file": "api/export.py"}'
    assert answer[2].startswith('[tool: Write] {"file": "api/limits.py"') and len(answer[2]) < 320
    assert answer[3].startswith('[tool: Edit] {"file": "api/export.py"')
    assert answer[4] == "Done: export answers 429 past ten requests a minute."
    assert messages["m-04"]["content"] == "Show this page when a caller is throttled.\n[image]"
    # no log for this turn: the completion of its prompt log
    assert messages["m-05"]["content"] == ("The 429 page now shows when to retry, from the "
                                           "Retry-After header.")
    totals = ledger.totals()
    assert (totals.records, totals.imported) == (6, 4)
    assert totals.left_out == {"tool turn (its action is in the execution log)": 1,
                               "history item without message": 1}
    assert totals.parts_left_out == {"taskList action": 1}


def test_a_session_without_its_execution_log_keeps_what_the_turn_says(tmp_path: Path) -> None:
    store = tmp_path / "kiro.kiroagent"
    shutil.copytree(STORE / "workspace-sessions", store / "workspace-sessions")
    r, _ = read(store / "workspace-sessions" / SESSIONS.name / SESSION.name)
    assert r["messages"][1]["content"] == "On it."


def test_a_session_without_title_or_execution_ids() -> None:
    r, ledger = read(BARE)
    assert r["title"] == "Which Python does the ledger CI use?"
    assert r["date"] == "2026-03-18"
    assert [(m["id"], m["role"]) for m in r["messages"]] == [("h0", "user"), ("h1", "assistant")]
    assert ledger.totals().imported == 2


def test_a_damaged_file_is_rejected_with_its_reason_while_the_batch_goes_on(
        tmp_path: Path) -> None:
    store = tmp_path / "kiro.kiroagent"
    shutil.copytree(STORE, store)
    (store / WORKSPACE.name / "00000000000000000000000000000bad.chat").write_text(
        '{"executionId": "x", "actionId": "y", "chat": [{"role": "human", "cont', "utf-8")
    service = make_service(tmp_path / "home")
    report = service.index([store])
    assert report.indexed == 3
    ((rejected),) = report.rejected
    assert rejected.path.endswith("00000000000000000000000000000bad.chat")
    assert "JSON" in rejected.reason
    hits = service.search(SearchRequest(query="token bucket limits", mode="keyword")).results
    assert hits[0].session_id == "kiro-ide-6b1e2f30-4a5c-4d7e-8f90-a1b2c3d4e5f6"
    assert service.index([store]).indexed == 0  # unchanged: skipped


def test_secrets_in_a_chat_are_redacted_before_anything_is_kept(tmp_path: Path) -> None:
    chat = json.loads(CHAT.read_text("utf-8"))
    chat["chat"][2]["content"] = "deploy with AKIAIOSFODNN7EXAMPLE"
    path = tmp_path / "a.chat"
    path.write_text(json.dumps(chat), "utf-8")
    (raw,) = load_file(path, path.read_bytes(), 10_000_000)
    assert isinstance(raw, RawSession)
    session, _, redacted = normalize(raw.record, raw.fallback_id)
    assert session.messages[0].content == "deploy with [REDACTED:aws_access_key]"
    assert redacted["aws_access_key"] == 2  # in the prompt and in the title made from it


def test_default_locations_sources_and_import(tmp_path: Path, recall: Any,
                                              monkeypatch: Any) -> None:
    home = tmp_path / "user"
    shutil.copytree(CONFIG, home / ".config" / "Kiro")
    store = home / ".config" / "Kiro" / "User" / "globalStorage" / "kiro.kiroagent"
    assert store in default_paths("kiro", home, {})
    assert Path("/srv/app/Kiro/User/globalStorage/kiro.kiroagent") in default_paths(
        "kiro", home, {"VSCODE_APPDATA": "/srv/app"})
    mac = home / "Library" / "Application Support" / "Kiro" / "User" / "globalStorage"
    assert mac / "kiro.kiroagent" in default_paths("kiro", home, {})
    found = candidate_files("kiro", [store])
    assert sorted(p.name for p in found) == sorted([CHAT.name, SESSION.name, BARE.name])
    (source,) = [s for s in find_sources(home, {}) if s.format == "kiro"]
    assert source.files == 3 and str(store) in source.found
    assert FORMAT.resumes()["kiro-ide"].command is None
    monkeypatch.setenv("HOME", str(home))
    for name in FORMAT.environment:
        monkeypatch.delenv(name, raising=False)
    ran = recall("import", "kiro")
    assert "indexed 3 sessions" in ran.stdout + ran.stderr
    shown = json.loads(recall("show", "kiro-ide-6b1e2f30-4a5c-4d7e-8f90-a1b2c3d4e5f6",
                              "--json").stdout)
    assert shown["channel"] == "kiro" and shown["topics"] == ["ledger"]
