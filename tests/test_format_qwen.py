"""The Qwen Code importer: the JSONL chat log (rewinds, titles, commands, notices, sub-agents),
the whole-file chats of older releases (told from Gemini CLI's by their `qwen` messages), and
the pipeline from the fixture folder to search results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, claude_code, detect_format, gemini, qwen
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.resume import resume_hint
from indexer.formats.sources import RawSession, load_file, normalize, read_transcripts
from models import InvalidSession, SearchRequest

from .helpers import FORMATS, make_service

QWEN = FORMATS / "qwen"
SID = "7c0d2e4f-6a8b-4c1d-9e3f-5a7b9c1d3e5f"
MAIN = QWEN / "projects" / "-home-lin-code-ledger" / "chats" / f"{SID}.jsonl"
HASHED = QWEN / "tmp" / ("a1" * 32) / "chats"
OLDER = HASHED / "b2c4d6e8-0a1b-4c3d-8e5f-7a9b1c3d5e7f.jsonl"
LEGACY = HASHED / "session-2025-10-02T08-00-c3d5e7f9.json"


def record(path: Path, **options: Any) -> dict[str, Any]:
    raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(**options))
    assert len(raws) == 1 and isinstance(raws[0], RawSession)
    return raws[0].record


@pytest.mark.parametrize("path", [MAIN, OLDER, LEGACY])
def test_chats_are_detected_by_content(path: Path, tmp_path: Path) -> None:
    text = path.read_text("utf-8")
    assert detect_format(path, text) == "qwen"
    assert detect_format(tmp_path / "renamed.txt", text) == "qwen"


def test_claude_code_and_gemini_do_not_claim_qwen_records() -> None:
    lines = [json.loads(line) for line in MAIN.read_text("utf-8").split("\n")[:-2]]
    assert not any(claude_code.looks_like(item) for item in lines[:18])
    assert all(qwen.looks_like(item) for item in lines[:18])
    claude_line = {"type": "user", "uuid": "u1", "sessionId": "s",
                   "message": {"role": "user", "content": "hi"}}
    assert claude_code.looks_like(claude_line) and not qwen.looks_like(claude_line)
    legacy = json.loads(LEGACY.read_text("utf-8"))
    assert not gemini.FORMAT.sniff_document(legacy, LEGACY)  # type: ignore[misc]
    assert gemini.written_by_qwen(legacy, Path("/anywhere/session-1.json"))
    # a chat of older releases without a reply yet is told by where it is, as a last resort
    unanswered = {**legacy, "messages": legacy["messages"][:1]}
    assert gemini.written_by_qwen(unanswered, Path("/home/u/.qwen/tmp/h/chats/session-1.json"))
    assert not gemini.written_by_qwen(unanswered, Path("/home/u/.gemini/tmp/h/chats/s.json"))


def test_the_log_is_read_as_qwen_code_resumes_it() -> None:
    r = record(MAIN)
    assert r["sessionId"] == f"qwen-{SID}"
    assert (r["channel"], r["date"], r["topics"]) == ("qwen", "2026-03-20", ["ledger"])
    assert r["title"] == "FX rates: a freshness test"  # the custom_title record
    assert r["origin"]["cwd"] == "/home/lin/code/ledger"
    got = [(m["id"], m["role"]) for m in r["messages"]]
    # u6 and u7 were rewound; notices, telemetry, the compression checkpoint, the command's
    # output, an empty reply, an unknown record and a sub-agent's record are not conversation
    assert got == [("u1", "user"), ("u3", "assistant"), ("u4", "tool"), ("u5", "assistant"),
                   ("u9", "user"), ("u10", "assistant"), ("u11", "tool"), ("u13", "user"),
                   ("u17", "user")]
    contents = [m["content"] for m in r["messages"]]
    assert contents[0] == "Where do the currency rates in @fx.py come from?"  # as typed
    assert contents[1] == ('Let me read fx.py.\n[tool: read_file] '
                           '{"absolute_path": "/home/lin/code/ledger/fx.py"}')
    assert contents[2].startswith("[tool result: read_file] RATES = {")
    assert len(contents[2]) <= len("[tool result: read_file] ") + 301  # cut to --tool-chars
    assert contents[6] == "[tool error: run_shell_command] 1 failed: RATES older than 30 days"
    assert (contents[7], contents[8]) == ("/compress", "[image]")
    assert r["messages"][0]["time"] == "2026-03-20T10:01:00.000Z"
    assert not any("ECB" in c or "Sub-agent" in c or "state_snapshot" in c for c in contents)


def test_every_record_has_its_fate_in_the_ledger() -> None:
    ledger = Ledger()
    (transcript,) = read_transcripts(MAIN, MAIN.read_text("utf-8"), ImportOptions(), ledger) or []
    totals = ledger.totals()
    assert totals.adds_up() and (totals.records, totals.imported) == (21, 10)
    assert totals.left_out == {"compression checkpoint (the model's context)": 1,
                               "message left empty": 1, "rewind marker (applied)": 1,
                               "rewound message": 2, "sidechain record (a sub-agent's)": 1,
                               "slash command output": 1, "system record ui_telemetry": 1,
                               "torn last line": 1, "turn sent by the agent (notification)": 1,
                               "unknown record type checkpoint": 1}
    assert totals.parts_left_out == {"prompt expanded from what the user typed": 1, "thought": 1}
    assert transcript.skipped == {**totals.left_out, **totals.parts_left_out}


def test_thoughts_on_request() -> None:
    answer = record(MAIN, thinking=True)["messages"][1]["content"]
    assert answer.startswith("[thinking] The rates may be hard-coded; read fx.py first.\n")
    legacy = record(LEGACY, thinking=True)["messages"][1]["content"]
    assert legacy.startswith("[thinking] Format: Read the parser before answering.\n")


def test_a_record_without_uuid_gets_one_from_its_line() -> None:
    r = record(OLDER)
    assert [(m["id"], m["role"]) for m in r["messages"]] == [("v1", "user"), ("l2", "assistant")]
    assert r["title"] == "Suggest a name for the ledger tool."


def test_an_older_whole_file_chat() -> None:
    r = record(LEGACY)
    assert (r["sessionId"], r["date"]) == ("qwen-c3d5e7f9-1b2c-4d3e-9f5a-8b0c2d4e6f8a",
                                           "2025-10-02")
    assert [(m["id"], m["role"]) for m in r["messages"]] == [
        ("m-1", "user"), ("m-2", "assistant"), ("m-2-results", "tool"), ("m-4", "user")]
    assert r["messages"][2]["content"] == "[tool result: read_file] def parse(line): ..."
    ledger = Ledger()
    load_file(LEGACY, LEGACY.read_bytes(), 10_000_000, ImportOptions(), ledger)
    assert ledger.totals().left_out == {"info message (a notice, not conversation)": 1}


def test_what_is_not_a_qwen_chat_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "chats" / "x.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps({"kind": "note", "text": "hi"}) + "\n", "utf-8")
    with pytest.raises(InvalidSession, match="not a Qwen Code chat"):
        read_transcripts(path, path.read_text("utf-8"), ImportOptions(format="qwen"))


def test_default_locations_candidates_and_resume(tmp_path: Path) -> None:
    assert default_paths("qwen", tmp_path, {}) == [tmp_path / ".qwen" / "projects",
                                                   tmp_path / ".qwen" / "tmp"]
    assert default_paths("qwen", tmp_path, {"QWEN_RUNTIME_DIR": "/r"}) == [
        Path("/r/projects"), Path("/r/tmp")]
    assert sorted(p.name for p in candidate_files("qwen", [QWEN])) == sorted(
        [MAIN.name, OLDER.name, LEGACY.name])
    session, _, _ = normalize(record(MAIN), None)
    hint = resume_hint(session)
    assert (hint.command, hint.cwd) == (f"qwen --resume {SID}", "/home/lin/code/ledger")


def test_a_damaged_chat_is_rejected_while_the_batch_goes_on(tmp_path: Path) -> None:
    source = tmp_path / "qwen"
    shutil.copytree(QWEN, source)
    broken = source / "projects" / "-home-lin-code-ledger" / "chats" / "broken.jsonl"
    good = MAIN.read_text("utf-8").split("\n")[0]
    broken.write_text(f"{good}\n{{not json\n{{nor this\n]\n", "utf-8")
    report = make_service(tmp_path / "home").index([source])
    assert report.indexed == 3
    (rejected,) = report.rejected
    assert rejected.path == str(broken) and "unreadable JSON" in rejected.reason


def test_indexed_chats_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "qwen"
    shutil.copytree(QWEN, source)
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert (report.indexed, report.rejected) == (3, [])
    hits = service.search(SearchRequest(query="hand-written freshness test",
                                        mode="keyword")).results
    assert hits[0].session_id == f"qwen-{SID}"
    assert not service.search(SearchRequest(query="ECB", mode="keyword")).results  # rewound
    again = service.index([source])
    assert (again.indexed, again.unchanged) == (0, 3)
