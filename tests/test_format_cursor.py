"""The Cursor importer: the editor's SQLite state (cursor/editor.py: composers in their header
order, what is left out and counted, the old chat panel, workspace metadata, composers kept
inline in a workspace's list, screenshots sent without words, damage, a locked database), the
agent transcripts (cursor/cli.py: file time, tool results, sub-agents), the ledger of every
record, detection, default paths, resume hints by origin agent, and the pipeline from the fixture
folders to search results."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import (
    ImportOptions,
    NothingToImport,
    cursor,
    database_format,
    detect_format,
)
from indexer.formats.common import Transcript
from indexer.formats.cursor import cli as cursor_cli
from indexer.formats.database import open_readonly, table_names
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import UNACCOUNTED, Ledger
from indexer.formats.readers import read_database
from indexer.formats.resume import resume_hint
from indexer.formats.sources import RawSession, load_database, load_file, normalize
from models import InvalidSession, SearchRequest

from .helpers import DATA, FORMATS, make_service

CURSOR = FORMATS / "cursor"
USER = CURSOR / "Cursor" / "User"
GLOBAL = USER / "globalStorage" / "state.vscdb"
STORAGE = USER / "workspaceStorage"
CHAT_PANEL = STORAGE / "5d41402abc4b2a76b9719d911017c592" / "state.vscdb"
LIST_ONLY = STORAGE / "7d793037a0760186574b0282f2f435e7" / "state.vscdb"
DAMAGED = STORAGE / "9e107d9d372bb6826bd81d3542a419d6" / "state.vscdb"
INLINE = STORAGE / "e4da3b7fbbce2345d7772b0674a318d5" / "state.vscdb"
PROJECTS = CURSOR / "projects"
T_MAIN = "8c2f1e4a-6b3d-4c5e-9f7a-1b2c3d4e5f60"
TRANSCRIPT = (PROJECTS / "home-lin-code-payments" / "agent-transcripts" / T_MAIN
              / f"{T_MAIN}.jsonl")
SUBAGENT = TRANSCRIPT.parent / "subagents" / "9d3a2f5b-7c4e-4d6f-8a8b-2c3d4e5f6a71.jsonl"
FLAT = (PROJECTS / "home-lin-notes" / "agent-transcripts"
        / "ae4b3c6d-8d5f-4e7a-9b9c-3d4e5f6a7b82.jsonl")
C_MAIN = "cursor-0f3c9a2e-7b1d-4e5f-9a8b-2c3d4e5f6a7b"
C_SECOND = "cursor-3b9e6c1d-2a4f-4b8e-8c7d-6e5f4a3b2c1d"
C_INLINE = "cursor-5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d"
C_LISTED = "cursor-1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"  # inline in INLINE's list
C_BOTH = "cursor-2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a"  # in INLINE's list and its cursorDiskKV
MTIME = 1774515600  # 2026-03-26T09:00:00Z


def composers(**options: Any) -> dict[str, dict[str, Any]]:
    raws = load_database(GLOBAL, ImportOptions(**options))
    return {raw.record["sessionId"]: raw.record for raw in raws}


def transcripts(path: Path, **options: Any) -> list[Transcript]:
    return read(path, **options)[0]


def read(path: Path, **options: Any) -> tuple[list[Transcript], Ledger]:
    """A database's sessions and its ledger, which must account for every record read."""
    ledger = Ledger()
    with open_readonly(path) as connection:
        found = cursor.parse_database(path, connection, ImportOptions(**options), ledger)
    assert_accounted(ledger)
    return found, ledger


def assert_accounted(ledger: Ledger) -> None:
    totals = ledger.totals()
    assert totals.adds_up() and UNACCOUNTED not in totals.left_out, totals


def dated_copy(path: Path, folder: Path) -> Path:
    """The transcript under the same project folders, with a known modification time."""
    copy = folder / path.relative_to(CURSOR)
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, copy)
    os.utime(copy, (MTIME, MTIME))
    return copy


def transcript_record(path: Path, tmp_path: Path, **options: Any) -> dict[str, Any]:
    copy = dated_copy(path, tmp_path)
    raws = load_file(copy, copy.read_bytes(), 10_000_000, ImportOptions(**options))
    assert len(raws) == 1 and isinstance(raws[0], RawSession)
    return raws[0].record


# the editor's databases ---------------------------------------------------------------------


def test_composers_come_in_the_order_of_cursors_header_list() -> None:
    # C_SECOND is newer than C_MAIN but listed first by composer.composerHeaders; C_INLINE is
    # not listed and follows; the rest have no prompt, are a sub-agent's or do not parse
    assert list(composers()) == [C_SECOND, C_MAIN, C_INLINE]


def test_a_composer_follows_its_header_list() -> None:
    r = composers()[C_MAIN]
    assert (r["channel"], r["date"], r["topics"]) == ("cursor", "2026-03-21", ["payments"])
    assert r["title"] == "Cap the payments client retries"
    assert r["origin"] == {"agent": "cursor-editor", "id": C_MAIN.removeprefix("cursor-"),
                           "cwd": "/home/lin/code/payments", "path": str(GLOBAL.absolute())}
    ids = [m["id"] for m in r["messages"]]
    # the header list's order (rows were stored shuffled), each turn once, tool results after
    # their call; the pruned "stale" turn and the unreadable "torn" one are not there
    assert ids == ["u1", "a1", "a2", "a2-result", "a3", "a3-result", "a4", "u2", "a5",
                   "a5-result", "a6"]
    by_id = {m["id"]: m for m in r["messages"]}
    assert by_id["u1"]["role"] == "user" and by_id["u1"]["content"].startswith(
        "The payments client retries forever")  # stored as a BLOB
    assert by_id["a1"]["content"] == "Let me find the retry loop first."  # no thinking
    assert by_id["a2"]["content"].startswith('[tool: run_terminal_cmd] {"command": "rg -n')
    result = by_id["a2-result"]["content"]
    assert by_id["a2-result"]["role"] == "tool"
    assert result.startswith("[tool result: run_terminal_cmd] src/payments/client.py:88:")
    assert len(result) <= len("[tool result: run_terminal_cmd] ") + 301  # cut to --tool-chars
    assert by_id["a5-result"]["content"] == ("[tool error: read_file] File not found: "
                                             "src/payments/errors.py")
    assert by_id["u1"]["time"] == "2026-03-21T09:14:05.120Z"
    assert by_id["a2-result"]["time"] == by_id["a2"]["time"]
    assert not any("ten times" in m["content"] or "half writ" in m["content"]
                   for m in r["messages"])


def test_what_a_composer_leaves_out_is_counted() -> None:
    (_, main, _), ledger = read(GLOBAL)
    assert main.record["sessionId"] == C_MAIN
    assert main.skipped == {"bubble not in the conversation": 1, "header without its bubble": 1,
                            "repeated or unnamed header": 1, "thinking": 1,
                            "unreadable bubble": 1}
    assert main.last_activity == "2026-03-21T09:20:15.000Z"
    # each bubble row is a record; headers and thinking are pieces of the records kept
    prefix = f"composer {C_MAIN.removeprefix('cursor-')}: "
    fates = {f.where.removeprefix(prefix): (f.fate, f.reason) for f in ledger.fates()
             if f.where.startswith(prefix)}
    assert fates["composerData"] == ("imported", "the session's title and metadata")
    assert fates["bubble stale"] == ("left out", "bubble not in the conversation")
    assert fates["bubble torn"] == ("left out", "unreadable bubble")
    assert sum(f == ("imported", "") for f in fates.values()) == 8  # u1, a1-a4, u2, a5, a6
    assert ledger.totals().parts_left_out == {"header without its bubble": 1,
                                              "repeated or unnamed header": 1, "thinking": 1}


def test_composers_without_a_prompt_sub_agents_and_damaged_rows_are_left_out(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="indexer.formats.cursor"):
        _, ledger = read(GLOBAL)
    assert ledger.totals().left_out == {
        "bubble not in the conversation": 1, "bubble of a composer without a prompt": 1,
        "bubble of a sub-agent composer": 1, "composer without a prompt": 2,
        "sub-agent composer": 1, "unreadable bubble": 1, "unreadable composer": 1}
    # the sub-agent's bubble is counted by its key, never read
    assert ledger.fate("composer task-toolu_01RgSearchLoop: bubble k1").reason == (
        "bubble of a sub-agent composer")
    (message,) = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    assert "left out 2× composer without a prompt, " in message  # counts, never content
    assert "How can I help" not in caplog.text and "Find the retry loop" not in caplog.text


def test_options_keep_thinking_and_cut_tools() -> None:
    r = composers(thinking=True, tool_chars=12)[C_MAIN]
    by_id = {m["id"]: m["content"] for m in r["messages"]}
    assert by_id["a1"] == ("[thinking] The retry loop is probably in client.py; look before "
                           "editing.\nLet me find the retry loop first.")
    assert by_id["a2"] == '[tool: run_terminal_cmd] {"command":…'
    assert by_id["a2-result"] == "[tool result: run_terminal_cmd] src/payments…"


def test_the_header_lists_name_and_folder_serve_a_composer_without_its_own() -> None:
    r = composers()[C_SECOND]
    assert r["title"] == "Translate the README install steps"
    assert r["topics"] == ["docs-site"] and r["origin"]["cwd"] == "/home/lin/code/docs-site"
    assert r["date"] == "2026-03-22"
    assert r["messages"][0]["content"] == "把 README 里的安装步骤翻译成英文，保留命令不变。"


def test_an_older_composer_with_its_conversation_inline() -> None:
    r = composers()[C_INLINE]
    assert r["title"] == "Write a bash one-liner that renames every *.jpeg here to *.jpg."
    assert r["date"] == "2025-02-10" and "topics" not in r
    assert [(m["id"], m["role"]) for m in r["messages"]] == [("i1", "user"), ("i2", "assistant")]
    assert not any("time" in m for m in r["messages"])  # Cursor kept no times for them


def test_only_conversation_keys_are_read() -> None:
    text = json.dumps(list(composers().values()), ensure_ascii=False)
    assert "fixture-token-never-read" not in text  # ItemTable's cursorAuth/accessToken
    assert "gitStatusRaw" not in text and "nonExistentFiles" not in text


def test_the_old_chat_panel_of_a_workspace() -> None:
    (tab,) = transcripts(CHAT_PANEL)
    r = tab.record
    assert r["sessionId"] == "cursor-a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
    assert (r["title"], r["date"], r["topics"]) == ("Center a div", "2024-11-05", ["site"])
    assert r["origin"]["cwd"] == "/home/lin/code/site"  # from workspace.json beside it
    assert r["origin"]["agent"] == "cursor-editor"
    assert [(m["role"], m["content"]) for m in r["messages"]] == [
        ("user", "How do I center a div horizontally and vertically with flexbox?"),
        ("assistant", ("Give the parent display: flex; justify-content: center; "
                       "align-items: center;"))]
    assert tab.skipped == {"bubble type system-notice": 1, "message left empty": 1}
    _, ledger = read(CHAT_PANEL)
    assert ledger.fate("chat tab f0e1d2c3-b4a5-4968-8776-655443322110: tab").reason == (
        "chat tab without a prompt")  # the "New Chat" tab nothing was sent in
    assert ledger.fate(f"composer {C_MAIN.removeprefix('cursor-')}: allComposers entry").reason \
        == "listed composer: its conversation is kept in globalStorage/state.vscdb"


def test_a_workspace_that_only_lists_its_composers_is_metadata() -> None:
    assert load_database(LIST_ONLY) == []
    ledger = Ledger()
    with pytest.raises(NothingToImport, match=r"composer\(s\) it lists keep their conversations "
                                              r"in globalStorage/state.vscdb"):
        read_database(LIST_ONLY, ImportOptions(), ledger)
    assert ledger.totals().left_out == {
        "listed composer: its conversation is kept in globalStorage/state.vscdb": 1}


def test_a_workspace_list_with_conversations_inline() -> None:
    # some releases keep a workspace's chats in ItemTable['composer.composerData'], each entry of
    # allComposers with its conversation inline: read like the composers of cursorDiskKV
    (listed, both), ledger = read(INLINE)
    r = listed.record
    assert r["sessionId"] == C_LISTED
    assert (r["title"], r["date"], r["topics"]) == ("Checkout button hidden on mobile",
                                                    "2025-06-03", ["shop"])
    assert r["origin"]["cwd"] == "/home/lin/code/shop"  # from workspace.json beside it
    assert [(m["id"], m["role"]) for m in r["messages"]] == [
        ("w1", "user"), ("w2", "assistant"), ("w3", "user"), ("w4", "assistant")]
    assert r["messages"][1]["time"] == "2025-06-03T10:00:20Z"  # the bubble's `timestamp`
    # a composer both in the list and in cursorDiskKV is read once, from its row
    assert both.record["sessionId"] == C_BOTH
    assert [m["id"] for m in both.record["messages"]] == ["r1", "r2", "r3", "r4"]
    prefix = f"composer {C_BOTH.removeprefix('cursor-')}: "
    # and so is one the global database beside the workspaces holds as a row
    second = f"composer {C_SECOND.removeprefix('cursor-')}: "
    assert {f.where for f in ledger.fates() if f.fate == "merged"} == {
        prefix + "allComposers entry", prefix + "allComposers conversation[0]",
        prefix + "allComposers conversation[1]", second + "allComposers entry",
        second + "allComposers conversation[0]"}
    assert ledger.fate(prefix + "allComposers entry").reason == prefix + "composerData"
    assert ledger.fate(second + "allComposers entry").reason == (
        f"composerData:{C_SECOND.removeprefix('cursor-')} in globalStorage/state.vscdb")
    totals = ledger.totals()
    assert (totals.records, totals.imported, totals.merged) == (18, 10, 5)
    assert totals.left_out == {
        "bubble without its composer": 1, "composer entry without id": 1,
        "listed composer: its conversation is kept in globalStorage/state.vscdb": 1}


def test_a_screenshot_sent_without_words_is_a_user_turn() -> None:
    (listed, both), _ = read(INLINE)
    said = {m["id"]: m["content"] for t in (listed, both) for m in t.record["messages"]}
    assert said["w1"] == "[image]"  # context.selectedImages, the text empty
    assert said["r1"] == "[image]"  # the older inline `images`, the text empty
    # an image attached twice counts once
    assert said["w3"] == "Same on the cart page, codename osprey\n[image]\n[image]"


def test_a_damaged_database_is_rejected_with_the_reason() -> None:
    with pytest.raises(InvalidSession, match="unreadable SQLite database: database disk image "
                                             "is malformed"):
        load_database(DAMAGED)


def test_reading_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    copy = tmp_path / "state.vscdb"
    shutil.copyfile(GLOBAL, copy)
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    assert len(load_database(copy)) == 3
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.vscdb"]


def test_a_database_cursor_holds_locked_is_read_from_a_copy(tmp_path: Path) -> None:
    copy = tmp_path / "state.vscdb"
    shutil.copyfile(GLOBAL, copy)
    writer = sqlite3.connect(copy)
    try:
        writer.execute("BEGIN EXCLUSIVE")  # as Cursor does while it writes
        assert [r.record["sessionId"] for r in load_database(copy)] == [C_SECOND, C_MAIN,
                                                                         C_INLINE]
    finally:
        writer.rollback()
        writer.close()


def test_records_of_the_wrong_shape_are_left_out_never_raised(tmp_path: Path) -> None:
    # every value where Cursor keeps something else: each costs its record, never the database
    path = tmp_path / "odd.vscdb"
    kv = {"composerData:c1": {"composerId": "c1", "name": 7, "createdAt": "yesterday",
                              "workspaceIdentifier": {"uri": {"external": "http://[::1"}},
                              "fullConversationHeadersOnly": [3, {"bubbleId": 5},
                                                              {"bubbleId": "b1"},
                                                              {"bubbleId": "b2"},
                                                              {"bubbleId": "b3"}]},
          "bubbleId:c1:b1": {"type": 1, "text": ["not", "text"], "context": "none",
                             "images": "many", "createdAt": 1e300},
          "bubbleId:c1:b2": {"type": "1", "text": "a string type"},
          "bubbleId:c1:b3": {"type": 1, "text": "the prompt", "thinking": "deep",
                             "toolFormerData": {"name": ["x"], "result": {"a": 1}}},
          "composerData:c2": {"composerId": "c2", "fullConversationHeadersOnly": "many",
                              "conversation": [1, None, {"type": 2, "text": "orphan"}]},
          "composerData:c3": [1, 2]}
    items = {"composer.composerData": {"allComposers": [5, {"composerId": 7},
                                                        {"composerId": "c4", "conversation": 9},
                                                        {"composerId": "c5", "messages": [
                                                            {"role": "user", "content": "hi"},
                                                            {"role": "assistant",
                                                             "content": "hello"}]},
                                                        {"composerId": "c5"}]},  # twice
             "workbench.panel.aichat.view.aichat.chatdata": {"tabs": [
                 {"tabId": "t1", "bubbles": "oops"}, "tab", {"tabId": ["x"]}]}}
    with sqlite3.connect(path) as connection:
        for table, rows in (("ItemTable", items), ("cursorDiskKV", kv)):
            connection.execute(f"CREATE TABLE {table} (key TEXT UNIQUE, value BLOB)")
            connection.executemany(f"INSERT INTO {table} VALUES (?, ?)",
                                   [(k, json.dumps(v)) for k, v in rows.items()])
    connection.close()
    found, ledger = read(path)
    assert sorted(t.record["sessionId"] for t in found) == ["cursor-c1", "cursor-c5"]
    by_id = {t.record["sessionId"]: t.record for t in found}
    assert [m["content"] for m in by_id["cursor-c1"]["messages"]] == ["the prompt"]
    # a list entry of {role, content} messages (cursor-view's item_table.py reads them too)
    assert [m["content"] for m in by_id["cursor-c5"]["messages"]] == ["hi", "hello"]
    assert ledger.totals().left_out == {
        "bubble type 1": 1, "chat tab without a prompt": 1, "chat tab without id": 2,
        "composer entry without id": 2, "composer without a prompt": 1,
        "listed composer: its conversation is kept in globalStorage/state.vscdb": 1,
        "message left empty": 1, "unreadable bubble": 2, "unreadable composer": 1,
        "bubble of a composer without a prompt": 1}
    assert ledger.fate("composer.composerData allComposers[4] allComposers entry").reason == (
        "composer c5: allComposers entry")  # the same composer listed again


def test_other_releases_tables_are_tolerated(tmp_path: Path) -> None:
    # a release before cursorDiskKV: the chat panel alone (named by format, as VS Code has
    # such databases too), and a database whose tables are not key-value ones
    old = tmp_path / "old.vscdb"
    with sqlite3.connect(old) as connection:
        connection.execute("CREATE TABLE ItemTable (key TEXT UNIQUE, value BLOB)")
        panel = {"tabs": [{"tabId": "t1", "bubbles": [{"type": "user", "text": "hello?"},
                                                      {"type": "ai", "rawText": "Hi."}]}]}
        connection.execute("INSERT INTO ItemTable VALUES (?, ?)",
                           ("workbench.panel.aichat.view.aichat.chatdata", json.dumps(panel)))
    connection.close()
    (tab,) = read_database(old, ImportOptions(format="cursor"), Ledger())
    assert tab.record["title"] == "hello?" and len(tab.record["messages"]) == 2
    assert tab.record["date"]  # no time in the panel: the day the database was written
    other = tmp_path / "other.vscdb"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE cursorDiskKV (id INTEGER, data TEXT)")
    connection.close()
    with pytest.raises(InvalidSession, match="not a Cursor database: no cursorDiskKV or ItemTable"):
        read_database(other, ImportOptions(format="cursor"), Ledger())


def test_databases_are_told_apart_by_their_tables() -> None:
    for path in (GLOBAL, CHAT_PANEL, LIST_ONLY, INLINE):
        with open_readonly(path) as connection:
            assert database_format(table_names(connection)) == "cursor"
    assert not cursor.looks_like_database({"ItemTable"})  # VS Code's own state.vscdb
    assert not cursor.looks_like_database({"session", "message", "part"})


# agent transcripts --------------------------------------------------------------------------


def test_a_transcript_takes_its_files_time(tmp_path: Path) -> None:
    r = transcript_record(TRANSCRIPT, tmp_path)
    assert r["sessionId"] == f"cursor-transcript-{T_MAIN}"
    assert r["origin"]["id"] == T_MAIN and "cwd" not in r["origin"]  # no /home/lin here
    assert r["origin"]["agent"] == "cursor"  # the CLI's, unlike the editor's chats
    assert r["title"] == ("Add a --dry-run flag to scripts/refund.py that prints the refunds "
                          "instead of sen…")
    assert r["date"] == "2026-03-26"
    assert {m["time"] for m in r["messages"]} == {"2026-03-26T09:00:00Z"}
    assert [(m["id"], m["role"]) for m in r["messages"]] == [
        ("l1", "user"), ("l2", "assistant"), ("l3-results", "tool"), ("l4", "assistant"),
        ("l5-results", "tool"), ("l6", "assistant")]
    contents = [m["content"] for m in r["messages"]]
    # the prompt without its <user_query> wrapper; thinking left out; results named by call
    assert contents[0] == ("Add a --dry-run flag to scripts/refund.py that prints the refunds "
                           "instead of sending them.")
    assert contents[1] == "I'll read the script first.\n[tool: Read] {\"path\": \"scripts/refund.py\"}"
    assert contents[2].startswith("[tool result: Read] import argparse")
    assert len(contents[2]) <= len("[tool result: Read] ") + 301
    assert contents[4] == "[tool result: StrReplace] The file scripts/refund.py has been updated."


def test_what_a_transcript_leaves_out_is_counted(tmp_path: Path) -> None:
    copy = dated_copy(TRANSCRIPT, tmp_path)
    ledger = Ledger()
    (transcript,) = cursor.parse(copy, copy.read_text("utf-8"), ImportOptions(), ledger)
    assert transcript.skipped == {"system line": 1, "thinking": 1, "torn last line": 1,
                                  "unknown line": 1}
    assert transcript.last_activity == "2026-03-26T09:00:00Z"
    assert_accounted(ledger)
    totals = ledger.totals()
    assert (totals.records, totals.imported) == (9, 6)  # lines 1-6, then 7, 8 and the torn 9
    assert [ledger.fate(f"line {n}").reason for n in (7, 8, 9)] == [
        "system line", "unknown line", "torn last line"]


def test_a_transcripts_options(tmp_path: Path) -> None:
    r = transcript_record(TRANSCRIPT, tmp_path, thinking=True, tool_chars=10)
    assert r["messages"][1]["content"] == ("[thinking] Need to see the argparse setup.\n"
                                           "I'll read the script first.\n[tool: Read] {\"path\": \"…")


def test_a_flat_transcript_with_text_content(tmp_path: Path) -> None:
    r = transcript_record(FLAT, tmp_path)
    assert [(m["role"], m["content"]) for m in r["messages"]] == [
        ("user", "Summarize yesterday's standup notes in three bullets."),
        ("assistant", ("- Release moves to Thursday\n- Mei owns the flaky test\n- Budget "
                       "review on Monday"))]


def test_a_sub_agents_transcript_has_nothing_to_import(tmp_path: Path) -> None:
    copy = dated_copy(SUBAGENT, tmp_path)
    assert load_file(copy, copy.read_bytes(), 10_000_000) == []
    ledger = Ledger()
    with pytest.raises(NothingToImport, match="sub-agent"):
        cursor.parse(copy, copy.read_text("utf-8"), ImportOptions(), ledger)
    assert ledger.totals().left_out == {"a sub-agent's transcript": 2}


def test_damaged_and_foreign_transcripts(tmp_path: Path) -> None:
    lines = TRANSCRIPT.read_text("utf-8").split("\n")
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("\n".join([lines[0], "{not json", *lines[1:4]]), "utf-8")
    ledger = Ledger()
    (raw,) = load_file(damaged, damaged.read_bytes(), 10_000_000, ImportOptions(format="cursor"),
                       ledger)  # one damaged line costs that line, not the session
    assert isinstance(raw, RawSession) and len(raw.record["messages"]) == 4
    assert ledger.fate("line 2").reason == "damaged line (unreadable JSON)"
    assert_accounted(ledger)
    # as many damaged lines as readable ones: not a transcript at all (the last line is torn)
    damaged.write_text("\n".join([lines[0], "{not json", "{nor this", "]"]), "utf-8")
    with pytest.raises(InvalidSession, match="unreadable JSON on lines \\[2, 3\\]"):
        load_file(damaged, damaged.read_bytes(), 10_000_000, ImportOptions(format="cursor"))
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text('{"role": "user", "content": "hi", "ts": "2026-01-01T00:00:00Z"}\n', "utf-8")
    with pytest.raises(InvalidSession, match="not a Cursor agent transcript"):
        load_file(foreign, foreign.read_bytes(), 10_000_000, ImportOptions(format="cursor"))


@pytest.mark.parametrize("path", [TRANSCRIPT, FLAT])
def test_transcripts_are_detected_by_content(path: Path, tmp_path: Path) -> None:
    text = path.read_text("utf-8")
    assert detect_format(path, text) == "cursor"
    assert detect_format(tmp_path / "renamed.txt", text) == "cursor"


def test_no_line_of_another_format_looks_like_a_transcript() -> None:
    others = [p for p in [*FORMATS.rglob("*.jsonl"), *(DATA / "jsonl").rglob("*.jsonl")]
              if CURSOR not in p.parents]
    assert len(others) >= 8
    for path in others:
        for line in path.read_text("utf-8").split("\n"):
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                continue
            assert not cursor.looks_like(item), f"{path.name}: {line[:80]}"
    assert not cursor.looks_like({"role": "user", "content": "hi", "ts": "2026-01-01"})
    assert all(cursor.looks_like(json.loads(line))
               for line in FLAT.read_text("utf-8").splitlines())


def test_transcript_lines_of_the_wrong_shape_are_left_out(tmp_path: Path) -> None:
    lines = [
        # the context the CLI puts around the prompt is not the user's (a piece left out)
        {"role": "user", "message": {"content": [{"type": "text", "text": (
            "<timestamp>Tuesday, Jun 2, 2026, 11:20 AM (UTC+8)</timestamp>\n"
            "<user_query>\nWhy is the build red?\n</user_query>")}]}},
        {"role": "assistant", "message": {"content": 42}},
        {"role": "assistant", "message": {"content": {"type": "text", "text": "a dict"}}},
        {"role": "assistant", "message": {"content": [7, {"type": "thinking",
                                                           "thinking": "hm"}]}},
        {"role": "assistant", "message": {"content": [
            {"type": "tool_use", "id": 5, "name": ["Read"], "input": {"path": "x"}},
            {"type": "text", "text": "Reading."}]}},
        {"role": "user", "message": {"content": [{"type": "image", "source": {}}]}},
        [1, 2],
    ]
    path = tmp_path / "agent-transcripts" / "odd.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", "utf-8")
    ledger = Ledger()
    (transcript,) = cursor.parse(path, path.read_text("utf-8"), ImportOptions(), ledger)
    assert [m["content"] for m in transcript.record["messages"]] == [
        "Why is the build red?", '[tool: tool] {"path": "x"}\nReading.', "[image]"]
    assert_accounted(ledger)
    assert ledger.totals().left_out == {"message left empty": 3, "non-object line": 1}
    # the pieces of the lines kept, and of a line left empty with more than thinking in it
    assert ledger.totals().parts_left_out == {"context Cursor added to the prompt": 1,
                                              "thinking": 1, "unreadable block": 1,
                                              "unreadable content": 2}


def test_a_project_folder_is_decoded_against_the_folders_that_exist(tmp_path: Path) -> None:
    folder = tmp_path / "code" / "my-app.v2" / ".config"
    folder.mkdir(parents=True)
    (tmp_path / "code" / "my").mkdir()  # a wrong reading of "my-app" that exists
    slug = str(folder).lstrip("/").replace("/", "-").replace(".", "-")
    assert cursor_cli.project_folder(slug) == str(folder)
    assert cursor_cli.project_folder("home-nobody-nowhere-at-all") is None


# real transcripts ----------------------------------------------------------------------------

REAL = DATA / "real" / "cursor"  # Cursor's own transcripts, with their hand counts


def real_samples() -> list[dict[str, Any]]:
    manifest = REAL / "MANIFEST.json"
    if not manifest.exists():
        pytest.skip("no real Cursor samples gathered")
    return list(json.loads(manifest.read_text("utf-8"))["samples"])


def test_the_real_samples_match_their_hand_counts() -> None:
    for sample in real_samples():
        path = REAL / sample["file"]
        ledger = Ledger()
        raws = load_file(path, path.read_bytes(), 10_000_000, ImportOptions(format="cursor"),
                         ledger)
        counts = sample["hand_count"]
        messages = [m for raw in raws for m in raw.record["messages"]]
        totals = ledger.totals()
        assert (len(raws), totals.records, len(messages)) == (
            counts["sessions"], counts["records"], counts["messages"]), sample["file"]
        assert Counter(m["role"] for m in messages) == Counter(counts["by_role"])
        assert totals.left_out == sample["left_out"]
        assert_accounted(ledger)


def test_the_redacted_marker_cursor_writes_for_hidden_reasoning_is_left_out(
        tmp_path: Path) -> None:
    # every assistant line of the real transcript carries it, alone or after the text
    (sample,) = [s for s in real_samples() if s["file"].endswith("cursor-session-simple.jsonl")]
    path = REAL / sample["file"]
    ledger = Ledger()
    (transcript,) = cursor.parse(path, path.read_text("utf-8"), ImportOptions(), ledger)
    contents = [m["content"] for m in transcript.record["messages"]]
    assert not any("[REDACTED]" in c for c in contents)
    assert contents[1].startswith("Creating a file listing 1990s HBO shows.")
    assert contents[2].startswith('[tool: WebFetch] {"url": "https://en.wikipedia.org/')
    assert ledger.totals().parts_left_out == {"hidden reasoning ([REDACTED])": 10}


# where Cursor keeps them ---------------------------------------------------------------------


def test_default_paths_on_each_system_and_their_overrides(tmp_path: Path) -> None:
    home = tmp_path / "home"
    users = [home / ".config" / "Cursor" / "User",
             home / "Library" / "Application Support" / "Cursor" / "User",
             home / "AppData" / "Roaming" / "Cursor" / "User"]
    expected = [p for u in users for p in (u / "globalStorage" / "state.vscdb",
                                           u / "workspaceStorage")]
    assert default_paths("cursor", home, {}) == [*expected, home / ".cursor" / "projects"]
    env = {"XDG_CONFIG_HOME": "/xdg", "APPDATA": "C:/Users/lin/AppData/Roaming",
           "CURSOR_CONFIG_DIR": "/srv/cursor"}
    paths = default_paths("cursor", home, env)
    assert paths[0] == Path("/xdg/Cursor/User/globalStorage/state.vscdb")
    assert Path("C:/Users/lin/AppData/Roaming/Cursor/User/workspaceStorage") in paths
    assert paths[-2:] == [Path("/srv/cursor/projects"), home / ".cursor" / "projects"]


def test_default_paths_find_the_fixtures_laid_out_as_cursor_does() -> None:
    env = {"XDG_CONFIG_HOME": str(CURSOR), "CURSOR_CONFIG_DIR": str(CURSOR)}
    found = candidate_files("cursor", [p for p in default_paths("cursor", CURSOR, env)
                                       if p.exists()])
    assert sorted(p.relative_to(CURSOR).as_posix() for p in found) == sorted(
        p.relative_to(CURSOR).as_posix() for p in (GLOBAL, CHAT_PANEL, LIST_ONLY, DAMAGED, INLINE,
                                                   TRANSCRIPT, FLAT))


def test_which_files_are_candidates() -> None:
    assert cursor.is_candidate(GLOBAL) and cursor.is_candidate(TRANSCRIPT)
    assert cursor.is_candidate(FLAT)
    assert not cursor.is_candidate(SUBAGENT)
    assert not cursor.is_candidate(CHAT_PANEL.with_name("workspace.json"))
    assert not cursor.is_candidate(PROJECTS / "home-lin-notes" / "agent-tools" / "out.jsonl")


def test_a_cli_transcript_resumes_by_its_id(tmp_path: Path) -> None:
    session, _, _ = normalize(transcript_record(TRANSCRIPT, tmp_path), None)
    hint = resume_hint(session)
    assert (hint.agent, hint.command) == ("cursor", f"agent --resume {T_MAIN}")
    assert "Cursor CLI" in hint.note and "editor" not in hint.note


@pytest.mark.parametrize("record", [lambda: composers()[C_MAIN],
                                    lambda: transcripts(CHAT_PANEL)[0].record],
                         ids=["composer", "chat tab"])
def test_an_editor_chat_has_no_resume_command(record: Callable[[], dict[str, Any]]) -> None:
    session, _, _ = normalize(record(), None)
    hint = resume_hint(session)
    assert (hint.agent, hint.command) == ("cursor-editor", None)
    assert hint.cwd and hint.transcript and Path(hint.transcript).name == "state.vscdb"
    assert "editor's chat history" in hint.note


# the pipeline -------------------------------------------------------------------------------


def test_imported_sessions_are_searchable_and_reimport_skips_them(tmp_path: Path) -> None:
    source = tmp_path / "cursor"
    shutil.copytree(CURSOR, source)
    files = candidate_files("cursor", [source])
    service = make_service(tmp_path / "home")
    report = service.index(files)
    assert [Path(r.path).parent.name for r in report.rejected] == [DAMAGED.parent.name]
    # three composers, a chat tab, two composers of a workspace's list, two transcripts
    assert report.indexed == 8
    hits = service.search(SearchRequest(query="GatewayUnavailable", mode="keyword")).results
    assert hits[0].session_id == C_MAIN
    hits = service.search(SearchRequest(query="dry-run refunds", mode="keyword")).results
    assert hits[0].session_id == f"cursor-transcript-{T_MAIN}"
    again = service.index(files)
    assert again.indexed == 0 and len(again.rejected) == 1
