"""The coding agents' fixtures (Codex, Gemini CLI, aider); generate.py runs them with the rest."""

from __future__ import annotations

import json

from fixture_io import HERE, write_lines

# Codex --------------------------------------------------------------------------------------

CODEX_MAIN = "0199a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b"
CODEX_LEGACY = "5f1e2d3c-4b5a-4697-8877-665544332211"
CODEX_EVENTS = "0199b000-1111-7222-8333-944455566677"


def codex() -> None:
    root = HERE / "codex"
    cwd = "/home/lin/code/ledger"

    def line(ts: str, kind: str, payload: dict) -> dict:
        return {"timestamp": f"2026-03-14T{ts}Z", "type": kind, "payload": payload}

    def message(role: str, text: str, kind: str = "input_text", **extra: object) -> dict:
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}], **extra}

    big_output = "test result: 212 passed\n" + "ok\n" * 400
    main = [
        line("09:12:03.101", "session_meta", {
            "id": CODEX_MAIN, "timestamp": "2026-03-14T09:12:03.100Z", "cwd": cwd,
            "originator": "codex_cli_rs", "cli_version": "0.63.0", "source": "cli",
            "model_provider": "openai", "git": {"branch": "main", "commit_hash": "a1b2c3d"}}),
        line("09:12:03.120", "response_item", message(
            "developer", "<permissions instructions>sandbox: workspace-write</permissions instructions>")),
        line("09:12:03.130", "response_item", message(
            "user", "# AGENTS.md instructions for /home/lin/code/ledger\n\nUse uv, not pip.")),
        line("09:12:03.140", "response_item", message(
            "user", "<environment_context>\n  <cwd>/home/lin/code/ledger</cwd>\n</environment_context>")),
        line("09:12:03.150", "turn_context", {"cwd": cwd, "model": "gpt-5-codex",
                                              "approval_policy": "on-request"}),
        line("09:12:04.000", "response_item", message(
            "user", "The monthly export rounds VAT wrong for Swiss invoices; fix the rounding "
                    "to 0.05 CHF and keep the tests green.")),
        line("09:12:04.001", "event_msg", {"type": "user_message", "message":
            "The monthly export rounds VAT wrong for Swiss invoices; fix the rounding to 0.05 CHF "
            "and keep the tests green.", "images": []}),
        line("09:12:06.500", "response_item", {
            "type": "reasoning", "id": "rs_01",
            "summary": [{"type": "summary_text", "text": "Looking for the VAT rounding helper."}],
            "content": None, "encrypted_content": "gAAAAB..."}),
        line("09:12:06.510", "event_msg", {"type": "agent_reasoning",
                                           "text": "Looking for the VAT rounding helper."}),
        line("09:12:07.000", "response_item", {
            "type": "function_call", "name": "shell", "call_id": "call_rg",
            "arguments": json.dumps({"command": ["rg", "-n", "round_vat", "src"]})}),
        line("09:12:07.400", "response_item", {
            "type": "function_call_output", "call_id": "call_rg",
            "output": "src/ledger/vat.py:41:def round_vat(amount, currency):"}),
        line("09:12:09.000", "response_item", {
            "type": "custom_tool_call", "name": "apply_patch", "call_id": "call_patch",
            "status": "completed",
            "input": "*** Begin Patch\n*** Update File: src/ledger/vat.py\n-    return round(amount, 2)\n"
                     "+    return round_to_step(amount, Decimal('0.05'))\n*** End Patch"}),
        line("09:12:09.200", "response_item", {
            "type": "custom_tool_call_output", "call_id": "call_patch",
            "output": json.dumps({"output": "Success. Updated src/ledger/vat.py", "metadata": {}})}),
        line("09:12:12.000", "response_item", {
            "type": "function_call", "name": "shell", "call_id": "call_test",
            "arguments": json.dumps({"command": ["uv", "run", "pytest", "-q"]})}),
        line("09:12:30.000", "response_item", {
            "type": "function_call_output", "call_id": "call_test",
            "output": {"content": big_output, "success": True}}),
        line("09:12:31.000", "response_item", {
            "type": "web_search_call", "status": "completed",
            "action": {"type": "search", "query": "Swiss VAT rounding 0.05 CHF rule"}}),
        line("09:12:40.000", "response_item", message(
            "assistant", "Swiss invoices now round VAT to the nearest 0.05 CHF (round_to_step in "
                         "vat.py); all 212 tests pass.", kind="output_text", id="msg_01")),
        line("09:12:40.001", "event_msg", {"type": "agent_message", "message":
            "Swiss invoices now round VAT to the nearest 0.05 CHF (round_to_step in vat.py); all "
            "212 tests pass."}),
        line("09:12:40.100", "event_msg", {"type": "token_count", "info": {"total_token_usage": {
            "input_tokens": 9120, "output_tokens": 611}}}),
        line("09:12:41.000", "event_msg", {"type": "thread_name_updated",
                                           "thread_name": "Swiss VAT rounding"}),
        line("09:30:00.000", "compacted", {
            "message": "Fixed Swiss VAT rounding to 0.05 CHF in vat.py; tests pass.",
            "replacement_history": []}),
        line("09:30:00.010", "event_msg", {"type": "context_compacted"}),
        line("09:31:00.000", "response_item", message(
            "user", "Also note in the changelog that CHF rounding changed.")),
        line("09:31:02.000", "response_item", message(
            "assistant", "Added a line under 'Fixed' in CHANGELOG.md.", kind="output_text",
            id="msg_02")),
        line("09:31:02.500", "world_state", {"note": "a record type this reader does not know"}),
    ]
    path = root / "sessions" / "2026" / "03" / "14" / f"rollout-2026-03-14T09-12-03-{CODEX_MAIN}.jsonl"
    write_lines(path, main, torn='{"timestamp":"2026-03-14T09:31:03Z","type":"respon')

    # before the envelope (2025): a bare first line, bare response items, state lines
    legacy = [
        {"id": CODEX_LEGACY, "timestamp": "2025-06-02T18:04:11.512Z",
         "instructions": "You are Codex.", "git": {"branch": "main"}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>cwd: /home/lin/notes</environment_context>"}]},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Summarize my reading list into three themes."},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0..."}]},
        {"type": "message", "role": "assistant", "id": "msg_legacy", "content": [
            {"type": "output_text", "text": "Three themes: distributed systems, typography, and "
                                            "Japanese woodworking."}]},
        {"record_type": "state"},
    ]
    write_lines(root / "archived_sessions" / f"rollout-2025-06-02T18-04-11-{CODEX_LEGACY}.jsonl",
                legacy)

    events_only = [
        line("12:00:00.000", "session_meta", {"id": CODEX_EVENTS, "timestamp": "2026-03-14T12:00:00Z",
                                              "cwd": "/home/lin/notes", "cli_version": "0.1.0"}),
        line("12:00:01.000", "event_msg", {"type": "user_message", "message": "List the open TODOs in notes/."}),
        line("12:00:05.000", "event_msg", {"type": "agent_message", "message": "There are four: …"}),
    ]
    write_lines(root / "sessions" / "2026" / "03" / "14" / f"rollout-2026-03-14T12-00-00-{CODEX_EVENTS}.jsonl",
                events_only)


# Gemini CLI ---------------------------------------------------------------------------------

GEMINI_MAIN = "7c0d2e4f-6a8b-4c1d-9e3f-5a7b9c1d3e5f"
GEMINI_OLD = "b2c4d6e8-0a1b-4c3d-8e5f-7a9b1c3d5e7f"


def gemini() -> None:
    root = HERE / "gemini"
    chats = root / "tmp" / "ledger" / "chats"
    project_hash = "3f" * 32

    def at(minute: int, second: int = 0) -> str:
        return f"2026-03-20T10:{minute:02d}:{second:02d}.000Z"

    call = {"id": "read_file-1", "name": "read_file", "args": {"absolute_path": "/home/lin/code/ledger/fx.py"},
            "status": "executing", "timestamp": at(1, 5)}
    done = {**call, "status": "success", "result": [{"functionResponse": {
        "id": "read_file-1", "name": "read_file",
        "response": {"output": "RATES = {'EUR': 1.0, 'CHF': 0.96}  # updated by hand every month\n" * 40}}}]}
    lines = [
        {"sessionId": GEMINI_MAIN, "projectHash": project_hash, "startTime": at(0),
         "lastUpdated": at(0), "kind": "main"},
        {"id": "m1", "timestamp": at(0, 10), "type": "user",
         "content": [{"text": "Where do the currency rates in fx.py come from?"}]},
        {"$set": {"lastUpdated": at(0, 10)}},
        {"id": "m2", "timestamp": at(1), "type": "gemini", "content": "",
         "thoughts": [{"subject": "Reading fx.py", "description": "The rates may be hard-coded.",
                       "timestamp": at(1)}], "model": "gemini-2.5-pro"},
        # the same message written again as its tool call runs and finishes
        {"id": "m2", "timestamp": at(1), "type": "gemini", "content": "", "toolCalls": [call],
         "thoughts": [{"subject": "Reading fx.py", "description": "The rates may be hard-coded.",
                       "timestamp": at(1)}], "model": "gemini-2.5-pro"},
        {"id": "m2", "timestamp": at(1), "type": "gemini",
         "content": "They are hard-coded in RATES and updated by hand every month.",
         "toolCalls": [done], "thoughts": [{"subject": "Reading fx.py",
                                            "description": "The rates may be hard-coded.",
                                            "timestamp": at(1)}],
         "tokens": {"input": 2100, "output": 120, "cached": 0, "total": 2220}, "model": "gemini-2.5-pro"},
        {"id": "m3", "timestamp": at(2), "type": "user", "content": "Switch them to the ECB daily feed."},
        {"id": "m4", "timestamp": at(2, 30), "type": "gemini",
         "content": "Done: fetch_ecb_rates() now pulls the ECB XML every morning."},
        # the user rewinds to before m3: the ECB exchange is gone
        {"$rewindTo": "m3"},
        {"id": "m5", "timestamp": at(4), "type": "info", "content": "Switched model to gemini-2.5-flash."},
        {"id": "m6", "timestamp": at(5), "type": "user",
         "content": "Keep the hand-written rates but add a test that fails when they are older than 40 days."},
        {"id": "m7", "timestamp": at(6), "type": "gemini",
         "content": "Added test_rates_are_fresh in tests/test_fx.py; it reads RATES_UPDATED."},
        {"id": "m8", "timestamp": at(6, 5), "type": "error", "content": "Quota exceeded; retrying."},
        {"$set": {"summary": "Kept hand-written FX rates; added a freshness test.",
                  "lastUpdated": at(6, 5)}},
        # a compression: the model's context now starts from a summary message
        {"$set": {"messages": [{"id": "c1", "timestamp": at(7), "type": "user",
                                "content": "<state_snapshot>FX rates stay hand-written.</state_snapshot>"},
                               {"id": "m7", "timestamp": at(6), "type": "gemini",
                                "content": "Added test_rates_are_fresh in tests/test_fx.py; it reads RATES_UPDATED."}]}},
    ]
    write_lines(chats / f"session-2026-03-20T10-00-{GEMINI_MAIN[:8]}.jsonl", lines,
                torn='{"id":"m9","type":"us')

    old = {"sessionId": GEMINI_OLD, "projectHash": "a1" * 32, "startTime": "2025-11-02T08:00:00.000Z",
           "lastUpdated": "2025-11-02T08:03:00.000Z", "messages": [
               {"id": "o1", "timestamp": "2025-11-02T08:00:05.000Z", "type": "user",
                "content": "What is a good name for a bookkeeping CLI?"},
               {"id": "o2", "timestamp": "2025-11-02T08:00:09.000Z", "type": "gemini",
                "content": "How about 'ledgerly'? Short, and the .dev domain is free."}]}
    path = root / "tmp" / ("a1" * 32) / "chats" / "session-2025-11-02T08-00-b2c4d6e8.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(old, ensure_ascii=False, indent=2), "utf-8")
    (root / "projects.json").write_text(json.dumps(
        {"projects": {"/home/lin/code/ledger": "ledger"}}, indent=2), "utf-8")


# aider --------------------------------------------------------------------------------------

def aider() -> None:
    long_diff = "\n".join(f"> {n:3d} |     total += line.amount" for n in range(60))
    history = f"""
# aider chat started at 2026-03-02 09:15:40

> Aider v0.82.1
> Main model: sonnet with diff edit format
> Git repo: .git with 41 files
> Repo-map: using 4096 tokens, auto refresh
> Added src/ledger/export.py to the chat.

#### The CSV export puts amounts in scientific notation for large invoices.  
#### Always write two decimals instead.

The export calls `str(amount)` on a float. I will format with `f"{{amount:.2f}}"` and keep
amounts as `Decimal` until then.

src/ledger/export.py
```python
<<<<<<< SEARCH
    row.append(str(amount))
=======
    row.append(f"{{amount:.2f}}")
>>>>>>> REPLACE
```

> Applied edit to src/ledger/export.py
> Commit 5e1f2a3 fix: format CSV amounts with two decimals

#### /run pytest -q tests/test_export.py

> Add 0.2k tokens of command output to the chat? (Y)es/(N)o [Yes]: y
{long_diff}

The tests pass now.

# aider chat started at 2026-03-02 11:02:10

> Aider v0.82.1

# aider chat started at 2026-03-05 16:40:03

> Aider v0.82.1
> Main model: sonnet with diff edit format

#### which file holds the VAT rates?

-----
**► THINKING**

The user asks where VAT rates live; the repo map lists a heron module.

-----
**► ANSWER**

`src/ledger/vat.py` holds them in `RATES`, keyed by country code.
"""
    path = HERE / "aider" / "ledger" / ".aider.chat.history.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(history, "utf-8")
