"""The Kimi CLI importer: a session's wire log (its turns, replies, tools and what is left out,
every line's fate), the files beside it that hold nothing to import, recognizing them, where
they live, and the pipeline from the fixture folder to search results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import ImportOptions, NothingToImport, Transcript, detect_format, kimi
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.resume import resume_hint
from indexer.formats.sources import load_file, normalize
from models import SearchRequest

from .helpers import FORMATS, checked, make_service

KIMI = FORMATS / "kimi"
SESSIONS = KIMI / "share" / "sessions"
MAIN_ID, NOTES_ID = "6f1c2a3b-4d5e-4f60-8a71-9b2c3d4e5f60", "7a2b3c4d-5e6f-4a70-9b81-0c1d2e3f4a5b"
MAIN = SESSIONS / "20119c3ba30785da72d312016e037896" / MAIN_ID
NOTES = SESSIONS / "83697b3fd285b7f152b312a7eb782230" / NOTES_ID
IDLE = NOTES.parent / "8b3c4d5e-6f70-4b81-8c92-1d2e3f4a5b6c"
SUB_AGENT = MAIN / "subagents" / "a1b2c3d4"
CODE_ID = "session_3c9d2e1f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
CODE = KIMI / "kimi-code" / "sessions" / "wd_ledger_057f5c09ee3f" / CODE_ID
CODE_MAIN, CODE_SUB = CODE / "agents" / "main", CODE / "agents" / "agent-0"


def read(path: Path, ledger: Ledger | None = None, **options: Any) -> Transcript:
    (transcript,) = kimi.parse(path / "wire.jsonl" if path.is_dir() else path,
                               (path / "wire.jsonl" if path.is_dir() else path).read_text("utf-8"),
                               ImportOptions(**options), ledger or Ledger())
    return transcript


def test_a_session_with_its_title_folder_and_origin() -> None:
    record = read(MAIN).record
    assert record["sessionId"] == f"kimi-{MAIN_ID}"
    assert (record["channel"], record["date"], record["topics"]) == ("kimi", "2026-03-14",
                                                                     ["ledger"])
    assert record["title"] == "Swiss VAT rounding"  # state.json's custom_title (/title)
    assert record["origin"] == {"agent": "kimi", "id": MAIN_ID, "cwd": "/home/lin/code/ledger",
                                "path": str((MAIN / "wire.jsonl").absolute())}


def test_turns_replies_and_tools_in_order_and_compact() -> None:
    transcript = read(MAIN)
    messages = transcript.record["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "tool",
                                             "assistant", "user", "user", "assistant", "tool",
                                             "assistant"]
    assert messages[0]["time"] == "2026-03-14T09:20:00Z"
    assert transcript.last_activity == "2026-03-14T09:21:14Z"
    assert messages[1]["content"] == ('Let me look at the tests first.\n'
                                      '[tool: Shell] {"command": "uv run pytest -q"}')
    assert messages[2]["content"] == "[tool result: Shell] 212 passed, 1 failed: test_chf_rounding"
    # an error without output shows what the tool told the model
    assert messages[4]["content"] == "[tool error: ReadFile] File not found: vat.py"
    # a screenshot beside the words, and input added while the turn ran
    assert messages[6]["content"] == "Does the invoice look right now?\n[image]"
    assert messages[7]["content"] == "Also note it in CHANGELOG.md."
    assert messages[9]["content"] == "[tool result: Agent] Totals match on 12 invoices."
    assert not any("[thinking]" in m["content"] for m in messages)


def test_what_is_left_out_is_counted_and_every_line_has_its_fate() -> None:
    ledger = Ledger()
    transcript = read(MAIN, ledger)
    assert transcript.skipped == {
        "approval": 2, "log header (protocol version)": 1, "status update": 1,
        "sub-agent event": 1, "thinking": 1, "torn last line": 1, "turn and step markers": 6,
        "unknown message type TelemetryPing": 1}
    totals = checked(ledger).totals()
    lines = [n for n in (MAIN / "wire.jsonl").read_text("utf-8").split("\n") if n.strip()]
    assert (totals.records, totals.imported, totals.merged) == (len(lines), 11, 1)
    assert ledger.fate("line 6").reason == "the reply of line 5"  # type: ignore[union-attr]


def test_thinking_on_request_and_tool_chars() -> None:
    messages = read(MAIN, thinking=True, tool_chars=10).record["messages"]
    assert messages[1]["content"].startswith("[thinking] Find round_vat callers first.\n"
                                             "Let me look")
    assert messages[2]["content"] == "[tool result: Shell] 212 passed…"


def test_a_default_title_a_screenshot_alone_and_stray_records() -> None:
    transcript = read(NOTES)
    record = transcript.record
    assert record["title"] == "把周报模板整理成 Markdown 表格"  # no state.json: the first prompt
    assert record["topics"] == ["notes"]
    assert [m["content"] for m in record["messages"]] == [
        "把周报模板整理成 Markdown 表格", "好的，已整理成三列表格。", "[image]"]
    assert transcript.skipped["tool call fragment"] == 1
    assert transcript.skipped["compaction marker"] == 2


@pytest.mark.parametrize(("path", "reason"), [
    (IDLE / "wire.jsonl", "no prompt in this Kimi session"),
    (MAIN / "context.jsonl", "Kimi's model context (context.jsonl)"),
    (SUB_AGENT / "wire.jsonl", "a sub-agent's wire log"),
    (CODE_SUB / "wire.jsonl", "a sub-agent's wire log"),
])
def test_files_without_a_session_say_why(path: Path, reason: str) -> None:
    ledger = Ledger()
    with pytest.raises(NothingToImport, match=reason.replace("(", r"\(").replace(")", r"\)")):
        kimi.parse(path, path.read_text("utf-8"), ImportOptions(), ledger)
    assert checked(ledger).totals().records == len(path.read_text("utf-8").strip().split("\n"))


def test_a_kimi_code_session_from_its_main_agents_journal() -> None:
    ledger = Ledger()
    transcript = read(CODE_MAIN, ledger)
    record = transcript.record
    assert (record["sessionId"], record["title"], record["topics"]) == (
        f"kimi-{CODE_ID}", "Nightly export speed", ["ledger"])  # the session's state.json
    assert record["origin"]["cwd"] == "/home/lin/code/ledger"  # from its config record
    assert [(m["role"], m["content"]) for m in record["messages"]] == [
        ("user", "Why is the nightly export slow?"),
        ("assistant", 'Profiling first.\n[tool: Shell] {"command": "py-spy top --pid 4242"}'),
        ("tool", "[tool result: Shell] 81% in ledger.money.to_decimal"),
        ("assistant", "to_decimal parses every row's string; cache the parsed rates."),
        ("user", "[image]"),
        ("assistant", "The chart shows the export at 40 s, down from 9 min.")]
    assert record["messages"][0]["time"] == "2026-03-17T08:00:10Z"  # epoch milliseconds
    # the prompt's copy in the model's context is merged into it
    assert ledger.fate("line 5").reason == "the prompt of line 4"  # type: ignore[union-attr]
    assert transcript.skipped["prompt the agent sent (system_trigger)"] == 1
    assert transcript.skipped["record type tower_mode.enter"] == 1  # a later release's type
    assert checked(ledger).totals().merged == 3
    thinking = read(CODE_MAIN, thinking=True).record["messages"][1]["content"]
    assert thinking.startswith("[thinking] Profile it.\nProfiling first.")


@pytest.mark.parametrize(("name", "found"), [
    ("wire.jsonl", "kimi"), ("context.jsonl", "kimi"), ("state.json", "kimi-state"),
    ("subagents/a1b2c3d4/meta.json", "kimi-sub-agent"), ("../../../kimi.json", "kimi-work-dirs"),
])
def test_its_files_are_recognized_by_content(name: str, found: str, tmp_path: Path) -> None:
    text = (MAIN / name).read_text("utf-8")
    renamed = tmp_path / ("x.jsonl" if name.endswith(".jsonl") else "x.json")
    assert detect_format(renamed, text) == found
    # the log is a session; the others are "nothing to import", not rejected
    assert len(load_file(renamed, text.encode(), 10_000_000)) == (name == "wire.jsonl")


def test_a_damaged_log_is_refused_and_a_torn_one_keeps_its_lines(tmp_path: Path) -> None:
    damaged = tmp_path / "wire.jsonl"
    good = (MAIN / "wire.jsonl").read_text("utf-8").split("\n")
    damaged.write_text("\n".join([good[0], *["{not json"] * 3, good[1]]), "utf-8")
    with pytest.raises(Exception, match="unreadable JSON on lines"):
        kimi.parse(damaged, damaged.read_text("utf-8"), ImportOptions(), Ledger())


def test_default_location_follows_kimi_share_dir(tmp_path: Path) -> None:
    assert kimi.default_paths(tmp_path, {}) == [tmp_path / ".kimi" / "sessions",
                                                tmp_path / ".kimi-code" / "sessions"]
    assert kimi.default_paths(tmp_path, {"KIMI_SHARE_DIR": "/srv/kimi",
                                         "KIMI_CODE_HOME": "/srv/code"}) == [
        Path("/srv/kimi/sessions"), Path("/srv/code/sessions")]
    found = candidate_files("kimi", default_paths("kimi", tmp_path, {
        "KIMI_SHARE_DIR": str(KIMI / "share"), "KIMI_CODE_HOME": str(KIMI / "kimi-code")}))
    # the sub-agents' logs are not sessions'
    assert sorted(p.parent.name for p in found) == sorted([MAIN_ID, NOTES_ID, IDLE.name, "main"])


def test_an_imported_session_resumes_in_its_folder() -> None:
    session, _, _ = normalize(read(MAIN).record, None)
    hint = resume_hint(session)
    assert (hint.command, hint.cwd) == (f"kimi -r {MAIN_ID}", "/home/lin/code/ledger")


def test_indexed_sessions_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "kimi"
    shutil.copytree(KIMI, source)
    bad = source / "share" / "sessions" / "broken" / "0000" / "wire.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"type": "metadata", "protocol_version": "1.10"}\n{oops\n{oops\n[\n', "utf-8")
    service = make_service(tmp_path / "home")
    report = service.index([source])
    assert report.indexed == 3  # the others hold nothing to import
    assert [(Path(r.path).parent.name, r.reason[:22]) for r in report.rejected] == [
        ("0000", "unreadable JSON on lin")]  # rejected with its reason; the batch went on
    for query, session in [("Swiss invoices", MAIN_ID), ("周报模板", NOTES_ID),
                           ("nightly export", CODE_ID)]:
        hits = service.search(SearchRequest(query=query, mode="keyword")).results
        assert hits[0].session_id == f"kimi-{session}", query
    again = service.index([source])
    assert (again.indexed, again.unchanged) == (0, again.files - 1)


def test_watch_archives_its_sessions_from_the_default_location(
        tmp_path: Path, recall: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    share, code = tmp_path / "share", tmp_path / "code"
    shutil.copytree(KIMI / "share", share)
    shutil.copytree(KIMI / "kimi-code", code)
    monkeypatch.setenv("KIMI_SHARE_DIR", str(share))
    monkeypatch.setenv("KIMI_CODE_HOME", str(code))
    ran = recall("watch", "--format", "kimi", "--once", "--quiet", "0")
    assert "indexed 3 sessions" in ran.stderr
    for session in (MAIN_ID, NOTES_ID, CODE_ID):
        shown = json.loads(recall("show", f"kimi-{session}", "--json").stdout)
        assert shown["channel"] == "kimi"
