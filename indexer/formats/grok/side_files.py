"""The files Grok Build keeps in a session folder beside `updates.jsonl` that hold no conversation
to import, told by content so that `recall index ~/.grok` calls them empty rather than rejecting
them or taking their lines for recall's own conversation lines. Shapes from xai-org/grok-build @
19d42e35c07a9c9244f03f6df0c4c353f970d4f9, under crates/codegen/ (storage/mod.rs and
storage/jsonl/mod.rs of xai-grok-shell/src/session/ name the files):

- `plan.json`: TodoState `{"todos": {<id>: {content, priority, status}}}`
  (xai-grok-tools/src/implementations/grok_build/todo/mod.rs);
- `signals.json`: SessionSignals, camelCase counters (xai-grok-shell/src/session/signals.rs);
- `prompt_context.json`: PromptContext, the system prompt's inputs
  (xai-grok-agent/src/prompt/context.rs);
- `compaction_checkpoints/<id>.json`: CompactionCheckpointFile, the history a compaction kept
  (xai-grok-shell/src/extensions/notification.rs): a copy, the log keeps the conversation;
- `subagents/<id>/meta.json` and `output.json`: SubagentMeta and the sub-agent's final output
  (xai-grok-shell/src/agent/subagent/mod.rs); the child's session is a session folder of its own;
- `plan_mode.json`: PlanModeSnapshot (xai-grok-shell/src/session/plan_mode.rs);
- `announcement_state.json`: AnnouncementState (xai-grok-shell/src/session/announcement_state.rs);
- `relay_sync.json`: RelaySyncState (xai-grok-shell/src/relay/sync.rs);
- `chat_history.jsonl`: ConversationItem rows, first the system prompt
  (xai-grok-sampling-types/src/conversation.rs): what was last sent to the model;
- `rewind_points.jsonl`: RewindPoint, file snapshots per prompt
  (xai-grok-workspace/src/session/file_state.rs);
- `feedback.jsonl`: LocalFeedbackEntry `{"type": "user_feedback", ...}` and
- `btw_history.jsonl`: BtwEntry, /btw side questions kept apart from the session
  (xai-grok-shell/src/session/persistence.rs);
- and at the top of `~/.grok`, `logs/unified.jsonl`: LogEntry `{ts, src, lvl, msg, ...}`, Grok's
  own diagnostic log (xai-grok-telemetry/src/unified_log.rs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from indexer.formats.contract import Metadata

__all__ = ["METADATA", "side_lines", "starts_side_lines"]

_TODO_STATUS = {"pending", "in_progress", "completed", "cancelled"}


def _keys(value: Any, **types: type | tuple[type, ...]) -> bool:
    """A dict holding each of these keys with a value of its type (a bool is no int here)."""
    return isinstance(value, dict) and all(
        isinstance(value.get(key), kind) and not (kind is int and isinstance(value[key], bool))
        for key, kind in types.items())


def _plan(value: Any) -> bool:
    todos = value.get("todos") if isinstance(value, dict) and set(value) == {"todos"} else None
    return isinstance(todos, dict) and all(
        _keys(item, content=str, status=str) and item["status"] in _TODO_STATUS
        for item in todos.values())


def _signals(value: Any) -> bool:
    return _keys(value, turnCount=int, userMessageCount=int, assistantMessageCount=int,
                 toolCallCount=int, toolsUsed=list)


def _prompt_context(value: Any) -> bool:
    return (_keys(value, version=int, prompt_mode=str, agents_md_files=list,
                  build_timestamp_utc=str) and value["prompt_mode"] in ("extend", "full"))


def _compaction_checkpoint(value: Any) -> bool:
    return _keys(value, checkpoint_id=str, prompt_index_at_compaction=int,
                 compacted_history=list, schema_version=int)


def _subagent_meta(value: Any) -> bool:
    return _keys(value, subagent_id=str, parent_session_id=str, child_session_id=str,
                 subagent_type=str, status=str)


def _subagent_output(value: Any) -> bool:
    return (isinstance(value, dict) and set(value) == {"schema_version", "output"}
            and _keys(value, schema_version=int, output=str))


def _plan_mode(value: Any) -> bool:
    return _keys(value, state=str, was_previously_active=bool, reminder_count=int,
                 pending_exit_reminder=bool)


def _announcement_state(value: Any) -> bool:
    return (isinstance(value, dict)
            and set(value) == {"mcp_server_fingerprints", "announced_skill_names"}
            and _keys(value, mcp_server_fingerprints=dict, announced_skill_names=list))


def _relay_sync(value: Any) -> bool:
    return (isinstance(value, dict) and set(value) == {
        "last_synced_event_id", "last_synced_at", "relay_session_id", "synced_count"}
        and _keys(value, synced_count=int))


METADATA = (
    Metadata("grok-plan", "Grok Build session plan (plan.json)", _plan),
    Metadata("grok-signals", "Grok Build session signals (signals.json)", _signals),
    Metadata("grok-prompt-context", "Grok Build system prompt inputs (prompt_context.json)",
             _prompt_context),
    Metadata("grok-compaction", "Grok Build compaction checkpoint (compaction_checkpoints/)",
             _compaction_checkpoint),
    Metadata("grok-subagent", "Grok Build sub-agent record (subagents/<id>/meta.json)",
             _subagent_meta),
    Metadata("grok-subagent-output", "Grok Build sub-agent output (subagents/<id>/output.json)",
             _subagent_output),
    Metadata("grok-plan-mode", "Grok Build plan mode state (plan_mode.json)", _plan_mode),
    Metadata("grok-announcements", "Grok Build announced servers and skills "
             "(announcement_state.json)", _announcement_state),
    Metadata("grok-relay-sync", "Grok Build relay sync state (relay_sync.json)", _relay_sync),
)


def _chat_history(item: Any) -> bool:
    """The first row of `chat_history.jsonl`: the system prompt, `{"type": "system", "content"}`."""
    return (isinstance(item, dict) and set(item) == {"type", "content"}
            and item["type"] == "system" and isinstance(item["content"], str))


def _rewind_point(item: Any) -> bool:
    return _keys(item, prompt_index=int, created_at=str, file_snapshots=dict)


def _feedback(item: Any) -> bool:
    return (_keys(item, type=str, submittedAt=str, sessionId=str, solicited=bool)
            and item["type"] == "user_feedback")


def _side_question(item: Any) -> bool:
    return _keys(item, btwSessionId=str, parentSessionId=str, question=str, answer=str)


def _log_entry(item: Any) -> bool:
    return (_keys(item, ts=str, src=str, lvl=str, msg=str)
            and item["src"] in ("shell", "grok-pager", "grok-desktop")
            and item["lvl"] in ("error", "warn", "info", "debug"))


# (recognizes the first line, what the file is, what each line is in the ledger)
_LINES: tuple[tuple[Callable[[Any], bool], str, str], ...] = (
    (_chat_history, ("Grok's chat history (chat_history.jsonl): the session is read from"
                     " updates.jsonl beside it"), "Grok's chat history sent to the model"),
    (_rewind_point, "Grok's rewind points (rewind_points.jsonl): file snapshots",
     "rewind point (file snapshots)"),
    (_feedback, "Grok's feedback on the session (feedback.jsonl)", "user feedback"),
    (_side_question, "Grok's /btw side questions (btw_history.jsonl), not imported",
     "/btw side question"),
    (_log_entry, "Grok's diagnostic log (logs/unified.jsonl)", "log entry"),
)


def starts_side_lines(item: Any) -> bool:
    """The first line of a JSON-lines file Grok keeps beside `updates.jsonl`."""
    return side_lines(item) is not None


def side_lines(item: Any) -> tuple[str, str] | None:
    """(what the file is, what each of its lines is) when `item`, a first line, starts one of
    Grok's JSON-lines side files; None otherwise."""
    return next(((what, each) for test, what, each in _LINES if test(item)), None)
