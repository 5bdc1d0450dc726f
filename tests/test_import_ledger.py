"""The ledger of an import as the user sees it: every file read listed with its sessions,
messages and records left out by reason (`recall index`, `recall import`, text and --json, and
--dry-run), `recall import --explain FILE` for each record's fate, the files passed over by
name listed too; and what real transcripts hold that must not cost a session or a batch (a
reader that fails, messages without ids, a lone surrogate)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from api import RecallService, Settings
from indexer import HashEmbedder
from indexer.formats import gemini, registry

from .helpers import ROOT

REAL = ROOT / "tests" / "data" / "real"
CLAUDE = REAL / "claude-code" / "projects"
TOOLS = CLAUDE / "-Users-chip-dev-ai-music" / "fed8ce56-bc79-401f-a83e-af084253362f.jsonl"
GEMINI_OLD = next((REAL / "gemini" / "tmp").glob("*/chats/test_conversation_gemini.json"))


def _service(home: Path) -> RecallService:
    return RecallService(Settings(home=home, embedder="hash"), embedder=HashEmbedder())


def test_each_file_is_listed_with_its_ledger_and_what_was_passed_over(
        recall, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "in"
    shutil.copytree(CLAUDE, folder)
    (folder / "notes.txt").write_text("not a transcript")
    shown = recall("index", folder).stdout
    assert f"  {folder / TOOLS.relative_to(CLAUDE)}: 1 session, 13 messages" in shown
    assert ("      21 records: 13 imported, 6 merged, 2 left out (1× interruption marker, "
            "1× summary of another session)") in shown
    assert "empty: no conversation messages" in shown  # the sub-agent's file, with why
    assert f"  passed over {folder / 'notes.txt'}: not a transcript file name (*.txt)" in shown
    report = json.loads(recall("index", "--json", folder).stdout)
    assert "files_read" not in report  # unchanged files are not read again


def test_the_json_report_and_the_dry_run_give_every_files_ledger(
        recall, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    planned = json.loads(recall("import", "claude-code", CLAUDE, "--dry-run", "--json").stdout)
    done = json.loads(recall("import", "claude-code", CLAUDE, "--json").stdout)
    for report in (planned, done):
        files = {Path(f["path"]).name: f for f in report["files_read"]}
        assert len(files) == 8
        tools = files[TOOLS.name]
        assert (tools["records"], tools["imported"], tools["merged"], tools["left_out"]) == (
            21, 13, 6, {"interruption marker": 1, "summary of another session": 1})
        assert all(f["records"] == f["imported"] + f["merged"] + sum(f["left_out"].values())
                   for f in files.values())
    assert sum(f["sessions"] for f in done["files_read"]) == done["indexed"] == 5


def test_explain_gives_the_fate_of_each_record(recall) -> None:  # type: ignore[no-untyped-def]
    shown = recall("import", "claude-code", "--explain", TOOLS).stdout.splitlines()
    lines = len(TOOLS.read_text().strip().split("\n"))
    assert shown[0].split() == ["line", "1", "left", "out:", "summary", "of", "another", "session"]
    assert len([s for s in shown if s.lstrip().startswith("line ")]) == lines
    assert "18  merged: the reply begun on line 17" in "\n".join(shown)
    assert f"{lines} records: 13 imported, 6 merged, 2 left out" in "\n".join(shown)
    explained = json.loads(recall("import", "--explain", TOOLS, "--json").stdout)  # found by content
    assert len(explained["fates"]) == lines == explained["totals"]["records"]
    assert explained["sessions"][0]["messages"] == 13


def test_a_reader_that_fails_costs_its_file_and_never_the_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "in"
    shutil.copytree(REAL / "gemini" / "tmp", folder / "gemini")
    shutil.copytree(CLAUDE, folder / "claude")

    def broken(*args: object) -> None:  # a reader's bug, as a KeyError on a missing `id` was
        raise KeyError("id")

    monkeypatch.setattr(registry, "FORMATS", [
        dataclasses.replace(f, read_document=broken) if f is gemini.FORMAT else f
        for f in registry.FORMATS])
    report = _service(tmp_path / "home").index([folder])
    failed = [r for r in report.rejected if "the reader failed (KeyError" in r.reason]
    assert len(failed) == 2  # the two whole-file Gemini chats
    assert report.indexed == 5 + 1  # every Claude Code session, and the Gemini log
    assert {f.outcome for f in report.files_read if f.path.endswith(".json")} == {"rejected"}


def test_a_gemini_chat_whose_messages_have_no_id_is_imported_whole(tmp_path: Path) -> None:
    chat = json.loads(GEMINI_OLD.read_text("utf-8"))
    for message in chat["messages"]:
        del message["id"]
    path = tmp_path / "tmp" / "p" / "chats" / "session-2025-10-01T10-00-aaaa1111.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(chat))
    service = _service(tmp_path / "home")
    report = service.index([path])
    assert (report.indexed, report.rejected) == (1, [])
    (session,) = service.list_sessions().sessions
    shown = service.session(session.session_id)
    assert len(shown.messages) == 19
    assert len({m.id for m in shown.messages}) == 19  # stable ids from each message's place


def test_a_lone_surrogate_costs_nothing_but_itself(tmp_path: Path) -> None:
    # an agent that cut tool output in the middle of an emoji writes half of it, escaped
    text = TOOLS.read_text("utf-8")
    cut = text.replace('"content":"push to github"', '"content":"push to github \\ud83d"', 1)
    assert cut != text
    path = tmp_path / TOOLS.name
    path.write_text(cut)
    service = _service(tmp_path / "home")
    report = service.index([path])
    assert (report.indexed, report.rejected) == (1, [])
    assert report.files_read[0].repaired == {"lone surrogate made U+FFFD": 1}
    shown = service.session("claude-code-" + TOOLS.stem)
    assert any(m.content == "push to github \ufffd" for m in shown.messages)


def test_bytes_that_are_not_utf8_cost_nothing_but_themselves(tmp_path: Path) -> None:
    # the same cut written as raw bytes: the first half of an emoji's four, then a Latin-1 byte
    data = TOOLS.read_bytes()
    cut = data.replace(b'"content":"push to github"', b'"content":"push to github \xf0\x9f"', 1)
    cut = cut.replace(b"push to github", b"push to github \xe9", 1)
    assert cut != data
    path = tmp_path / TOOLS.name
    path.write_bytes(cut)
    service = _service(tmp_path / "home")
    report = service.index([path])
    assert (report.indexed, report.rejected) == (1, [])
    assert report.files_read[0].repaired == {"bytes not UTF-8 made U+FFFD": 2}
    assert (report.files_read[0].sessions, report.files_read[0].messages) == (1, 13)
    shown = service.session("claude-code-" + TOOLS.stem)
    assert any(m.content == "push to github \ufffd \ufffd" for m in shown.messages)
    # a file that is mostly not UTF-8 is not text: refused, as before
    binary = tmp_path / "binary" / TOOLS.name
    binary.parent.mkdir()
    binary.write_bytes(bytes(range(128, 256)) * 4)
    (rejected,) = _service(tmp_path / "home2").index([binary]).rejected
    assert rejected.reason.startswith("not valid UTF-8 (byte 0;")
