"""The Cline family's fixtures, laid out as the extensions and the CLI keep them:

cline/config/            an XDG_CONFIG_HOME: editors' user data with each extension's tasks
  Code/.../saoudrizwan.claude-dev/   Cline: an XML-tool task of 2024-style releases (no message
                          times; ui_messages.json), a native-tool task (times, thinking, an
                          image, a large command output, an answer and feedback in results),
                          a task without times or ui_messages.json, a damaged history, a
                          task with the focus chain's reminders and screenshots sent without
                          words, and state/taskHistory.json
  Cursor/.../rooveterinaryinc.roo-cline/  Roo Code: reasoning blocks and items, a condensed
                          summary, a truncation marker, resumption, history_item.json, _index.json
  Windsurf/.../kilocode.kilo-code/   Kilo Code: feedback with an image in a result
cline/home/.cline/data/sessions/   a Cline CLI session: messages.json, its manifest, a
                          sub-agent's messages and the compaction state

Run it with `cd tests/data/formats && ../../../.venv/bin/python generate_cline.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

from fixture_io import HERE, dump

ROOT = HERE / "cline"
CONFIG = ROOT / "config"
CLINE = CONFIG / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev"
ROO = CONFIG / "Cursor" / "User" / "globalStorage" / "rooveterinaryinc.roo-cline"
KILO = CONFIG / "Windsurf" / "User" / "globalStorage" / "kilocode.kilo-code"
SESSIONS = ROOT / "home" / ".cline" / "data" / "sessions"

CLINE_XML = "1767254400123"  # 2026-01-01T08:00:00.123Z
CLINE_NATIVE = "1772530000456"  # 2026-03-03T09:26:40.456Z
CLINE_PLAIN = "1770000000000"  # 2026-02-02T02:40:00Z
CLINE_DAMAGED = "1772600000789"
CLINE_FOCUS = "1774000000321"  # 2026-03-20T09:46:40.321Z
SDK_SESSION = "1773300000000_k3xqz"


def uuid7(ms: int, tail: str) -> str:
    stamp = f"{ms:012x}"
    return f"{stamp[:8]}-{stamp[8:]}-7{tail[:3]}-8{tail[3:6]}-{tail[6:18]}"


ROO_TASK = uuid7(1773151200000, "1a2b3c4d5e6f7a8b9c0d")  # 2026-03-10T14:00:00Z
KILO_TASK = uuid7(1773300600000, "0f1e2d3c4b5a69788796")  # 2026-03-12T07:30:00Z


def write(path: Path, value: object, indent: int | str | None = None) -> None:
    """As the extensions write: JSON.stringify on one line, or pretty-printed where they do."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = dump(value) if indent is None else json.dumps(value, ensure_ascii=False, indent=indent)
    path.write_text(text, "utf-8")


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def env(cwd: str, workspace: str = "Working") -> dict:
    return text(f"<environment_details>\n# VSCode Visible Files\nREADME.md\n\n# Current Time\n"
                f"1/1/2026, 8:00:00 AM (Europe/Zurich, UTC+1:00)\n\n# Current {workspace} "
                f"Directory ({cwd}) Files\nREADME.md\nscripts/\n\n# Current Mode\nACT MODE\n"
                "</environment_details>")


IMAGE = {"type": "image", "source": {
    "type": "base64", "media_type": "image/png",
    "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"}}


def cline() -> None:
    cline_xml()
    cline_native()
    cline_focus_chain()
    cline_plain_and_damaged()
    roo()
    kilo()
    cli_session()


def cline_xml() -> None:
    """A task of the releases that wrote tool calls as XML in the text and results as text."""
    folder = CLINE / "tasks" / CLINE_XML
    home = "/home/lin/code/homelab"
    copied = "sending incremental file list\n" + "photos/summer 2025/img_0001.jpg\n" * 300
    history = [
        {"role": "user", "content": [
            text("<task>\nThe nightly backup script in scripts/backup.sh skips files with spaces "
                 "in their names. Fix it.\n</task>"), env(home)]},
        {"role": "assistant", "content": [text(
            "<thinking>\nThe loop probably uses `for f in $(ls)`, which splits on spaces.\n"
            "</thinking>\n\n<read_file>\n<path>scripts/backup.sh</path>\n</read_file>")]},
        {"role": "user", "content": [
            text("[read_file for 'scripts/backup.sh'] Result:"),
            text("#!/bin/sh\nfor f in $(ls /srv/data); do\n  rsync -a /srv/data/$f /mnt/backup/\n"
                 "done\n"), env(home)]},
        {"role": "assistant", "content": [text(
            "Using `find -print0` with `xargs -0` keeps names with spaces whole.\n\n"
            "<replace_in_file>\n<path>scripts/backup.sh</path>\n<diff>\n<<<<<<< SEARCH\n"
            "for f in $(ls /srv/data); do\n=======\nfind /srv/data -type f -print0 | xargs -0 "
            "-I{} rsync -a {} /mnt/backup/\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>")]},
        {"role": "user", "content": [
            text("[replace_in_file for 'scripts/backup.sh'] Result:"),
            text("The content was successfully saved to scripts/backup.sh."), env(home)]},
        {"role": "assistant", "content": [text(
            "<attempt_completion>\n<result>\nThe backup script now pipes find -print0 into "
            "xargs -0, so file names with spaces are copied.\n</result>\n<command>sh "
            "scripts/backup.sh --dry-run</command>\n</attempt_completion>")]},
        {"role": "user", "content": [
            text("[attempt_completion] Result:"),
            text("The user has provided feedback on the results. Consider their input to "
                 "continue the task, and then attempt completion again.\n<feedback>\nAlso log "
                 "how many files were copied to /var/log/backup.log\n</feedback>"), env(home)]},
        {"role": "assistant", "content": [text(
            "<execute_command>\n<command>sh scripts/backup.sh --dry-run</command>\n"
            "<requires_approval>false</requires_approval>\n</execute_command>")]},
        {"role": "user", "content": [
            text("[execute_command for 'sh scripts/backup.sh --dry-run'] Result:"),
            text("Command executed.\nOutput:\n" + copied), env(home)]},
        {"role": "assistant", "content": [text(
            "<attempt_completion>\n<result>\nThe script now counts the copied files and appends "
            "the total to /var/log/backup.log.\n</result>\n</attempt_completion>")]},
        # resumed hours later: the notice and the new instruction in one block, as then
        {"role": "user", "content": [
            text("[TASK RESUMPTION] This task was interrupted 2 hours ago. It may or may not be "
                 "complete, so please reassess the task context. The current working directory "
                 f"is now '{home}'.\n\nNew instructions for task continuation:\n<user_message>\n"
                 "Run it with the quokka flag too\n</user_message>"), env(home)]},
        {"role": "assistant", "content": [text(
            "backup.sh has no quokka flag; the options are --dry-run and --verbose.")]},
    ]
    write(folder / "api_conversation_history.json", history)
    t0 = int(CLINE_XML)

    def ui(offset_s: float, index: int, kind: str, what: str, body: str = "",
           partial: bool | None = None) -> dict:
        item: dict = {"ts": t0 + int(offset_s * 1000), "type": kind, kind: what, "text": body,
                      "conversationHistoryIndex": index}
        if partial is not None:
            item["partial"] = partial
        return item

    ui_messages = [
        ui(0, -1, "say", "task", "The nightly backup script ..."),
        ui(1, 0, "say", "api_req_started", '{"request":"..."}'),
        ui(4, 0, "say", "text", "The loop probably", partial=True),
        ui(4, 0, "say", "text", "The loop probably uses ...", partial=False),
        ui(5, 0, "ask", "tool", '{"tool":"readFile","path":"scripts/backup.sh"}'),
        ui(9, 2, "say", "api_req_started", "{}"),
        ui(15, 2, "ask", "tool", '{"tool":"editedExistingFile"}'),
        ui(30, 4, "say", "api_req_started", "{}"),
        ui(33, 4, "ask", "completion_result", ""),
        ui(60, 6, "say", "user_feedback", "Also log how many files were copied"),
        ui(61, 6, "say", "api_req_started", "{}"),
        ui(90, 8, "say", "api_req_started", "{}"),
        ui(95, 8, "ask", "completion_result", ""),
        ui(7200, 9, "ask", "resume_completed_task"),
        ui(7210, 9, "say", "user_feedback", "Run it with the quokka flag too"),
        ui(7211, 10, "say", "api_req_started", "{}"),
    ]
    write(folder / "ui_messages.json", ui_messages)
    write(folder / "task_metadata.json", {
        "files_in_context": [{"path": "scripts/backup.sh", "record_state": "active",
                              "record_source": "read_tool", "cline_read_date": t0 + 5000,
                              "cline_edit_date": t0 + 15000, "user_edit_date": None}],
        "model_usage": [{"ts": t0 + 1000, "model_id": "claude-sonnet-4-5",
                         "model_provider_id": "anthropic", "mode": "act"}],
        "environment_history": [{"ts": t0, "os_name": "linux", "os_version": "6.8",
                                 "os_arch": "x64", "host_name": "Visual Studio Code",
                                 "host_version": "1.96.0", "cline_version": "3.17.0"}]}, indent=2)
    write(folder / "context_history.json", [[2, [0, [[0, [[t0 + 9000, 0, "[[NOTE] ...]", []]]]]]]])


def cline_native() -> None:
    """A task of current releases: native tool calls, a time on every message."""
    folder = CLINE / "tasks" / CLINE_NATIVE
    cwd = "/home/lin/code/ledger"
    t0 = int(CLINE_NATIVE)
    model = {"modelInfo": {"providerId": "anthropic", "modelId": "claude-sonnet-4-5",
                           "mode": "act"}}
    dots = "." * 2400
    history = [
        {"role": "user", "ts": t0 + 100, "content": [
            text("<task>\nThe CSV export in ledger/export.py writes amounts like 1e-05. Why, and "
                 "can you fix it?\n</task>"), IMAGE, env(cwd)]},
        {"role": "assistant", "ts": t0 + 4000, "id": "msg_01Kx", **model, "content": [
            {"type": "thinking", "thinking": "float repr switches to scientific notation below "
                                             "1e-4.", "signature": "EqQBCkgIARABGAIiQL"},
            text("Let me look at the export code."),
            {"type": "tool_use", "id": "toolu_01Read", "name": "read_file",
             "input": {"path": "ledger/export.py"}}]},
        {"role": "user", "ts": t0 + 4500, "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01Read", "call_id": "call_1",
             "content": "[read_file for 'ledger/export.py'] Result:\ndef row(entry):\n"
                        "    return f\"{entry.date},{entry.amount}\"\n"}, env(cwd)]},
        {"role": "assistant", "ts": t0 + 9000, "id": "msg_02Ab", **model, "content": [
            text("The amount is a float, and str(float) gives 1e-05 for small values."),
            {"type": "tool_use", "id": "toolu_02Ask", "name": "ask_followup_question",
             "input": {"question": "Should amounts always have two decimals, or the currency's "
                                   "own precision?",
                       "options": ["Two decimals", "Currency precision"]}}]},
        {"role": "user", "ts": t0 + 30000, "content": [
            {"type": "tool_result", "tool_use_id": "toolu_02Ask",
             "content": "<answer>\nCurrency precision, JPY has none\n</answer>"}, env(cwd)]},
        {"role": "assistant", "ts": t0 + 35000, "id": "msg_03Cd", **model, "content": [
            {"type": "tool_use", "id": "toolu_03Run", "name": "execute_command",
             "input": {"command": "pytest tests/test_export.py -q", "requires_approval": False}}]},
        {"role": "user", "ts": t0 + 41000, "content": [
            {"type": "tool_result", "tool_use_id": "toolu_03Run", "is_error": False, "content": [
                text(f"Command executed.\nOutput:\n{dots}\n2 failed, 40 passed in 1.2s")]},
            env(cwd)]},
        {"role": "assistant", "ts": t0 + 50000, "id": "msg_04Ef", **model, "content": [
            {"type": "x_citation", "cited": "ledger/export.py"},
            {"type": "tool_use", "id": "toolu_04Done", "name": "attempt_completion",
             "input": {"result": "export.py now formats amounts with Decimal.quantize to the "
                                 "currency's precision (JPY: no decimals), so 1e-05 is gone."}}]},
        {"role": "user", "ts": t0 + 70000, "content": [
            {"type": "tool_result", "tool_use_id": "toolu_04Done", "content": [
                text("The user has provided feedback on the results. Consider their input to "
                     "continue the task, and then attempt completion again.\n<feedback>\n"
                     "Looks right. Add a changelog line, codename pelican\n</feedback>")]},
            env(cwd)]},
        {"role": "assistant", "ts": t0 + 75000, "id": "msg_05Gh", **model, "content": [
            text("Added 'Fixed: CSV amounts no longer use scientific notation' to CHANGELOG.md.")]},
    ]
    write(folder / "api_conversation_history.json", history)  # no ui_messages.json beside it
    write(folder / "task_metadata.json", {"files_in_context": [], "model_usage": [],
                                          "environment_history": []}, indent=2)
    write(folder / "settings.json", {"mode": "act", "planActSeparateModelsSetting": False},
          indent=2)
    write(CLINE / "state" / "taskHistory.json", [
        {"id": CLINE_XML, "ulid": "01JGF6Z0K3ZQ7X9V2M4N6P8R0T", "ts": int(CLINE_XML) + 7_300_000,
         "task": "The nightly backup script in scripts/backup.sh skips files with spaces in their "
                 "names. Fix it.", "tokensIn": 18234, "tokensOut": 1211, "totalCost": 0.07,
         "size": 48213, "cwdOnTaskInitialization": "/home/lin/code/homelab",
         "modelId": "claude-sonnet-4-5"},
        {"id": CLINE_NATIVE, "ts": t0 + 75000,
         "task": "The CSV export in ledger/export.py writes amounts like 1e-05. Why, and can you "
                 "fix it?", "tokensIn": 9120, "tokensOut": 611, "totalCost": 0.03,
         "cwdOnTaskInitialization": cwd, "isFavorited": True},
    ])


# What Cline writes into the user's turn on its own (cline/cline at f3a3f30db5bd, 2026-03-24):
# src/core/task/focus-chain/index.ts generateFocusChainInstructions and prompts.ts, pushed as a
# text block after the user's content and before the environment details (task/index.ts
# loadContext); the feedback wrapper of tools/handlers/AttemptCompletionHandler.ts, a block of
# its own after "[attempt_completion] Result: Done"; formatResponse.noToolsUsed of
# prompts/responses.ts.
FOCUS_RECOMMENDED = """
# task_progress RECOMMENDED

When starting a new task, it is recommended to include a todo list using the task_progress parameter.


1. Include a todo list using the task_progress parameter in your next tool call
2. Create a comprehensive checklist of all steps needed
3. Use markdown format: - [ ] for incomplete, - [x] for complete
"""
CHECKLIST = "- [x] Find where empty lines are dropped\n- [ ] Keep empty lines in the output"
FOCUS_UPDATE = f"""\n
\t\t\t\t# TODO LIST UPDATE REQUIRED - You MUST include the task_progress parameter in your NEXT tool call.\n
\t\t\t\t**Current Progress: 1/2 items completed (50%)**\n
\t\t\t\t{CHECKLIST}\n
\t\t\t\t\n
\t\t\t\t
1. To create or update a todo list, include the task_progress parameter in the next tool call
2. Review each item and update its status:
   - Mark completed items with: - [x]
   - Keep incomplete items as: - [ ]
\n
\t\t\t\t\n\n**Note:** 50% of items are complete. Proceed with the task.\n
\t\t\t\t"""
FEEDBACK_WRAPPER = ("The user has provided feedback on the results. Consider their input to "
                    "continue the task, and then attempt completion again.")
NO_TOOLS_USED = ("[ERROR] You did not use a tool in your previous response! Please retry with a "
                 "tool use.\n\n# Next Steps\n\nIf you have completed the user's task, use the "
                 "attempt_completion tool. \n(This is an automated message, so do not respond to "
                 "it conversationally.)")


def cline_focus_chain() -> None:
    """A task of current releases with the focus chain on: its reminders, the feedback wrapper
    in a block of its own, screenshots sent without words (as an answer, as feedback on a
    completion), and a turn holding nothing of the user's."""
    folder = CLINE / "tasks" / CLINE_FOCUS
    cwd = "/home/lin/code/csvtool"
    t0 = int(CLINE_FOCUS)

    def done(call: str, *after: dict) -> dict:
        return {"type": "tool_result", "tool_use_id": call,
                "content": [text("[attempt_completion] Result: Done"), *after]}

    def complete(call: str, result: str) -> dict:
        return {"type": "tool_use", "id": call, "name": "attempt_completion",
                "input": {"result": result, "task_progress": CHECKLIST}}

    history = [
        {"role": "user", "ts": t0 + 100, "content": [
            text("<task>\ncsvtool drops empty lines from the input; keep them\n</task>"),
            text(FOCUS_RECOMMENDED), env(cwd)]},
        {"role": "assistant", "ts": t0 + 5000, "content": [
            text("The reader skips blank rows in csvtool/read.py; I changed it to keep them."),
            complete("toolu_f1", "Blank rows are kept now.")]},
        {"role": "user", "ts": t0 + 60000, "content": [
            done("toolu_f1", text(FEEDBACK_WRAPPER),
                 text("<feedback>\nAlso the trailing one, codename kestrel\n</feedback>")),
            text(FOCUS_UPDATE), env(cwd)]},
        {"role": "assistant", "ts": t0 + 65000, "content": [
            text("Looking at the trailing newline.")]},
        # no tool in the reply: Cline answers for the user, with nothing of the user's
        {"role": "user", "ts": t0 + 66000, "content": [
            text(NO_TOOLS_USED), text(FOCUS_UPDATE), env(cwd)]},
        {"role": "assistant", "ts": t0 + 70000, "content": [
            {"type": "tool_use", "id": "toolu_f2", "name": "ask_followup_question",
             "input": {"question": "Which output shows it: can you send a screenshot?"}}]},
        # the answer is a screenshot alone (AskFollowupQuestionToolHandler: `<answer>` of the
        # empty text, then the images)
        {"role": "user", "ts": t0 + 90000, "content": [
            {"type": "tool_result", "tool_use_id": "toolu_f2",
             "content": [text("<answer>\n\n</answer>"), IMAGE]}, env(cwd)]},
        {"role": "assistant", "ts": t0 + 95000, "content": [
            complete("toolu_f3", "The trailing blank row is kept as well.")]},
        # feedback on the completion that is a screenshot alone: no wrapper, no <feedback>
        {"role": "user", "ts": t0 + 120000, "content": [done("toolu_f3", IMAGE), env(cwd)]},
        {"role": "assistant", "ts": t0 + 125000, "content": [
            text("The screenshot shows the header row doubled; fixed in write.py.")]},
        # a turn of screenshots alone (resumed with images and no words)
        {"role": "user", "ts": t0 + 200000, "content": [IMAGE, IMAGE, env(cwd)]},
        {"role": "assistant", "ts": t0 + 205000, "content": [
            text("Both screenshots show the fixed output.")]},
    ]
    write(folder / "api_conversation_history.json", history)


def cline_plain_and_damaged() -> None:
    """A task with no message times, no ui_messages.json and no history entry; a torn write."""
    plain = CLINE / "tasks" / CLINE_PLAIN
    write(plain / "api_conversation_history.json", [
        {"role": "user", "content": [
            text("<task>\nExplain what the `trap` line in scripts/deploy.sh does\n</task>"),
            env("/home/lin/code/infra")]},
        {"role": "assistant", "content": "It removes the lock file when the script exits, even on "
                                         "Ctrl-C: `trap 'rm -f /tmp/deploy.lock' EXIT INT TERM`."},
    ])
    damaged = CLINE / "tasks" / CLINE_DAMAGED
    damaged.mkdir(parents=True, exist_ok=True)
    (damaged / "api_conversation_history.json").write_text(
        '[{"role":"user","content":[{"type":"text","text":"<task>\\nRename the ledger', "utf-8")
    write(damaged / "ui_messages.json", [{"ts": int(CLINE_DAMAGED), "type": "say", "say": "task",
                                          "text": "Rename the ledger"}])


def roo() -> None:
    folder = ROO / "tasks" / ROO_TASK
    cwd = "/Users/lin/src/todo-cli"
    t0 = 1773151200000

    def ts(seconds: int) -> int:
        return t0 + seconds * 1000

    history = [
        {"role": "user", "ts": ts(1), "condenseParent": "c1", "content": [
            text("<user_message>\nAdd a --json flag to the `todo list` command\n</user_message>"),
            env(cwd, "Workspace")]},
        {"role": "assistant", "ts": ts(5), "condenseParent": "c1", "content": [
            {"type": "reasoning", "text": "The CLI uses argparse; add a flag and print json.dumps.",
             "summary": []},
            text("I'll read the CLI module first."),
            {"type": "tool_use", "id": "call_r1", "name": "read_file",
             "input": {"path": "todo/cli.py"}}]},
        {"role": "user", "ts": ts(6), "condenseParent": "c1", "content": [
            {"type": "tool_result", "tool_use_id": "call_r1", "content": [
                text("File: todo/cli.py\n 1 | import argparse\n"
                     " 2 | parser = argparse.ArgumentParser()")]},
            env(cwd, "Workspace")]},
        {"type": "reasoning", "id": "rs_01", "ts": ts(7), "condenseParent": "c1",
         "encrypted_content": "gAAAAABn-encrypted",
         "summary": [{"type": "summary_text", "text": "Plan: add --json to the list subparser."}]},
        {"role": "assistant", "ts": ts(9), "condenseParent": "c1", "content": [
            {"type": "tool_use", "id": "call_r2", "name": "apply_diff", "input": {
                "path": "todo/cli.py",
                "diff": "<<<<<<< SEARCH\nlist_parser = sub.add_parser('list')\n=======\n"
                        "list_parser = sub.add_parser('list')\nlist_parser.add_argument('--json', "
                        "action='store_true')\n>>>>>>> REPLACE"}}]},
        {"role": "user", "ts": ts(10), "condenseParent": "c1", "content": [
            {"type": "tool_result", "tool_use_id": "call_r2",
             "content": "Changes successfully applied to todo/cli.py"}, env(cwd, "Workspace")]},
        {"role": "user", "ts": ts(11), "isSummary": True, "condenseId": "c1", "content": [
            text("## Conversation Summary\nThe user asked for a --json flag on `todo list`; "
                 "todo/cli.py now has it (store_true, prints json.dumps of the items).")]},
        {"role": "user", "ts": ts(11) + 1, "isTruncationMarker": True, "truncationId": "t1",
         "content": "[Sliding window truncation: 2 messages hidden to reduce context]"},
        {"role": "user", "ts": ts(3600), "content": [
            text("[TASK RESUMPTION] Resuming task..."),
            text("<user_message>\nAlso document the flag in README.md\n</user_message>"),
            env(cwd, "Workspace")]},
        {"role": "assistant", "ts": ts(3605), "id": "resp_9", "content": [
            {"type": "thoughtSignature", "thoughtSignature": "CiQB0e2Kb"},
            {"type": "tool_use", "id": "call_r3", "name": "attempt_completion",
             "input": {"result": "Documented `todo list --json` in README.md under Usage."}}]},
    ]
    write(folder / "api_conversation_history.json", history)
    write(folder / "ui_messages.json", [
        {"ts": ts(1), "type": "say", "say": "text", "text": "Add a --json flag ...", "images": []},
        {"ts": ts(3605), "type": "say", "say": "completion_result", "text": "Documented ..."}])
    item = {"id": ROO_TASK, "number": 3, "ts": ts(3605),
            "task": "Add a --json flag to the `todo list` command", "tokensIn": 5120,
            "tokensOut": 380, "totalCost": 0.02, "size": 9000, "workspace": cwd, "mode": "code",
            "status": "completed"}
    write(folder / "history_item.json", item)
    write(ROO / "tasks" / "_index.json", {"version": 1, "updatedAt": ts(3606), "entries": [item]})


def kilo() -> None:
    folder = KILO / "tasks" / KILO_TASK
    cwd = "C:/Users/lin/projects/shop"
    t0 = 1773300600000
    history = [
        {"role": "user", "ts": t0 + 2000, "content": [
            text("<task>\nWhy is the cart total off by one cent?\n</task>"),
            env(cwd, "Workspace")]},
        {"role": "assistant", "ts": t0 + 8000, "content": [
            text("<thinking>Each line item is rounded before summing.</thinking>\nThe rounding "
                 "happens per line."),
            {"type": "tool_use", "id": "toolu_k1", "name": "attempt_completion",
             "input": {"result": "Each line item is rounded before summing; round once at the "
                                 "end in cart.py total()."}}]},
        {"role": "user", "ts": t0 + 60000, "content": [
            {"type": "tool_result", "tool_use_id": "toolu_k1", "content": [
                text("<feedback>\nShow me the fix as a diff, codename heron\n</feedback>"), IMAGE]},
            env(cwd, "Workspace")]},
        {"role": "assistant", "ts": t0 + 64000, "content": [text(
            "```diff\n- total = sum(round(i.price * i.qty, 2) for i in items)\n+ total = "
            "round(sum(i.price * i.qty for i in items), 2)\n```")]},
    ]
    write(folder / "api_conversation_history.json", history)
    write(folder / "ui_messages.json", [{"ts": t0 + 2000, "type": "say", "say": "text",
                                         "text": "Why is the cart total off by one cent?"}])
    write(folder / "task_metadata.json", {"files_in_context": [], "model_usage": [],
                                          "environment_history": []}, indent=2)


def cli_session() -> None:
    folder = SESSIONS / SDK_SESSION
    t0 = 1773300000000
    messages = [
        {"id": "msg_u1", "role": "user", "ts": t0 + 1000, "content": [
            text('<user_input mode="act">Find where the retry budget for the payments client '
                 "is set</user_input>"),
            {"type": "file", "path": "/home/lin/code/payments/config.yaml",
             "content": "retries: 3\ntimeout_s: 10\n"}]},
        {"id": "msg_a1", "role": "assistant", "ts": t0 + 4000,
         "modelInfo": {"id": "claude-sonnet-4-6", "provider": "anthropic"}, "content": [
             {"type": "thinking", "thinking": "Search for RETRY_BUDGET first."},
             {"type": "tool_use", "id": "toolu_s1", "name": "search_codebase",
              "input": {"query": "RETRY_BUDGET"}}]},
        {"id": "msg_u2", "role": "user", "ts": t0 + 4500, "content": [
            {"type": "tool_result", "tool_use_id": "toolu_s1", "name": "search_codebase",
             "content": "payments/client.py:18: RETRY_BUDGET = 3", "is_error": False}]},
        {"id": "msg_a2", "role": "assistant", "ts": t0 + 6000, "content": [
            {"type": "tool_use", "id": "toolu_s2", "name": "spawn_agent",
             "input": {"task": "Check deploy/ for overrides of RETRY_BUDGET"}}]},
        {"id": "msg_u3", "role": "user", "ts": t0 + 20000, "content": [
            {"type": "tool_result", "tool_use_id": "toolu_s2", "name": "spawn_agent",
             "content": "deploy/prod.env overrides it: RETRY_BUDGET=5"}]},
        {"id": "msg_u4", "role": "user", "ts": t0 + 90000, "metadata": {"kind": "compaction"},
         "content": [
             text("<mode_notice>The user switched from act mode to plan mode before sending this "
                  'message.</mode_notice><user_input mode="plan">Which one wins in production, '
                  "the config file or the env?</user_input>"),
             text("<SYSTEM_NOTICE>\nEarlier context was compacted. Summary of your actions after "
                  "the request above:\nFiles read:\npayments/client.py\n</SYSTEM_NOTICE>")]},
        {"id": "msg_a3", "role": "assistant", "ts": t0 + 95000,
         "metrics": {"inputTokens": 2100, "outputTokens": 120, "cacheReadTokens": 0,
                     "cacheWriteTokens": 0, "cost": 0.01},
         "content": [text("In production deploy/prod.env wins: RETRY_BUDGET=5 overrides the "
                          "default of 3 in client.py.")]},
        {"id": "msg_u5", "role": "user", "ts": t0 + 120000, "content": [
            text('<user_command slash="explain-changes">payments client</user_command>')]},
        {"id": "msg_a4", "role": "assistant", "ts": t0 + 130000, "content": [
            {"type": "tool_use", "id": "toolu_s3", "name": "submit_and_exit",
             "input": {"summary": "No changes were made; the budget is 3 in code and 5 in prod.",
                       "verified": True}}]},
    ]
    write(folder / f"{SDK_SESSION}.messages.json", {
        "version": 1, "updated_at": "2026-03-12T07:22:10.000Z", "agent": "lead",
        "sessionId": SDK_SESSION, "origin": {"source": "cli"}, "messages": messages}, indent=2)
    write(folder / f"{SDK_SESSION}.json", {
        "version": 1, "session_id": SDK_SESSION, "source": "cli", "pid": 4242,
        "started_at": "2026-03-12T07:20:00.000Z", "ended_at": "2026-03-12T07:22:10.000Z",
        "exit_code": 0, "status": "completed", "interactive": True, "provider": "anthropic",
        "model": "claude-sonnet-4-6", "cwd": "/home/lin/code/payments",
        "workspace_root": "/home/lin/code/payments", "enable_tools": True, "enable_spawn": True,
        "enable_teams": False,
        "metadata": {"title": "Retry budget of the payments client", "mode": "act"},
        "messages_path": f"/home/lin/.cline/data/sessions/{SDK_SESSION}/"
                         f"{SDK_SESSION}.messages.json"},
        indent=2)
    write(folder / "agent_7f3a.messages.json", {
        "version": 1, "updated_at": "2026-03-12T07:20:20.000Z", "agent": "subagent",
        "sessionId": f"{SDK_SESSION}__agent_7f3a", "taskType": "subagent_task", "messages": [
            {"id": "s1", "role": "user", "content": [text("Check deploy/ for overrides")]},
            {"id": "s2", "role": "assistant", "ts": t0 + 19000,
             "content": [text("deploy/prod.env overrides it: RETRY_BUDGET=5")]}]}, indent=2)
    write(folder / f"{SDK_SESSION}.compaction.json", {
        "version": 1, "updated_at": "2026-03-12T07:21:30.000Z", "source_message_count": 5,
        "messages": [{"role": "user", "content": "Find where the retry budget ... (compacted)"}]},
        indent=2)


if __name__ == "__main__":
    cline()
