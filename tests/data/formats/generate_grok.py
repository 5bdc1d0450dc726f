"""Grok Build's fixtures, laid out as under `~/.grok` (here `grok/home`); the shapes are those of
xai-org/grok-build @ 19d42e35c07a9c9244f03f6df0c4c353f970d4f9 (see grok/README.md). Run on its
own or from generate.py.

grok/home/sessions/<URL-encoded cwd>/<id>/updates.jsonl       the session's updates (read)
                                         /summary.json        its id, folder and title
                                         /chat_history.jsonl  what was sent to the model (not read)
                                         /...                 its state (side_files(), not read)
grok/home/auth.json, version.json, ...                        Grok's own state (home_files())
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from fixture_io import HERE, dump, write_lines

ROOT = HERE / "grok" / "home" / "sessions"
LEDGER, NOTES = "/home/lin/code/ledger", "/home/lin/notes"
MAIN = "019f6a00-1c2d-7e3f-8a4b-5c6d7e8f9a0b"
NOTES_ID = "019f6a10-2d3e-7f40-9b5c-6d7e8f9a0b1c"
IDLE = "019f6a20-3e4f-7051-8c6d-7e8f9a0b1c2d"
T0 = 1773651600  # 2026-03-16T09:00:00Z


def acp(offset: int, session: str, kind: str, /, **fields: object) -> dict:
    return {"timestamp": T0 + offset, "method": "session/update",
            "params": {"sessionId": session, "update": {"sessionUpdate": kind, **fields}}}


def xai(offset: int, session: str, kind: str, /, **fields: object) -> dict:
    return {"timestamp": T0 + offset, "method": "_x.ai/session/update",
            "params": {"sessionId": session, "update": {"sessionUpdate": kind, **fields}}}


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def main_updates() -> list[dict]:
    """Two chunks of one prompt and a screenshot, thinking, a tool that works and one that
    fails, a rewound turn and its replacement, a host turn marker, a plan, a sub-agent, a type no
    release wrote yet."""
    s = MAIN
    return [acp(0, s, "available_commands_update", availableCommands=[{"name": "compact"}]),
            acp(1, s, "user_message_chunk", content=text("Add a --dry-run flag")),
            acp(1, s, "user_message_chunk", content=text(" to the export command.")),
            acp(1, s, "user_message_chunk", content={"type": "image", "mimeType": "image/png",
                                                     "data": "iVBORw0KGgo="}),
            acp(2, s, "agent_thought_chunk", content=text("Check the CLI module first.")),
            acp(3, s, "agent_message_chunk", content=text("I'll read the CLI ")),
            acp(3, s, "agent_message_chunk", content=text("first.")),
            acp(4, s, "tool_call", toolCallId="call_1", title="Read `src/ledger/cli.py`",
                kind="read", status="pending", rawInput={"path": "src/ledger/cli.py"}),
            acp(5, s, "tool_call_update", toolCallId="call_1", status="in_progress"),
            acp(6, s, "tool_call_update", toolCallId="call_1", status="completed",
                content=[{"type": "content", "content": text("def export(month): ...")}]),
            acp(7, s, "agent_message_chunk", content=text("Adding the flag now.")),
            acp(8, s, "tool_call", toolCallId="call_2", title="Edit `src/ledger/cli.py`",
                kind="edit", status="pending", rawInput={"path": "src/ledger/cli.py",
                                                         "old": "def export(month)"}),
            acp(9, s, "tool_call_update", toolCallId="call_2", status="failed",
                rawOutput={"error": "file changed on disk"}),
            acp(10, s, "agent_message_chunk", content=text("The file changed; I re-read it and "
                                                           "added --dry-run.")),
            xai(11, s, "turn_completed", prompt_id="p0"),
            acp(60, s, "user_message_chunk", content=text("Also add a hypothesis test for it.")),
            acp(61, s, "agent_message_chunk", content=text("Here is a hypothesis test.")),
            xai(62, s, "rewind_marker", target_prompt_index=0,
                created_at="2026-03-16T09:01:02Z"),
            acp(70, s, "user_message_chunk", content=text("Instead, document the flag in the "
                                                          "README.")),
            acp(71, s, "agent_message_chunk", content=text("Documented --dry-run in README.md.")),
            acp(72, s, "user_message_chunk", content=text(""), _meta={"hostTurn": True}),
            acp(73, s, "plan", entries=[{"content": "Document flag", "status": "completed"}]),
            xai(74, s, "subagent_spawned", subagent_id="019f6a30", parent_tool_call_id="call_9"),
            xai(75, s, "some_future_feature", detail=1)]


def notes_updates() -> list[dict]:
    """No summary.json: the folder's names stand in; a file attached to the prompt."""
    s = NOTES_ID
    return [acp(600, s, "user_message_chunk", content=text("把这份会议纪要整理成待办清单")),
            acp(600, s, "user_message_chunk", content={"type": "resource_link",
                                                       "name": "meeting.md",
                                                       "uri": "file:///home/lin/notes/meeting.md"}),
            acp(601, s, "agent_message_chunk", content=text("已整理：三项待办。"))]


def grok() -> None:
    main = ROOT / quote(LEDGER, safe="") / MAIN
    write_lines(main / "updates.jsonl", main_updates(), torn='{"timestamp": 1773651700, "meth')
    (main / "summary.json").write_text(dump({
        "info": {"id": MAIN, "cwd": LEDGER}, "session_summary": "Add --dry-run to export",
        "generated_title": "Dry-run flag for the export command",
        "created_at": "2026-03-16T09:00:00Z", "updated_at": "2026-03-16T09:01:15Z",
        "num_messages": 9, "num_chat_messages": 7, "current_model_id": "grok-code-fast-1",
        "head_branch": "main"}), "utf-8")
    write_lines(main / "chat_history.jsonl", [
        {"type": "system", "content": "You are Grok, a coding agent."},
        {"type": "user", "content": [text("Add a --dry-run flag to the export command.")]},
        {"type": "assistant", "content": "I'll read the CLI first.", "model_id":
         "grok-code-fast-1"}])
    write_lines(ROOT / quote(NOTES, safe="") / NOTES_ID / "updates.jsonl", notes_updates())
    write_lines(ROOT / quote(NOTES, safe="") / IDLE / "updates.jsonl",
                [acp(900, IDLE, "available_commands_update", availableCommands=[])])
    side_files(main)
    home_files(ROOT.parent)


def side_files(folder: Path) -> None:
    """The session's state beside its log, none of it read: the plan (TodoState, pretty),
    signals (SessionSignals, camelCase, compact), the prompt's inputs (PromptContext, pretty),
    rewind points (RewindPoint), feedback (LocalFeedbackEntry), /btw side questions (BtwEntry),
    a compaction checkpoint (CompactionCheckpointFile), a sub-agent's meta.json (SubagentMeta)
    and output.json; the source files are named in grok/README.md."""
    (folder / "plan.json").write_text(json.dumps({"todos": {
        "1": {"content": "Add the --dry-run flag", "priority": "high", "status": "completed"},
        "2": {"content": "Document the flag", "priority": "medium", "status": "in_progress"}}},
        indent=2), "utf-8")
    (folder / "signals.json").write_text(json.dumps({
        "turnCount": 2, "userMessageCount": 3, "assistantMessageCount": 4, "errorCount": 1,
        "toolFailureCount": 1, "cancellationCount": 0, "consecutiveCancellations": 0,
        "regenerationCount": 0, "hasReverted": False, "compactionCount": 0,
        "totalTokensBeforeCompaction": 0, "contextWindowUsage": 3, "contextTokensUsed": 7400,
        "contextWindowTokens": 256000, "toolCallCount": 2, "toolsUsed": ["read_file", "edit"],
        "modelsUsed": ["grok-code-fast-1"], "primaryModelId": "grok-code-fast-1",
        "editAndRetryCount": 1, "bashBareEchoCount": 0, "gitCommitCount": 0,
        "prCreatedCount": 0, "prMergedCount": 0}, separators=(",", ":")), "utf-8")
    (folder / "prompt_context.json").write_text(json.dumps({
        "version": 1, "prompt_mode": "extend", "audience": "primary",
        "agents_md_files": [], "persona_summaries": [],
        "build_timestamp_utc": "2026-03-16T09:00:00Z", "memory_enabled": False,
        "os_name": "linux", "working_directory": LEDGER, "current_date": "2026-03-16",
        "is_non_interactive": False, "system_prompt_label": "Grok"}, indent=2), "utf-8")
    write_lines(folder / "rewind_points.jsonl", [
        {"prompt_index": 0, "created_at": "2026-03-16T09:00:01Z", "file_snapshots": {
            "src/ledger/cli.py": {"path": "src/ledger/cli.py", "content": "def export(month): ...",
                                  "captured_at": "2026-03-16T09:00:04Z"}},
         "after_snapshots": {}},
        {"prompt_index": 1, "created_at": "2026-03-16T09:01:10Z", "file_snapshots": {},
         "after_snapshots": {}}])
    write_lines(folder / "feedback.jsonl", [
        {"type": "user_feedback", "submittedAt": "2026-03-16T09:01:20Z", "sessionId": MAIN,
         "turnNumber": 1, "solicited": False, "submission": {
             "sessionId": MAIN, "clientType": "tui", "feedbackType": "rating", "turnNumber": 1,
             "ratingType": "thumbs", "ratingValue": 1}},
        {"type": "user_feedback", "submittedAt": "2026-03-16T09:01:30Z", "sessionId": MAIN,
         "solicited": True, "requestId": "fbr_1", "dismissed": True}])
    write_lines(folder / "btw_history.jsonl", [
        {"btwSessionId": "btw_1", "parentSessionId": MAIN, "askedAt": "2026-03-16T09:00:30Z",
         "question": "Which argparse version do we pin?", "answer": "None; it is stdlib.",
         "model": "grok-code-fast-1", "success": True, "attempts": 1}])
    (folder / "compaction_checkpoints").mkdir(exist_ok=True)
    (folder / "compaction_checkpoints" / "0b7c2d4e.json").write_text(json.dumps({
        "checkpoint_id": "0b7c2d4e", "prompt_index_at_compaction": 1, "compacted_history": [
            {"type": "system", "content": "You are Grok, a coding agent."},
            {"type": "user", "content": [text("Summary: --dry-run added to export.")]}],
        "schema_version": 2, "created_at": "2026-03-16T09:01:00Z",
        "original_user_info": None, "reread_file_paths": ["src/ledger/cli.py"]}), "utf-8")
    subagent = folder / "subagents" / "019f6a30"
    subagent.mkdir(parents=True, exist_ok=True)
    (subagent / "meta.json").write_text(json.dumps({
        "subagent_id": "019f6a30", "parent_session_id": MAIN,
        "child_session_id": "019f6a31-4f50-7162-9d7e-8f9a0b1c2d3e", "subagent_type": "explore",
        "description": "Find the export tests", "prompt": "List the tests of export.",
        "status": "completed", "started_at": "2026-03-16T09:01:14Z",
        "completed_at": "2026-03-16T09:01:15Z", "duration_ms": 900, "tool_calls": 1,
        "turns": 1}, indent=2), "utf-8")
    (subagent / "output.json").write_text(json.dumps({
        "schema_version": 1, "output": "tests/test_export.py"}), "utf-8")
    (folder / "plan_mode.json").write_text(json.dumps({
        "state": "Inactive", "was_previously_active": True, "reminder_count": 1,
        "pending_exit_reminder": False, "awaiting_plan_approval": False}, indent=2), "utf-8")
    (folder / "announcement_state.json").write_text(json.dumps({
        "mcp_server_fingerprints": {"linear": {"tool_count": 4, "description_hash": 1,
                                               "tool_names_hash": 2}},
        "announced_skill_names": ["commit"]}), "utf-8")
    (folder / "relay_sync.json").write_text(json.dumps({
        "last_synced_event_id": "ev_9", "last_synced_at": T0 + 75, "relay_session_id": None,
        "synced_count": 24}), "utf-8")


def home_files(home: Path) -> None:
    """Grok's own files at the top of ~/.grok (sign-in, version check, models cache, tip
    rotation, running sessions, its diagnostic log); the key is no real one."""
    (home / "auth.json").write_text(json.dumps({"https://auth.x.ai": {
        "key": "fixture-not-a-token", "auth_mode": "oidc", "create_time": "2026-03-01T08:00:00Z",
        "user_id": "u_1", "email": None}}, indent=2), "utf-8")
    (home / "version.json").write_text(json.dumps({
        "version": "0.9.2", "stable_version": "0.9.1", "checked_at": "2026-03-16T08:59:00Z"},
        indent=2), "utf-8")
    (home / "models_cache.json").write_text(json.dumps({
        "fetched_at": "2026-03-16T08:59:01Z", "grok_version": "0.9.2",
        "models": {"grok-code-fast-1": {"name": "grok-code-fast-1"}}}, indent=2), "utf-8")
    (home / "tip_cursor.json").write_text(json.dumps({"cursor": 7}), "utf-8")
    write_lines(home / "logs" / "unified.jsonl", [
        {"ts": "2026-03-16T09:00:00.120Z", "src": "shell", "pid": 4242, "ver": "0.9.2",
         "lvl": "info", "msg": "session started", "sid": MAIN},
        {"ts": "2026-03-16T09:00:09.004Z", "src": "grok-pager", "pid": 4243, "ver": "0.9.2",
         "lvl": "warn", "msg": "tool failed", "sid": MAIN, "ctx": {"tool": "edit"}}])
    (home / "active_sessions.json").write_text(json.dumps([{
        "session_id": MAIN, "pid": 4242, "cwd": LEDGER, "opened_at": "2026-03-16T09:00:00Z"}],
        indent=2), "utf-8")


if __name__ == "__main__":
    grok()
