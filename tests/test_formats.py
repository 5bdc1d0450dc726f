"""Transcript importers (Claude Code, OpenClaw, ChatGPT; each other format in its own
test_format_*.py): detection, parsing choices, and the real pipeline from a folder of every
format's fixtures to search results."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest

from api import RecallService
from indexer.formats import ImportOptions, NothingToImport, detect_format
from indexer.formats.common import safe_session_id
from indexer.formats.sources import (
    RawSession,
    discover,
    load_database,
    load_file,
    read_path,
    read_transcripts,
)
from models import InvalidSession, SearchFilters, SearchRequest, check_session_id

from .helpers import (
    CC,
    DAMAGED_FORMAT_FILES,
    FORMATS,
    GPT,
    JSONL,
    OC,
    SESSIONS,
    damaged_format_files,
    make_service,
)

CC_MAIN = CC / "-home-lin-code-ledger" / "5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13.jsonl"
CC_AGENT = CC / "-home-lin-code-ledger" / "agent-3f2a9c1d.jsonl"
CC_NOTES = CC / "-home-lin-notes" / "c7d1e9f0-3a5b-4e2c-8f61-0b9d2a4c6e88.jsonl"
OC_DIR = OC / "main" / "sessions"
OC_TRIP = OC_DIR / "9a3c5e7f-1b2d-4f6a-8c0e-2d4f6a8c0e1b.jsonl"
OC_K8S = OC_DIR / "e4f6a8b0-c2d4-4e6f-8a0b-c2d4e6f8a0b2.jsonl"


def records(path: Path, **options: Any) -> list[dict[str, Any]]:
    raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(**options))
    assert all(isinstance(r, RawSession) for r in raws)
    return [r.record for r in raws]  # type: ignore[union-attr]


def by_id(path: Path, **options: Any) -> dict[str, dict[str, Any]]:
    return {r["sessionId"]: r for r in records(path, **options)}


# detection ---------------------------------------------------------------------------------

@pytest.mark.parametrize("path,expected", [
    (CC_MAIN, "claude-code"), (CC_AGENT, "claude-code"), (OC_TRIP, "openclaw"),
    (OC_DIR / "sessions.json", "openclaw-store"), (GPT, "chatgpt"),
    (JSONL / "conv-a1.jsonl", "jsonl"), (SESSIONS / "2026-03" / "t-zh-upgrade.json", "json"),
])
def test_formats_are_detected_by_content(path: Path, expected: str, tmp_path: Path) -> None:
    text = path.read_text("utf-8")
    assert detect_format(path, text) == expected
    if expected not in ("jsonl", "json"):  # the name does not matter for the transcript formats
        for name in ("renamed.txt", "renamed.json", "renamed.jsonl"):
            assert detect_format(tmp_path / name, text) == expected


def test_a_single_line_transcript_is_still_json_lines(tmp_path: Path) -> None:
    line = CC_MAIN.read_text("utf-8").split("\n")[2]
    path = tmp_path / "one.json"
    path.write_text(line)
    assert detect_format(path, line) == "claude-code"
    assert records(path)[0]["messages"][0]["content"].startswith("The reconciliation test")


# Claude Code -------------------------------------------------------------------------------

def test_claude_code_session() -> None:
    (record,) = records(CC_MAIN)
    assert record["sessionId"] == "claude-code-5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13"
    assert record["channel"] == "claude-code" and record["topics"] == ["ledger"]
    assert record["date"] == "2026-02-10"
    assert record["summary"] == "Ledger: fix the flaky reconciliation test (float → Decimal)"
    assert record["title"].startswith("The reconciliation test in tests/test_reconcile.py")
    messages = record["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "tool",
                                             "assistant", "tool", "user", "assistant"]
    # three lines of one API message (thinking, text, tool call) are one message
    merged = messages[1]
    assert merged["id"] == "a0000000-0000-4000-8000-000000000003"
    assert merged["time"] == "2026-02-10T09:15:04.310Z"
    assert merged["content"].startswith("Let me run the test a few times")
    assert '[tool: Bash] {"command": "pytest tests/test_reconcile.py -q --count=20"' in merged["content"]
    text = json.dumps(record, ensure_ascii=False)
    assert "Probably float arithmetic" not in text  # thinking left out by default
    assert "quokka" not in text  # sidechain left out
    assert "Caveat:" not in text  # meta line left out
    result = messages[2]["content"]
    assert result.startswith("[tool result: Bash] ..F") and result.endswith("…")
    assert len(result) <= len("[tool result: Bash] ") + 301
    assert messages[6]["content"].startswith("[tool error: Edit] File has been modified")
    assert "NUMERIC(12,2)" in messages[-1]["content"]


def test_claude_code_left_out_lines_are_counted() -> None:
    (transcript,) = read_transcripts(CC_MAIN, CC_MAIN.read_text("utf-8"), ImportOptions()) or []
    assert transcript.skipped == {
        "compaction marker": 1, "line type file-history-snapshot": 1, "meta line": 1,
        "sidechain line": 2, "thinking block": 1, "torn last line": 1,
        "unknown line type x-telemetry": 1,
    }
    assert transcript.last_activity == "2026-02-10T09:21:30.000Z"


def test_claude_code_options_keep_thinking_and_cut_tools() -> None:
    (record,) = records(CC_MAIN, thinking=True, tool_chars=40)
    merged = record["messages"][1]["content"]
    assert merged.startswith("[thinking] Probably float arithmetic")
    assert all(len(line) <= len("[tool result: Bash] ") + 41 for line in
               (m["content"].split("\n")[0] for m in record["messages"] if m["role"] == "tool"))


def test_claude_code_subagent_file_has_nothing_to_import() -> None:
    assert records(CC_AGENT) == []
    with pytest.raises(NothingToImport, match="sidechain"):
        read_transcripts(CC_AGENT, CC_AGENT.read_text("utf-8"), ImportOptions())


def test_json_strings_may_hold_line_separators(tmp_path: Path) -> None:
    lines = CC_NOTES.read_text("utf-8").split("\n")
    item = json.loads(lines[0])
    item["message"]["content"] = "第一行\u2028第二行\u2029third\x85fourth"
    path = tmp_path / "sep.jsonl"
    path.write_text("\n".join([json.dumps(item, ensure_ascii=False), *lines[1:]]), "utf-8")
    assert records(path)[0]["messages"][0]["content"] == "第一行\u2028第二行\u2029third\x85fourth"


def test_archive_jsonl_lines_may_hold_line_separators(tmp_path: Path) -> None:
    path = tmp_path / "conv-sep.jsonl"
    path.write_text(json.dumps({"role": "user", "content": "a\u2028b", "ts": 1770775333000},
                               ensure_ascii=False) + "\n" + '{"role": "assistant", "content": "c"}\n'
                    + '{"role": "user", "cont', "utf-8")
    assert [m["content"] for m in records(path)[0]["messages"]] == ["a\u2028b", "c"]


def test_odd_values_are_counted_not_fatal(tmp_path: Path) -> None:
    cc = tmp_path / "cc.jsonl"
    cc.write_text(CC_NOTES.read_text("utf-8") + "\n".join(json.dumps(i) for i in [
        {"type": {"nested": "secret text"}, "uuid": "u", "sessionId": "s"}, ["a", "list"],
        {"type": "assistant", "uuid": "v", "sessionId": "s", "message": {"id": ["x"], "content": [
            {"type": {"k": 1}}, {"type": "tool_result", "tool_use_id": {"k": 1}, "content": "ok"}]}},
    ]) + "\n")
    (transcript,) = read_transcripts(cc, cc.read_text("utf-8"), ImportOptions()) or []
    assert transcript.skipped == {"line without type": 1, "non-object line": 1, "block type (dict)": 1}
    assert transcript.record["messages"][-1]["content"] == "[tool result] ok"
    oc = tmp_path / "oc.jsonl"
    lines = OC_K8S.read_text("utf-8").split("\n")
    lines.insert(2, json.dumps({"type": "message", "id": [1], "parentId": {"a": 1},
                                "message": {"role": {"r": "secret"}, "content": "x"}}))
    oc.write_text("\n".join(lines))
    (transcript,) = read_transcripts(oc, oc.read_text("utf-8"), ImportOptions()) or []
    assert transcript.skipped["message on an abandoned branch"] == 1  # it has no usable id
    assert "secret" not in json.dumps(transcript.skipped)


# OpenClaw ----------------------------------------------------------------------------------

def test_openclaw_follows_the_current_branch() -> None:
    (record,) = records(OC_TRIP)
    assert record["sessionId"] == "openclaw-9a3c5e7f-1b2d-4f6a-8c0e-2d4f6a8c0e1b"
    assert record["channel"] == "telegram" and record["title"] == "杭州出差"  # from sessions.json
    assert record["summary"].startswith("Lin travels to Hangzhou")  # the compaction summary
    ids = [m["id"] for m in record["messages"]]
    assert ids == ["m0000001", "m0000002", "m0000003", "m0000004", "b0000001", "m0000007",
                   "m0000008", "m0000009", "m0000010"]
    text = json.dumps(record, ensure_ascii=False)
    assert "QX7Z" not in text and "订 8 点那班" not in text  # the abandoned branch
    assert record["messages"][4] == {"id": "b0000001", "role": "system", "time": "2026-03-01T12:02:00.000Z",
                                     "content": "[branch summary] Booked the 08:00 G7311 first; "
                                                "the user then changed their mind."}
    assert record["messages"][1]["content"] == '[tool: web_search] {"query": "上海虹桥 杭州东 高铁 周三 时刻表"}'
    assert record["messages"][2]["content"].startswith("[tool result: web_search] G7311")
    from indexer.formats.ledger import Ledger

    ledger = Ledger()
    (transcript,) = read_transcripts(OC_TRIP, OC_TRIP.read_text("utf-8"), ImportOptions(),
                                     ledger) or []
    totals = ledger.totals()
    assert totals.adds_up() and totals.records == len(OC_TRIP.read_text("utf-8").split("\n")) - 1
    # the header, nine messages and the compaction summary
    assert (totals.imported, totals.merged) == (11, 0)
    assert ledger.fate("line 1").reason == "session header"  # type: ignore[union-attr]
    assert ledger.fate("line 13").reason == "the session's summary"  # type: ignore[union-attr]
    assert totals.left_out == {"entry type label": 1, "entry type model_change": 1,
                               "entry type thinking_level_change": 1,
                               "message on an abandoned branch": 2,
                               "unknown entry type x-plugin-state": 1}
    assert totals.parts_left_out == {"thinking block": 1}
    assert transcript.skipped == {**totals.left_out, **totals.parts_left_out}


def test_openclaw_tools_errors_and_torn_line() -> None:
    (record,) = records(OC_K8S)
    # origin.label names the last sender, not the session (OpenClaw titles it by its first prompt)
    assert record["channel"] == "webchat" and record["title"] == (
        "My api pod keeps getting OOMKilled after the last deploy. What should I check?")
    contents = [m["content"] for m in record["messages"]]
    assert contents[2] == '[tool error: bash] Error from server (Forbidden): pods "api-7d9f" is forbidden'
    assert contents[3] == "Reminder: prod access needs the on-call role."
    assert contents[4] == "[tool result: bash] $ kubectl top pod api-7d9f -n prod\napi-7d9f   250m   498Mi"
    assert [m["role"] for m in record["messages"]] == ["user", "assistant", "tool", "system", "tool",
                                                       "assistant"]


def test_openclaw_without_a_store_and_without_ids(tmp_path: Path) -> None:
    shutil.copy(OC_TRIP, tmp_path / OC_TRIP.name)
    (record,) = records(tmp_path / OC_TRIP.name)
    assert record["channel"] == "openclaw" and record["title"] == "我下周三要去杭州出差，帮我查一下上海到杭州的高铁。"
    linear = tmp_path / "v1.jsonl"  # version 1: no ids, entries in order
    linear.write_text("\n".join(json.dumps(i) for i in [
        {"type": "session", "version": 1, "id": "old-1", "timestamp": "2025-06-01T10:00:00Z"},
        {"type": "message", "timestamp": "2025-06-01T10:00:01Z", "message": {"role": "user", "content": "hi"}},
        {"type": "message", "timestamp": "2025-06-01T10:00:02Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}},
    ]))
    (old,) = records(linear)
    assert old["sessionId"] == "openclaw-old-1" and [m["content"] for m in old["messages"]] == ["hi", "hello"]


# OpenClaw renames a transcript on /reset and on deletion: `<file>.jsonl.reset.<time>`, the time
# an ISO instant with ':' made '-' (openclaw/openclaw src/config/sessions/artifacts.ts @
# 0849551642f081db8079b70b4cd472cd57b594dc, formatSessionArchiveTimestamp)
RESET_TIME = "2026-03-02T08-00-00.000Z"
OC_DELETED = (FORMATS.parent / "real" / "openclaw" / "openclaw-state" / "agents" / "main" /
              "sessions" / "4f746ba6-6abf-48fd-b7d7-6a154683f601.jsonl.deleted.2026-01-28T20-32-52.405Z")


def test_openclaw_a_reset_transcript_is_the_session_it_was(tmp_path: Path) -> None:
    from indexer.formats import openclaw
    from indexer.formats.importer import candidate_files

    folder = tmp_path / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    archived = folder / f"{OC_TRIP.name}.reset.{RESET_TIME}"
    shutil.copy(OC_TRIP, archived)
    assert openclaw.is_candidate(archived) and detect_format(archived, archived.read_text()) == \
        "openclaw"
    assert not openclaw.is_candidate(folder / f"{OC_TRIP.name}.reset.{RESET_TIME}.zst")
    assert candidate_files("openclaw", [tmp_path]) == [archived]
    (old,) = records(archived)
    (live,) = records(OC_TRIP)
    # the same session it was while live: read again, it is the same session, not a new one
    assert old["sessionId"] == live["sessionId"] == "openclaw-9a3c5e7f-1b2d-4f6a-8c0e-2d4f6a8c0e1b"
    assert old["messages"] == live["messages"]
    # after a reset the live file is a new session (a new header and id, even where a custom
    # file name is kept): no collision
    (folder / OC_TRIP.name).write_text(json.dumps(
        {"type": "session", "version": 3, "id": "0f0f0f0f-new0-4000-8000-000000000001",
         "timestamp": "2026-03-02T08:00:01.000Z"}) + "\n", "utf-8")
    assert records(archived)[0]["sessionId"] == live["sessionId"]


def test_openclaw_a_reset_transcript_named_like_the_live_one_gets_its_own_id(
        tmp_path: Path) -> None:
    """A transcript whose header has no id is named by its file, so the archive and the live
    file that took over its name would be one session: the archive gets an id of its own."""
    lines = OC_K8S.read_text("utf-8").split("\n")
    header = json.loads(lines[0])
    del header["id"]
    body = "\n".join([json.dumps(header), *lines[1:]])
    live, archived = tmp_path / "support.jsonl", tmp_path / f"support.jsonl.reset.{RESET_TIME}"
    archived.write_text(body, "utf-8")
    assert records(archived)[0]["sessionId"] == "openclaw-support"  # no live file: no collision
    live.write_text(body, "utf-8")
    (old,) = records(archived)
    (new,) = records(live)
    assert new["sessionId"] == "openclaw-support"
    assert old["sessionId"].startswith("openclaw-support-reset-2026-03-02T08-00-00")
    assert old["sessionId"] == records(archived)[0]["sessionId"]  # stable
    assert old["origin"]["id"] == "support"  # the agent's own name for it


def test_openclaw_a_deleted_transcript_only_when_asked_for() -> None:
    """A real transcript OpenClaw deleted (renamed `.deleted.<time>`)."""
    from indexer.formats.ledger import Ledger

    text = OC_DELETED.read_text("utf-8")
    assert detect_format(OC_DELETED, text) == "openclaw"
    ledger = Ledger()
    with pytest.raises(NothingToImport, match="transcript deleted in OpenClaw"):
        read_transcripts(OC_DELETED, text, ImportOptions(), ledger)
    assert ledger.totals().left_out == {"transcript deleted in OpenClaw": 6}
    assert records(OC_DELETED) == []
    (record,) = records(OC_DELETED, deleted=True)
    assert record["sessionId"] == "openclaw-4f746ba6-6abf-48fd-b7d7-6a154683f601"
    assert [m["role"] for m in record["messages"]] == ["user", "assistant"]


def test_openclaw_the_users_words_without_the_gateways_wrapping() -> None:
    """A real transcript (OpenClaw desktop, 2026-03-08): each prompt wrapped by the gateway in
    sender metadata and the envelope's time; the title is the first prompt, as OpenClaw shows it,
    not sessions.json's origin.label ("heartbeat", the last sender)."""
    from indexer.formats.ledger import Ledger

    path = (FORMATS.parent / "real" / "openclaw" / "openclaw-desktop" / "agents" / "main" /
            "sessions" / "8555a0a4-0b79-459d-939c-e17cdbbf4fe2.jsonl")
    ledger = Ledger()
    (transcript,) = read_transcripts(path, path.read_text("utf-8"), ImportOptions(),
                                     ledger) or []
    record = transcript.record
    prompts = [m["content"] for m in record["messages"] if m["role"] == "user"]
    assert prompts[0] == "はくあ" and record["title"] == "はくあ"
    assert not any("untrusted metadata" in p or p.startswith("[Sun ") for p in prompts)
    assert record["channel"] == "webchat"
    totals = ledger.totals()
    assert totals.adds_up() and totals.records == 83 and len(record["messages"]) == 33
    assert totals.parts_left_out == {"context the gateway put around the user's words": 16}
    assert totals.left_out["failed or aborted reply without content"] == 32


def test_openclaw_odd_shapes_are_left_out_never_fatal(tmp_path: Path) -> None:
    from indexer.formats.ledger import Ledger

    path = tmp_path / "odd.jsonl"
    entries = [
        {"type": "session", "version": 3, "id": ["not", "a", "string"], "timestamp": 5},
        {"type": "message", "id": "a1", "parentId": None, "message": "not an object"},
        {"type": "message", "id": "a2", "parentId": "a1",
         "message": {"role": "user", "content": [{"type": "text", "text": "hi"}, 7]}},
        {"type": "message", "id": "a3", "parentId": "a2",
         "message": {"role": "assistant", "content": [None, {"type": "toolCall", "name": 3}]}},
        {"type": "branch_summary", "id": "a4", "parentId": "a3", "summary": {"x": 1}},
        {"type": "compaction", "id": "a5", "parentId": "a4", "summary": None},
        {"type": "session_info", "id": "a6", "parentId": "a5", "name": 12},
        {"type": "message", "id": "a7", "parentId": {"p": 1},
         "message": {"role": "assistant", "content": "orphan"}},
        {"type": None, "id": "a8", "parentId": "a6"},
        [1, 2],
    ]
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n", "utf-8")
    ledger = Ledger()
    (transcript,) = read_transcripts(path, path.read_text("utf-8"), ImportOptions(),
                                      ledger) or []
    assert [(m["id"], m["content"]) for m in transcript.record["messages"]] == [
        ("a2", "hi"), ("a3", "[tool: tool]")]
    assert transcript.record["sessionId"] == "openclaw-odd"
    totals = ledger.totals()
    assert totals.adds_up() and totals.records == len(entries)
    assert totals.left_out == {"compaction without summary": 1, "entry without type": 1,
                               "message entry without message": 1, "message left empty": 1,
                               "message on an abandoned branch": 1, "non-object line": 1,
                               "session info without a name": 1}
    assert totals.parts_left_out == {"unreadable block": 1}


# Real samples of codex, openclaw and aider against their hand counts -------------------------

# ChatGPT -----------------------------------------------------------------------------------

def test_chatgpt_follows_the_current_node() -> None:
    sessions = by_id(GPT)
    assert set(sessions) == {"chatgpt-67c5a1b2-8e44-800a-9f1e-3a6b2c4d5e6f",  # the empty one is left out
                             "chatgpt-67650f00-1111-800a-8888-000000000002",
                             "chatgpt-67c70000-3333-800a-8888-000000000004"}
    regex = sessions["chatgpt-67c5a1b2-8e44-800a-9f1e-3a6b2c4d5e6f"]
    assert regex["title"] == "ISO date regex" and regex["channel"] == "chatgpt"
    assert regex["date"] == "2026-03-03"
    assert [m["id"] for m in regex["messages"]] == ["u-1", "a-2", "u-2b", "a-3b"]  # regenerated, edited
    assert regex["messages"][0]["time"] == "2026-03-03T09:30:01Z"
    text = json.dumps(regex, ensure_ascii=False)
    assert "pelican" not in text and "walrus" not in text and "backend developer" not in text
    plot = sessions["chatgpt-67650f00-1111-800a-8888-000000000002"]
    assert [m["role"] for m in plot["messages"]] == ["user", "assistant", "tool", "assistant",
                                                     "user", "assistant", "user", "assistant"]
    assert plot["messages"][0]["content"].startswith("[image]\nHere is a screenshot")
    assert plot["messages"][1]["content"].startswith("[tool: python] import pandas as pd")
    assert plot["messages"][2] == {"id": "p-3", "role": "tool", "speaker": "python",
                                   "content": "[tool result: python] <Axes: xlabel='month'>",
                                   "time": "2025-12-20T08:00:15Z"}
    trip = sessions["chatgpt-67c70000-3333-800a-8888-000000000004"]  # no current_node: newest leaf
    assert [m["id"] for m in trip["messages"]] == ["s-1", "s-3"]


def test_chatgpt_a_turn_of_only_a_screenshot_or_a_file_is_kept() -> None:
    plot = by_id(GPT)["chatgpt-67650f00-1111-800a-8888-000000000002"]
    # an image_asset_pointer (sediment://) and an empty text part, as a real export has them;
    # then a PDF attached without a word, known from the message's metadata.attachments
    assert [(m["id"], m["content"]) for m in plot["messages"][4:] if m["role"] == "user"] == [
        ("p-5", "[image]"), ("p-7", "[file: sales-2025.pdf]")]


def test_chatgpt_every_node_has_its_fate() -> None:
    from indexer.formats.ledger import UNACCOUNTED, Ledger

    ledger = Ledger()
    read_transcripts(GPT, GPT.read_text("utf-8"), ImportOptions(), ledger)
    totals = ledger.totals()
    nodes = sum(len(c["mapping"]) for c in json.loads(GPT.read_text("utf-8")))
    assert totals.adds_up() and totals.records == nodes and UNACCOUNTED not in totals.left_out
    assert totals.imported == 14
    assert totals.left_out == {"hidden message": 1, "message on another branch": 4,
                               "node without a message": 4, "system message": 2, "thinking": 1}
    fates = {f.where: f.reason for f in ledger.fates()}
    regex = "conversation 67c5a1b2-8e44-800a-9f1e-3a6b2c4d5e6f: "
    assert fates[regex + "node a-1"] == "message on another branch"  # regenerated away
    # the empty conversation's nodes: its records are read too
    assert fates["conversation 67c60000-2222-800a-8888-000000000003: node sys-e"] == \
        "system message"


def test_chatgpt_real_exports_give_what_a_hand_count_of_them_gives() -> None:
    """Exports ChatGPT wrote (tests/data/real/chatgpt, each with its source and licence): the
    sessions, records and messages recall reads match the counts made by hand."""
    from indexer.formats.ledger import UNACCOUNTED, Ledger

    real = FORMATS.parent / "real" / "chatgpt"
    manifest = real / "MANIFEST.json"
    samples = json.loads(manifest.read_text("utf-8"))["samples"] if manifest.is_file() else []
    for sample in samples:
        path = real / sample["file"]
        ledger = Ledger()
        transcripts = read_transcripts(path, path.read_text("utf-8"), ImportOptions(), ledger) or []
        totals = ledger.totals()
        assert totals.adds_up() and UNACCOUNTED not in totals.left_out
        roles = Counter(m["role"] for t in transcripts for m in t.record["messages"])
        count = sample["hand_count"]
        assert (len(transcripts), totals.records, sum(roles.values())) == (
            count["sessions"], count["records"], count["messages"]), sample["file"]
        assert roles == {role: n for role, n in count["by_role"].items() if n}, sample["file"]
        assert sum(totals.left_out.values()) == sum(sample["left_out"].values()), sample["file"]


def test_chatgpt_thinking_on_request() -> None:
    regex = by_id(GPT, thinking=True)["chatgpt-67c5a1b2-8e44-800a-9f1e-3a6b2c4d5e6f"]
    assert "[thinking] Regex cannot count days per month." in [m["content"] for m in regex["messages"]]


def test_chatgpt_malformed_conversation_does_not_lose_the_others(tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    export = json.loads(GPT.read_text("utf-8"))
    export.insert(1, {"title": "broken", "mapping": {"x": {"message": {"author": {"role": "user"},
                                                                       "content": {"parts": ["no time"]}}}}})
    export.insert(0, "not a conversation")
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export))
    from indexer.formats.ledger import UNACCOUNTED, Ledger

    ledger = Ledger()
    assert len(load_file(path, path.read_bytes(), 10_000_000, ledger=ledger)) == 3
    assert "skipped conversation 1: not an object" in caplog.text
    assert "skipped conversation 3: no create_time and no message times" in caplog.text
    export.insert(4, export[3])  # the same conversation twice: the second is left out
    path.write_text(json.dumps(export))
    ledger = Ledger()
    assert len(load_file(path, path.read_bytes(), 10_000_000, ledger=ledger)) == 3
    totals = ledger.totals()
    assert totals.adds_up() and UNACCOUNTED not in totals.left_out
    fates = {f.where: f.reason for f in ledger.fates()}
    assert fates["conversations[0]: conversation"] == "conversation left out: not an object"
    assert fates["conversations[2]: node x"] == \
        "conversation left out: no create_time and no message times"
    assert fates["conversations[4]: node p-1"] == \
        "conversation whose id was seen earlier in the file"


def test_since_keeps_recent_sessions_only() -> None:
    assert set(by_id(GPT, since="2026-03-04")) == {"chatgpt-67c70000-3333-800a-8888-000000000004"}
    assert records(CC_NOTES, since="2025-11-04") == []
    assert len(records(CC_NOTES, since="2025-11-03")) == 1


def test_session_ids_are_safe_and_stable() -> None:
    for raw in ["a/b/../c", "x" * 400, " spaced id ", "con", "..", "日本語", None, ""]:
        made = safe_session_id("chatgpt", raw)
        assert check_session_id(made) == made and made == safe_session_id("chatgpt", raw)
    assert safe_session_id("chatgpt", "a/b") != safe_session_id("chatgpt", "a-b")
    assert safe_session_id("claude-code", "5b0e3c1a-7d2f") == "claude-code-5b0e3c1a-7d2f"


# the real pipeline -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> RecallService:
    service = make_service(tmp_path_factory.mktemp("imported"))
    report = service.index([FORMATS])  # `recall index` on a folder of every format, found by content
    assert damaged_format_files(report.rejected) == DAMAGED_FORMAT_FILES  # and the batch went on
    channels = Counter(s.channel for s in service.list_sessions(limit=100).sessions)
    assert channels == {"claude-code": 2, "codex": 3, "gemini": 2, "cursor": 8, "aider": 2,
                        "cline": 6, "opencode": 6, "copilot": 7, "telegram": 1, "webchat": 1,
                        "chatgpt": 3, "zed": 5, "kimi": 3, "goose": 5, "crush": 3, "windsurf": 3, "warp": 3,
                        "qwen": 3, "continue": 2, "grok": 2, "kiro": 6, "amp": 2}
    assert report.indexed == sum(channels.values())  # every session, once
    return service


def top(service: RecallService, query: str, **filters: Any) -> list[str]:
    mode = filters.pop("mode", "hybrid")
    request = SearchRequest(query=query, mode=mode, filters=SearchFilters(**filters))
    return [r.session_id for r in service.search(request).results]


def test_imported_sessions_are_searchable(imported: RecallService) -> None:
    assert top(imported, "G7355")[0] == "openclaw-9a3c5e7f-1b2d-4f6a-8c0e-2d4f6a8c0e1b"
    assert top(imported, "高铁")[0] == "openclaw-9a3c5e7f-1b2d-4f6a-8c0e-2d4f6a8c0e1b"
    assert top(imported, "OOMKilled")[0] == "openclaw-e4f6a8b0-c2d4-4e6f-8a0b-c2d4e6f8a0b2"
    assert top(imported, "fromisoformat")[0] == "chatgpt-67c5a1b2-8e44-800a-9f1e-3a6b2c4d5e6f"
    assert top(imported, "苏州博物馆")[0] == "chatgpt-67c70000-3333-800a-8888-000000000004"
    assert top(imported, "Decimal", channel="claude-code")[0] == \
        "claude-code-5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13"
    assert top(imported, "压测")[0] == "claude-code-c7d1e9f0-3a5b-4e2c-8f61-0b9d2a4c6e88"
    for left_out, channel in (("QX7Z", "telegram"), ("quokka", "claude-code"),
                              ("pelican", "chatgpt"), ("walrus", "chatgpt")):
        assert top(imported, left_out, mode="keyword", channel=channel) == [], left_out


def test_imported_sessions_are_redacted_and_listed(imported: RecallService) -> None:
    notes = imported.session("claude-code-c7d1e9f0-3a5b-4e2c-8f61-0b9d2a4c6e88")
    assert "sk-ant-" not in msgspec.json.encode(notes).decode()
    assert "[REDACTED:" in notes.messages[0].content
    assert "sk-ant-" not in notes.title
    listed = imported.list_sessions(channel="telegram")
    assert [s.title for s in listed.sessions] == ["杭州出差"]
    assert imported.memories.of("claude-code-5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13")  # memories work unchanged


def test_reimport_is_incremental_and_options_count(imported: RecallService, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(imported.data.root, home, ignore=shutil.ignore_patterns("writer.lock"))
    service = make_service(home)
    again = service.index([FORMATS])  # files: read before, or with nothing to import
    assert (again.indexed, again.unchanged) == (0, again.files - len(DAMAGED_FORMAT_FILES))
    thinking = service.index([CC], ImportOptions(thinking=True))  # changes one session only
    assert (thinking.indexed, thinking.unchanged) == (1, 1)
    assert "[thinking]" in service.session(
        "claude-code-5b0e3c1a-7d2f-4c61-9a8e-2f4b6c8d0e13").messages[1].content


def test_bad_transcripts_are_rejected_and_the_batch_goes_on(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    bad = {
        "damaged.jsonl": (CC_NOTES.read_text("utf-8").replace('"sessionId"', '"sessionId', 1),
                          "unreadable JSON on lines [1]"),
        "conversations.json": (json.dumps([{"title": "x", "mapping": {"a": {"message": {
            "author": {"role": "user"}, "content": {"parts": ["hi"]}}}}}]),
                               "no readable conversations (conversation 1: no create_time"),
    }
    for name, (content, _) in bad.items():
        (folder / name).write_text(content, "utf-8")
    for good in (CC_MAIN, OC_TRIP, GPT):
        shutil.copy(good, folder / f"good-{good.name}")
    # one damaged entry costs that entry, not the session (the path goes on past it)
    (folder / "broken-entry.jsonl").write_text(
        OC_K8S.read_text("utf-8").replace('"id":"k0000002"', '"id":k0000002', 1), "utf-8")
    service = make_service(tmp_path / "home")
    report = service.index([folder])
    assert report.indexed == 6
    broken = service.session("openclaw-e4f6a8b0-c2d4-4e6f-8a0b-c2d4e6f8a0b2")
    assert [m.id for m in broken.messages] == ["k0000001", "k0000003", "k0000004", "k0000005",
                                               "k0000006"]
    assert sorted(Path(r.path).name for r in report.rejected) == sorted(bad)
    for r in report.rejected:
        assert bad[Path(r.path).name][1] in r.reason


def test_a_named_format_must_fit(tmp_path: Path) -> None:
    with pytest.raises(InvalidSession, match="not a Claude Code transcript"):
        load_file(OC_TRIP, OC_TRIP.read_bytes(), 10_000_000, ImportOptions(format="claude-code"))
    with pytest.raises(InvalidSession, match="not an OpenClaw session"):
        load_file(CC_MAIN, CC_MAIN.read_bytes(), 10_000_000, ImportOptions(format="openclaw"))
    with pytest.raises(InvalidSession, match="not a chatgpt transcript: those are JSON documents"):
        load_file(CC_MAIN, CC_MAIN.read_bytes(), 10_000_000, ImportOptions(format="chatgpt"))
    archive = SESSIONS / "2026-03" / "t-zh-upgrade.json"
    with pytest.raises(InvalidSession, match="not a ChatGPT export"):
        load_file(archive, archive.read_bytes(), 10_000_000, ImportOptions(format="chatgpt"))


def test_a_run_stopped_inside_a_many_session_file_reads_it_again(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from api import Settings
    from indexer import HashEmbedder
    from indexer.stores.vector import VectorIndex

    service = RecallService(Settings(home=tmp_path / "home", embedder="hash", batch_sessions=1,
                                     lock_wait=2), embedder=HashEmbedder())
    real_add, calls = VectorIndex.add_rows, []

    def crash_on_second_batch(self: VectorIndex, rows: Any) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C half-way through a ChatGPT export
        real_add(self, rows)

    monkeypatch.setattr(VectorIndex, "add_rows", crash_on_second_batch)
    with pytest.raises(KeyboardInterrupt):
        service.index([GPT])
    monkeypatch.undo()
    service.index([GPT])
    assert len(service.list_sessions().sessions) == 3


def test_databases_of_other_programs_are_passed_over(tmp_path: Path) -> None:
    """A folder being indexed may hold SQLite databases no agent wrote, and `.db` files that are
    not SQLite at all: neither is an error, and neither is copied to quarantine."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    other = sqlite3.connect(folder / "photos.db")
    other.execute("CREATE TABLE album (id INTEGER PRIMARY KEY, name TEXT)")
    other.execute("INSERT INTO album (name) VALUES ('Hangzhou 2026')")
    other.commit()
    other.close()
    (folder / "cache.db").write_bytes(b"\x00\x01berkeley\x00" * 10)
    shutil.copy(SESSIONS / "2026-03" / "t-zh-upgrade.json", folder)
    assert [p.name for p in discover([folder])] == ["photos.db", "t-zh-upgrade.json"]
    service = make_service(tmp_path / "home")
    report = service.index([folder])
    assert (report.indexed, report.rejected, report.unchanged) == (1, [], 0)
    assert not service.data.quarantine.exists() or not any(service.data.quarantine.iterdir())
    with pytest.raises(InvalidSession, match="not a Cursor database: no cursorDiskKV"):
        read_path(folder / "photos.db", ImportOptions(format="cursor"), 10_000_000)
    with pytest.raises(InvalidSession, match="not a codex transcript: those are JSON lines, this "
                                             "is a SQLite database"):
        read_path(folder / "photos.db", ImportOptions(format="codex"), 10_000_000)
    assert load_database(folder / "photos.db") == []  # nothing to import, said in the log


def test_a_new_readers_version_reads_every_file_again_and_rewrites_only_what_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from indexer.formats import common

    service = make_service(tmp_path / "home")
    first = service.index([CC])
    assert first.indexed == 2
    assert service.index([CC]).unchanged == first.files  # skipped by the files' hashes
    reads = []
    real = load_file

    def counting(*args: Any, **kwargs: Any) -> Any:
        reads.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr("indexer.ingest.prepare.load_file", counting)
    assert service.index([CC]).unchanged == first.files and reads == []
    monkeypatch.setattr(common, "READERS_VERSION", common.READERS_VERSION + 1)
    again = service.index([CC])
    assert len(reads) == first.files  # every file read again by the new readers
    # the same sessions came out: nothing rewritten (the third file has nothing to import)
    assert (again.indexed, again.unchanged) == (0, first.indexed)
