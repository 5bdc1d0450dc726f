"""The Grok Build importer: a session's `updates.jsonl` (prompts in chunks, replies, tools, a
rewind's abandoned branch, what is left out, every line's fate), the files beside it that hold
nothing to import, recognizing them, where they live, and the pipeline from the fixture folder
to search results."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from indexer.formats import ImportOptions, NothingToImport, Transcript, detect_format, grok
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.resume import resume_hint
from indexer.formats.sources import load_file, normalize
from models import SearchRequest

from .helpers import FORMATS, checked, make_service

GROK = FORMATS / "grok"
SESSIONS = GROK / "home" / "sessions"
MAIN_ID, NOTES_ID = "019f6a00-1c2d-7e3f-8a4b-5c6d7e8f9a0b", "019f6a10-2d3e-7f40-9b5c-6d7e8f9a0b1c"
MAIN = SESSIONS / quote("/home/lin/code/ledger", safe="") / MAIN_ID
NOTES = SESSIONS / quote("/home/lin/notes", safe="") / NOTES_ID
IDLE = NOTES.parent / "019f6a20-3e4f-7051-8c6d-7e8f9a0b1c2d"


def read(folder: Path, ledger: Ledger | None = None, **options: Any) -> Transcript:
    path = folder / "updates.jsonl"
    (transcript,) = grok.parse(path, path.read_text("utf-8"), ImportOptions(**options),
                               ledger or Ledger())
    return transcript


def test_a_session_with_its_summary() -> None:
    record = read(MAIN).record
    assert record["sessionId"] == f"grok-{MAIN_ID}"
    assert (record["channel"], record["date"], record["topics"]) == ("grok", "2026-03-16",
                                                                     ["ledger"])
    assert record["title"] == "Dry-run flag for the export command"  # summary.json's title
    assert record["origin"] == {"agent": "grok", "id": MAIN_ID, "cwd": "/home/lin/code/ledger",
                                "path": str((MAIN / "updates.jsonl").absolute())}


def test_chunks_become_messages_and_tools_are_compact() -> None:
    messages = read(MAIN).record["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "tool",
                                             "assistant", "user", "assistant"]
    # a prompt's chunks and its screenshot are one message
    assert messages[0]["content"] == "Add a --dry-run flag to the export command.\n[image]"
    assert messages[0]["time"] == "2026-03-16T09:00:01Z"
    assert messages[1]["content"] == ("I'll read the CLI first.\n"
                                      '[tool: Read `src/ledger/cli.py`] {"path": '
                                      '"src/ledger/cli.py"}')
    assert messages[2]["content"] == "[tool result: Read `src/ledger/cli.py`] def export(month): ..."
    # a failed call shows its raw output as an error
    assert messages[4]["content"] == ('[tool error: Edit `src/ledger/cli.py`] {"error": "file '
                                      'changed on disk"}')
    assert not any("[thinking]" in m["content"] for m in messages)


def test_a_rewind_leaves_the_abandoned_turn_out() -> None:
    transcript = read(MAIN)
    contents = [m["content"] for m in transcript.record["messages"]]
    assert not any("hypothesis" in c for c in contents)
    assert contents[-2:] == ["Instead, document the flag in the README.",
                             "Documented --dry-run in README.md."]
    assert transcript.skipped["rewound turn (a branch left behind)"] == 2


def test_what_is_left_out_is_counted_and_every_line_has_its_fate() -> None:
    ledger = Ledger()
    transcript = read(MAIN, ledger)
    assert transcript.skipped == {
        "host turn marker": 1, "interface state": 1, "plan": 1, "rewind marker": 1,
        "rewound turn (a branch left behind)": 2, "sub-agent event": 1, "thinking": 1,
        "tool progress update": 1, "torn last line": 1, "turn marker": 1,
        "unknown update type some_future_feature": 1}
    totals = checked(ledger).totals()
    lines = [n for n in (MAIN / "updates.jsonl").read_text("utf-8").split("\n") if n.strip()]
    assert (totals.records, totals.imported, totals.merged) == (len(lines), 8, 5)
    assert ledger.fate("line 7").reason == "the message of line 6"  # type: ignore[union-attr]


def test_thinking_on_request_and_tool_chars() -> None:
    ledger = Ledger()
    messages = read(MAIN, ledger, thinking=True, tool_chars=8).record["messages"]
    assert messages[1]["content"].startswith("[thinking] Check the CLI module first.\n"
                                             "I'll read the CLI first.\n")
    assert messages[2]["content"] == "[tool result: Read `src/ledger/cli.py`] def expo…"
    assert ledger.fate("line 5").reason == "the message of line 6"  # type: ignore[union-attr]
    checked(ledger)


def test_without_a_summary_the_folders_name_the_session() -> None:
    record = read(NOTES).record
    assert record["title"] == "把这份会议纪要整理成待办清单"  # the first prompt
    assert record["origin"]["cwd"] == "/home/lin/notes"  # the URL-encoded folder's name
    assert record["messages"][0]["content"] == "把这份会议纪要整理成待办清单\n[file: meeting.md]"


@pytest.mark.parametrize(("path", "reason"), [
    (IDLE / "updates.jsonl", "no prompt in this Grok Build session"),
    (MAIN / "chat_history.jsonl", "Grok's chat history"),
])
def test_files_without_a_session_say_why(path: Path, reason: str) -> None:
    ledger = Ledger()
    with pytest.raises(NothingToImport, match=reason):
        grok.parse(path, path.read_text("utf-8"), ImportOptions(), ledger)
    assert checked(ledger).totals().records == len(path.read_text("utf-8").strip().split("\n"))


# every file of the fixture's session folder: what detection calls it
SESSION_FILES = {
    "updates.jsonl": "grok", "chat_history.jsonl": "grok", "rewind_points.jsonl": "grok",
    "feedback.jsonl": "grok", "btw_history.jsonl": "grok", "summary.json": "grok-summary",
    "plan.json": "grok-plan", "signals.json": "grok-signals",
    "prompt_context.json": "grok-prompt-context",
    "compaction_checkpoints/0b7c2d4e.json": "grok-compaction",
    "subagents/019f6a30/meta.json": "grok-subagent",
    "subagents/019f6a30/output.json": "grok-subagent-output", "plan_mode.json": "grok-plan-mode",
    "announcement_state.json": "grok-announcements", "relay_sync.json": "grok-relay-sync"}
# and of the top of the fixture's ~/.grok
HOME_FILES = {"auth.json": "grok-auth", "version.json": "grok-version",
              "models_cache.json": "grok-models", "tip_cursor.json": "grok-tips",
              "active_sessions.json": "grok-active-sessions", "logs/unified.jsonl": "grok"}


def test_the_fixture_holds_every_file_named_here() -> None:
    assert sorted(str(p.relative_to(MAIN)) for p in MAIN.rglob("*") if p.is_file()) == sorted(
        SESSION_FILES)
    assert sorted(str(p.relative_to(GROK / "home")) for p in (GROK / "home").rglob("*")
                  if p.is_file() and SESSIONS not in p.parents) == sorted(HOME_FILES)


@pytest.mark.parametrize(("path", "found"), [
    *((MAIN / name, found) for name, found in SESSION_FILES.items()),
    *((GROK / "home" / name, found) for name, found in HOME_FILES.items())])
def test_its_files_are_recognized_by_content(path: Path, found: str, tmp_path: Path) -> None:
    name, text = path.name, path.read_text("utf-8")
    renamed = tmp_path / ("x.jsonl" if name.endswith(".jsonl") else "x.json")
    assert detect_format(renamed, text) == found
    assert len(load_file(renamed, text.encode(), 10_000_000)) == (name == "updates.jsonl")


@pytest.mark.parametrize(("name", "reason", "each"), [
    ("rewind_points.jsonl", "rewind points", "rewind point (file snapshots)"),
    ("feedback.jsonl", "feedback", "user feedback"),
    ("btw_history.jsonl", "/btw side questions", "/btw side question"),
    ("../../../logs/unified.jsonl", "diagnostic log", "log entry"),
])
def test_side_lines_are_nothing_to_import(name: str, reason: str, each: str) -> None:
    ledger, path = Ledger(), MAIN / name
    with pytest.raises(NothingToImport, match=reason):
        grok.parse(path, path.read_text("utf-8"), ImportOptions(), ledger)
    lines = len(path.read_text("utf-8").strip().split("\n"))
    assert checked(ledger).totals().left_out == {each: lines}


def test_recall_index_of_a_grok_home_reads_the_sessions_and_rejects_nothing(recall) -> None:
    out = json.loads(recall("index", str(GROK / "home"), "--json").stdout)
    assert (out["indexed"], out["rejected"], out.get("passed_over", [])) == (2, [], [])
    outcomes = {os.path.relpath(f["path"], SESSIONS): f["outcome"] for f in out["files_read"]}
    side = {str(Path(quote("/home/lin/code/ledger", safe=""), MAIN_ID, name)): "empty"
            for name in SESSION_FILES if name != "updates.jsonl"}
    side |= {str(Path("..", name)): "empty" for name in HOME_FILES}
    assert outcomes == {**side, str(MAIN.relative_to(SESSIONS) / "updates.jsonl"): "read",
                        str(NOTES.relative_to(SESSIONS) / "updates.jsonl"): "read",
                        str(IDLE.relative_to(SESSIONS) / "updates.jsonl"): "empty"}


def test_a_damaged_file_is_refused_with_its_reason(tmp_path: Path) -> None:
    damaged = tmp_path / "updates.jsonl"
    good = (MAIN / "updates.jsonl").read_text("utf-8").split("\n")
    damaged.write_text("\n".join([good[1], *["{not json"] * 3, good[2]]), "utf-8")
    with pytest.raises(Exception, match="unreadable JSON on lines"):
        grok.parse(damaged, damaged.read_text("utf-8"), ImportOptions(), Ledger())


def test_default_location_follows_grok_home(tmp_path: Path) -> None:
    assert grok.default_paths(tmp_path, {}) == [tmp_path / ".grok" / "sessions"]
    assert grok.default_paths(tmp_path, {"GROK_HOME": "/srv/grok"}) == [Path("/srv/grok/sessions")]
    found = candidate_files("grok", default_paths("grok", tmp_path, {
        "GROK_HOME": str(GROK / "home")}))
    assert sorted(p.parent.name for p in found) == sorted([MAIN_ID, NOTES_ID, IDLE.name])


def test_an_imported_session_resumes_in_its_folder() -> None:
    session, _, _ = normalize(read(MAIN).record, None)
    hint = resume_hint(session)
    assert (hint.command, hint.cwd) == (f"grok --resume {MAIN_ID}", "/home/lin/code/ledger")


def test_indexed_sessions_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "grok"
    shutil.copytree(GROK, source)
    bad = source / "home" / "sessions" / "x" / "0000" / "updates.jsonl"
    bad.parent.mkdir(parents=True)
    good = (MAIN / "updates.jsonl").read_text("utf-8").split("\n")
    bad.write_text("\n".join([good[1], "{oops", "{oops", "[", good[2]]), "utf-8")
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert report.indexed == 2
    assert [(Path(r.path).parent.name, r.reason[:22]) for r in report.rejected] == [
        ("0000", "unreadable JSON on lin")]
    for query, session in [("dry-run README", MAIN_ID), ("会议纪要", NOTES_ID)]:
        hits = service.search(SearchRequest(query=query, mode="keyword")).results
        assert hits[0].session_id == f"grok-{session}", query
    assert not service.search(SearchRequest(query="hypothesis", mode="keyword")).results
    again = service.index([source])
    assert (again.indexed, again.unchanged) == (0, again.files - 1)
