"""GitHub Copilot's fixtures; generate.py runs them with the rest.

copilot/vscode/   what ~/.config holds for VS Code (`Code/User/...`): a workspace whose
                  workspace.json names the folder, with a chat written whole (.json, VS Code
                  before 1.109), a chat written as an operation log (.jsonl: sets, pushes,
                  splices, a delete, an unknown entry, a torn last line) and the stale .json copy
                  beside it; an empty window's chats: one from an early release (no version,
                  string prompts) and one without requests
copilot/cli/      what ~/.copilot holds for the Copilot CLI: a session's events.jsonl (rewind,
                  sub-agent, reasoning, duplicated tool starts, large output, compaction, an
                  unknown event, a torn last line), a session-state/<id>.jsonl of an early
                  release, and a history-session-state/session_<id>_<time>.json of the releases
                  before the event log (its timeline and the model's chatMessages)
copilot/export/   a chat saved by VS Code's "Chat: Export Chat..." (chat.json, its default name):
                  no session id; a screenshot pasted alone as the first prompt
"""

from __future__ import annotations

import json
from datetime import datetime

from fixture_io import HERE, dump, write_lines

VSCODE_JSON = "3b9f7c1e-5a2d-4e8f-9c61-7d0e2f4a6b8c"
VSCODE_LOG = "8d2e4a6c-1f3b-4c5d-8e7f-9a0b1c2d3e4f"
VSCODE_OLD = "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f"
VSCODE_EMPTY = "f0e1d2c3-b4a5-4968-8776-655443322110"
CLI_MAIN = "4f8a2c6e-0b1d-4e3f-a5c7-9e1b3d5f7a9c"
CLI_EARLY = "a7c9e1b3-5d7f-4a2c-8e4b-6d8f0a2c4e6a"
WORKSPACE_HASH = "5c2e9a7f1b3d4e6a8c0f2b4d6e8a0c1e"


def ms(iso: str) -> int:
    """Epoch milliseconds, as VS Code stores times."""
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


def markdown(text: str) -> dict:
    """An IMarkdownString, as a markdownContent part is serialized (without its kind)."""
    return {"value": text, "supportThemeIcons": False, "supportHtml": False}


def uri(path: str) -> dict:
    return {"$mid": 1, "fsPath": path, "external": f"file://{path}", "path": path, "scheme": "file"}


def request(request_id: str, at: str, text: str, response: list, done: str | None,
            state: int = 1, **extra: object) -> dict:
    """One ISerializableChatRequestData, as ChatModel.toJSON writes it."""
    model_state: dict = {"value": state}
    if done:
        model_state["completedAt"] = ms(done)
    return {"requestId": request_id, "message": {"text": text, "parts": [
        {"range": {"start": 0, "endExclusive": len(text)}, "text": text, "kind": "text"}]},
        "variableData": {"variables": []}, "response": response,
        "responseId": f"response_{request_id[8:]}", "result": {"timings": {"totalElapsed": 4200}},
        "followups": [], "modelState": model_state, "contentReferences": [], "codeCitations": [],
        "timestamp": ms(at), "modelId": "copilot/gpt-4.1",
        "agent": {"id": "github.copilot.editsAgent", "name": "agent"}, **extra}


def read_file_tool(call_id: str, path: str, output: str) -> dict:
    return {"kind": "toolInvocationSerialized", "toolId": "copilot_readFile", "toolCallId": call_id,
            "invocationMessage": markdown(f"Reading [](file://{path})"),
            "pastTenseMessage": markdown(f"Read [](file://{path})"), "isConfirmed": {"type": 1},
            "isComplete": True, "source": {"type": "internal", "label": "Built-In"},
            "resultDetails": {"input": json.dumps({"filePath": path, "startLine": 1, "endLine": 80}),
                              "output": [{"type": "embed", "isText": True, "value": output}]}}


def session(session_id: str, created: str, requests: list, **extra: object) -> dict:
    return {"version": 3, "responderUsername": "GitHub Copilot", "initialLocation": "panel",
            "requests": requests, "sessionId": session_id, "creationDate": ms(created), **extra}


def copilot() -> None:
    vscode()
    export()
    cli()
    history()


# VS Code ------------------------------------------------------------------------------------

def vscode() -> None:
    user = HERE / "copilot" / "vscode" / "Code" / "User"
    storage = user / "workspaceStorage" / WORKSPACE_HASH
    storage.mkdir(parents=True, exist_ok=True)
    (storage / "workspace.json").write_text(
        json.dumps({"folder": "file:///home/lin/code/ledger"}, indent=2), "utf-8")
    chats = storage / "chatSessions"
    chats.mkdir(exist_ok=True)
    (chats / f"{VSCODE_JSON}.json").write_text(dump(whole_chat()), "utf-8")
    initial, changes = operation_log()
    write_lines(chats / f"{VSCODE_LOG}.jsonl", [initial, *changes],
                torn='{"kind":1,"k":["requests",1,"modelSta')
    # the copy VS Code wrote before it switched this chat to the log; it reads the log instead
    stale = json.loads(json.dumps(initial["v"]))
    stale["requests"] = [request("request_stale", "2026-04-03T08:00:00Z",
                                 "an earlier draft of the question about a zebra", [], None)]
    (chats / f"{VSCODE_LOG}.json").write_text(dump(stale), "utf-8")

    empty_window = user / "globalStorage" / "emptyWindowChatSessions"
    empty_window.mkdir(parents=True, exist_ok=True)
    (empty_window / f"{VSCODE_OLD}.json").write_text(dump(early_chat()), "utf-8")
    (empty_window / f"{VSCODE_EMPTY}.json").write_text(
        dump(session(VSCODE_EMPTY, "2026-04-05T10:00:00Z", [])), "utf-8")


def whole_chat() -> dict:
    """A chat as VS Code before 1.109 wrote it: tools, thinking, a cancelled and an undone request."""
    test_output = "============ test session starts ============\n" + "".join(
        f"tests/test_export.py::test_row_{n} PASSED\n" for n in range(400)) + "48 passed in 2.31s"
    first = request("request_a1", "2026-04-02T09:15:00Z",
                    "Why does the CSV export print large amounts in scientific notation?", [
                        {"kind": "thinking", "value": "The writer probably calls str() on a float.",
                         "id": "thinking_0"},
                        read_file_tool("call_read", "/home/lin/code/ledger/src/ledger/export.py",
                                       "def write_row(row):\n    out.append(str(row.amount))"),
                        markdown("The exporter calls `str()` on a float in "),
                        {"kind": "inlineReference", "inlineReference": {
                            "uri": uri("/home/lin/code/ledger/src/ledger/export.py"),
                            "range": {"startLineNumber": 2, "startColumn": 1, "endLineNumber": 2,
                                      "endColumn": 30}}},
                        markdown(", so 12500000.0 prints as 1.25e+07. I format it with two decimals."),
                        {"kind": "codeblockUri", "uri": uri("/home/lin/code/ledger/src/ledger/export.py"),
                         "isEdit": True},
                        {"kind": "textEditGroup", "uri": uri("/home/lin/code/ledger/src/ledger/export.py"),
                         "edits": [[{"range": {"startLineNumber": 2, "startColumn": 5, "endLineNumber": 2,
                                               "endColumn": 34}, "text": "out.append(f\"{row.amount:.2f}\")"}]],
                         "done": True},
                        {"kind": "undoStop", "id": "stop_1"},
                    ], "2026-04-02T09:15:20Z")
    tests = request("request_a2", "2026-04-02T09:16:00Z", "Run the export tests.", [
        {"kind": "toolInvocationSerialized", "toolId": "run_in_terminal", "toolCallId": "call_term",
         "invocationMessage": markdown("Running `pytest -q tests/test_export.py`"),
         "pastTenseMessage": markdown("Ran `pytest -q tests/test_export.py`"),
         "isConfirmed": {"type": 4}, "isComplete": True,
         "toolSpecificData": {"kind": "terminal", "language": "sh",
                              "commandLine": {"original": "pytest -q tests/test_export.py"},
                              "terminalCommandOutput": {"text": test_output, "lineCount": 402},
                              "terminalCommandState": {"exitCode": 0, "duration": 2310}}},
        markdown("All 48 export tests pass."),
    ], "2026-04-02T09:16:30Z")
    cancelled = request("request_a3", "2026-04-02T09:17:00Z",
                        "Also switch the PDF export to Decimal.", [], "2026-04-02T09:17:02Z",
                        state=2)
    undone = request("request_a4", "2026-04-02T09:18:00Z", "Delete the narwhal exporter too.",
                     [markdown("Deleted src/ledger/narwhal.py.")], "2026-04-02T09:18:10Z",
                     shouldBeRemovedOnSend={"requestId": "request_a4"})
    return session(VSCODE_JSON, "2026-04-02T09:14:30Z", [first, tests, cancelled, undone],
                   customTitle="CSV amounts in scientific notation", requesterUsername="lin",
                   isImported=False, lastMessageDate=ms("2026-04-02T09:18:10Z"))


def operation_log() -> tuple[dict, list[dict]]:
    """A chat as VS Code 1.109 and later writes it: the state, then the changes to it."""
    initial = {"kind": 0, "v": session(
        VSCODE_LOG, "2026-04-03T08:00:00Z", [], inputState={
            "attachments": [], "mode": {"id": "agent", "kind": "agent"}, "inputText": "",
            "selections": [], "contrib": {}}, hasPendingEdits=False, pendingRequests=[])}
    question = "How are foreign-currency invoices rounded before they are converted to CHF?"
    asked = request("request_b1", "2026-04-03T08:01:00Z", question, [], None, state=0)
    big = "RATES = {'EUR': 0.94, 'USD': 0.88}  # refreshed by hand\n" * 60
    answer_start = markdown("Rounding happens in `fx.py`")
    answer_full = markdown("Rounding happens in `fx.py`: amounts are rounded half-even to the "
                           "rappen after conversion.")
    changes = [
        {"kind": 2, "k": ["requests"], "v": [asked]},
        {"kind": 2, "k": ["requests", 0, "response"], "v": [
            {"kind": "thinking", "value": ["Look for ", "the conversion helper."]}]},
        {"kind": 2, "k": ["requests", 0, "response"], "v": [
            read_file_tool("call_fx", "/home/lin/code/ledger/src/ledger/fx.py", big), answer_start]},
        # the streamed markdown grew: VS Code rewrites the array from the changed part on (a splice)
        {"kind": 2, "k": ["requests", 0, "response"], "v": [answer_full], "i": 2},
        {"kind": 1, "k": ["requests", 0, "modelState"],
         "v": {"value": 1, "completedAt": ms("2026-04-03T08:01:40Z")}},
        {"kind": 1, "k": ["customTitle"], "v": "FX rounding before CHF conversion"},
        {"kind": 3, "k": ["inputState"]},
        {"kind": 2, "k": ["requests"], "v": [request(
            "request_b2", "2026-04-03T08:03:00Z", "Show the heron rates too.", [], None, state=0)]},
        # that request was removed again (the array cut back to one request), then another asked
        {"kind": 2, "k": ["requests"], "i": 1},
        {"kind": 2, "k": ["requests"], "v": [request(
            "request_b3", "2026-04-03T08:04:00Z", "Is there a test for the half-even rule?", [],
            None, state=0)]},
        {"kind": 2, "k": ["requests", 1, "response"], "v": [
            {"kind": "toolInvocationSerialized", "toolId": "copilot_findFiles",
             "toolCallId": "call_find", "invocationMessage": "Searching for test_fx*",
             "pastTenseMessage": "Searched for test_fx*", "isConfirmed": {"type": 1},
             "isComplete": True, "resultDetails": {"input": "{\"query\": \"**/test_fx*.py\"}",
                                                   "output": [], "isError": True}},
            markdown("No: nothing tests it yet.")]},
        {"kind": 9, "k": ["requests", 1, "futureField"], "v": True},  # a kind this reader lacks
        {"kind": 1, "k": ["requests", 1, "modelState"],
         "v": {"value": 1, "completedAt": ms("2026-04-03T08:04:30Z")}},
        {"kind": 1, "k": ["requests", 7, "vote"], "v": 1},  # a path that leads nowhere
    ]
    return initial, changes


def early_chat() -> dict:
    """An empty window's chat from an early release: no version, string prompts, isCanceled."""
    return {"requesterUsername": "lin", "responderUsername": "GitHub Copilot",
            "welcomeMessage": [], "sessionId": VSCODE_OLD, "creationDate": ms("2024-11-20T16:00:00Z"),
            "isImported": False, "requests": [
                {"message": "What does git rebase --onto do?",
                 "response": [{"value": "It replays the commits after the second argument onto "
                                        "the first one.", "isTrusted": False}],
                 "isCanceled": False, "followups": [], "vote": None,
                 "variableData": {"variables": []}}]}


def export() -> None:
    """A chat as "Chat: Export Chat..." saves it: `IExportableChatData` (chatModel.ts:
    initialLocation, requests, requesterUsername and responderUsername with their avatars; no
    sessionId, no creationDate). The first prompt is a pasted screenshot and no text: an image
    variable as chatVariableEntries.ts `IImageVariableEntry` has it (kind `image`, isPasted,
    mimeType; its bytes, a Uint8Array, serialize as an object of numbered bytes)."""
    screenshot = {"kind": "image", "id": "image_0", "name": "Pasted Image", "isPasted": True,
                  "mimeType": "image/png", "value": {"0": 137, "1": 80, "2": 78, "3": 71}}
    first = request("request_e1", "2026-04-06T15:00:00Z", "", [
        markdown("The stack trace in your screenshot ends in `parse_amount`: the CSV has a "
                 "thousands separator (`1'250.00`) that `Decimal()` rejects."),
    ], "2026-04-06T15:00:12Z")
    first["variableData"] = {"variables": [screenshot]}
    second = request("request_e2", "2026-04-06T15:01:00Z",
                     "Strip the apostrophe separator before parsing.", [
                         markdown("Done: `parse_amount` now removes `'` before `Decimal()`."),
                     ], "2026-04-06T15:01:20Z")
    chat = {"initialLocation": "panel", "requests": [first, second], "requesterUsername": "lin",
            "requesterAvatarIconUri": {"$mid": 1, "path": "/u/1", "scheme": "https",
                                       "authority": "avatars.githubusercontent.com"},
            "responderUsername": "GitHub Copilot",
            "responderAvatarIconUri": {"id": "copilot"}}
    path = HERE / "copilot" / "export" / "chat.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(chat, indent=2), "utf-8")  # as VS Code writes it: indented


# Copilot CLI --------------------------------------------------------------------------------

def cli() -> None:
    root = HERE / "copilot" / "cli" / "session-state"
    cwd = "/home/lin/code/infra"
    counter = [0]
    previous: list[str | None] = [None]

    def event(kind: str, ts: str, data: dict, **extra: object) -> dict:
        counter[0] += 1
        own = f"e{counter[0]:04d}-0000-4000-8000-000000000000"
        line = {"type": kind, "data": data, "id": own, "timestamp": f"2026-04-10T{ts}Z",
                "parentId": previous[0], **extra}
        previous[0] = own
        return line

    plan = "terraform plan\n" + "  # aws_s3_bucket.logs will be updated in-place\n" * 300
    events = [
        event("session.start", "14:00:00.000", {
            "sessionId": CLI_MAIN, "version": 1, "producer": "copilot-agent",
            "copilotVersion": "1.0.80", "startTime": "2026-04-10T14:00:00.000Z",
            "context": {"cwd": cwd, "gitRoot": cwd, "branch": "main", "repository": "lin/infra"}}),
        event("session.model_change", "14:00:00.100", {"newModel": "claude-sonnet-4.5"}),
        event("user.message", "14:00:05.000", {
            "content": "Why does terraform want to update the logs bucket on every plan?",
            "transformedContent": "<current_datetime>2026-04-10T14:00:05Z</current_datetime>\n"
                                  "Why does terraform want to update the logs bucket on every plan?",
            "attachments": []}),
        event("assistant.turn_start", "14:00:05.100", {"turnId": "0"}),
        event("assistant.reasoning", "14:00:06.000", {
            "reasoningId": "r1", "content": "A perpetual diff usually means a computed attribute."}),
        event("assistant.message", "14:00:07.000", {
            "messageId": "m1", "content": "Let me look at the plan.",
            "toolRequests": [{"toolCallId": "tool_plan", "name": "bash",
                              "arguments": {"command": "terraform plan -no-color",
                                            "description": "Show the plan"}}]}),
        event("tool.execution_start", "14:00:07.100", {
            "toolCallId": "tool_plan", "toolName": "bash",
            "arguments": {"command": "terraform plan -no-color", "description": "Show the plan"}}),
        event("tool.execution_complete", "14:00:19.000", {
            "toolCallId": "tool_plan", "success": True,
            "result": {"content": plan, "detailedContent": plan}}),
        # a sub-agent's own conversation: its work reaches the main one as a tool result
        event("subagent.started", "14:00:20.000", {"toolCallId": "tool_task", "agentName": "explore"}),
        event("assistant.message", "14:00:21.000", {"messageId": "sub1", "content": "Searching modules/"},
              agentId="agent-explore-1"),
        event("assistant.message", "14:00:30.000", {
            "messageId": "m2", "content": "The bucket's `lifecycle_rule` is written in the old "
                                          "inline form, which the AWS provider reads back as a change. "
                                          "Move it to aws_s3_bucket_lifecycle_configuration.",
            "reasoningText": "The inline lifecycle_rule is deprecated in provider v4."}),
        event("assistant.turn_end", "14:00:30.100", {"turnId": "0"}),
        event("session.title_changed", "14:00:31.000", {"title": "Perpetual diff on the logs bucket"}),
        event("user.message", "14:01:00.000", {"content": "Continue with the next step.",
                                               "isAutopilotContinuation": True}),
        event("user.message", "14:02:00.000", {"content": "Rename the bucket to logs-archive-marmot."}),
        event("assistant.message", "14:02:05.000", {"messageId": "m3",
                                                    "content": "Renamed the bucket to logs-archive-marmot."}),
    ]
    rewound_to = events[-2]["id"]
    events += [
        event("session.snapshot_rewind", "14:02:30.000", {"upToEventId": rewound_to,
                                                          "eventsRemoved": 2}),
        event("user.message", "14:03:00.000", {"content": "Apply the lifecycle fix and re-plan."}),
        event("assistant.message", "14:03:02.000", {"messageId": "m4", "content": "", "toolRequests": [
            {"toolCallId": "tool_apply", "name": "bash", "arguments": {"command": "terraform apply"}}]}),
        event("tool.execution_complete", "14:03:09.000", {
            "toolCallId": "tool_apply", "success": False,
            "error": {"message": "Error: acquiring the state lock", "code": "failure"}}),
        event("assistant.usage", "14:03:09.500", {"model": "claude-sonnet-4.5", "inputTokens": 9100}),
        event("session.compaction_complete", "14:05:00.000", {
            "success": True, "summaryContent": "Moved the logs bucket's lifecycle rule out of the "
                                               "inline block; apply is blocked by a state lock."}),
        event("session.future_event", "14:05:01.000", {"note": "a type this reader does not know"}),
        event("session.shutdown", "14:06:00.000", {"shutdownType": "routine"}),
    ]
    write_lines(root / CLI_MAIN / "events.jsonl", events,
                torn='{"type":"session.resume","data":{"sessionId":"4f8a')
    (root / CLI_MAIN / "workspace.yaml").write_text(
        f"id: {CLI_MAIN}\ncwd: {cwd}\nsummary: Perpetual diff on the logs bucket\n", "utf-8")

    # an early release kept the log at session-state/<id>.jsonl
    counter[0], previous[0] = 100, None
    early = [
        event("session.start", "09:00:00.000", {"sessionId": CLI_EARLY, "version": 1,
                                                "producer": "copilot-agent", "copilotVersion": "0.0.350",
                                                "startTime": "2026-04-10T09:00:00.000Z"}),
        event("user.message", "09:00:04.000", {"content": "Which shell am I in?"}),
        event("assistant.message", "09:00:06.000", {"messageId": "x1", "content": "zsh 5.9."}),
    ]
    write_lines(root / f"{CLI_EARLY}.jsonl", early)


HISTORY = "2c4e6a8c-0e2f-4a6c-8e0a-2c4e6a8c0e2f"


def history() -> None:
    """A session of the CLI before its event log (0.0.3xx):
    `history-session-state/session_<id>_<epoch ms>.json`, `{sessionId, startTime, chatMessages,
    timeline}`. The timeline entries have the shapes guideai-dev/session-processing lists from a
    real session (src/processors/providers/github-copilot/MESSAGE_TYPES.md): user (text,
    expandedText, mentions, imageAttachments), copilot (text), tool_call_requested and
    tool_call_completed (callId, name, toolTitle, intentionSummary, arguments, result {type,
    log}), info; chatMessages are the model's chat-completions messages."""
    cwd = "/home/lin/code/infra"

    def at(clock: str) -> str:
        return f"2025-10-04T{clock}Z"

    timeline = [
        {"id": "t1", "timestamp": at("05:35:56.461"), "type": "user",
         "text": "Why does `make plan` fail on the staging workspace?",
         "expandedText": "Why does `make plan` fail on the staging workspace?\n\n"
                         f"<current_directory>{cwd}</current_directory>",
         "mentions": [], "imageAttachments": []},
        {"id": "t2", "timestamp": at("05:36:04.736"), "type": "copilot",
         "text": "Let me run the plan and read the error."},
        {"id": "t3", "timestamp": at("05:36:04.736"), "type": "tool_call_requested",
         "callId": "toolu_01Plan", "name": "bash", "toolTitle": "bash",
         "intentionSummary": "Run the staging plan",
         "arguments": {"command": "make plan ENV=staging", "description": "Run the staging plan",
                       "sessionId": "main", "async": False}},
        {"id": "t4", "timestamp": at("05:36:19.102"), "type": "tool_call_completed",
         "callId": "toolu_01Plan", "name": "bash", "toolTitle": "bash",
         "intentionSummary": "Run the staging plan",
         "arguments": {"command": "make plan ENV=staging", "description": "Run the staging plan",
                       "sessionId": "main", "async": False},
         "result": {"type": "error",
                    "log": "Error: No valid credential sources found for the ocelot profile"}},
        {"id": "t5", "timestamp": at("05:36:46.124"), "type": "info",
         "text": "Operation cancelled by user"},
        {"id": "t6", "timestamp": at("05:37:30.000"), "type": "user", "text": "",
         "expandedText": "", "mentions": [],
         "imageAttachments": [{"path": "/tmp/copilot-clipboard-1.png", "mimeType": "image/png"}]},
        {"id": "t7", "timestamp": at("05:37:41.000"), "type": "copilot",
         "text": "The screenshot shows an expired SSO session: run `aws sso login "
                 "--profile ocelot` and plan again."},
    ]
    chat = [
        {"role": "system", "content": "You are the GitHub Copilot CLI, a terminal assistant."},
        {"role": "user", "content": timeline[0]["expandedText"]},
        {"role": "assistant", "content": "Let me run the plan and read the error.",
         "tool_calls": [{"id": "toolu_01Plan", "type": "function", "function": {
             "name": "bash", "arguments": json.dumps(timeline[2]["arguments"])}}]},
        {"role": "tool", "tool_call_id": "toolu_01Plan",
         "content": "Error: No valid credential sources found for the ocelot profile"},
        {"role": "user", "content": "<reminder>Keep answers short.</reminder>"},
    ]
    session = {"sessionId": HISTORY, "startTime": at("05:35:50.000"), "chatMessages": chat,
               "timeline": timeline}
    root = HERE / "copilot" / "cli" / "history-session-state"
    root.mkdir(parents=True, exist_ok=True)
    (root / f"session_{HISTORY}_1759556150000.json").write_text(json.dumps(session, indent=2),
                                                                 "utf-8")


if __name__ == "__main__":
    copilot()
