"""Cursor's fixtures, laid out as under its roots (generate.py runs this with the rest):

cursor/Cursor/User/globalStorage/state.vscdb          composers and their bubbles, in SQLite
cursor/Cursor/User/workspaceStorage/<hash>/           a workspace with the old chat panel, one
                                                      with only its composer list, a damaged one,
                                                      one whose list holds conversations inline
                                                      (and screenshots sent without words)
cursor/projects/<project>/agent-transcripts/          CLI agent transcripts (nested and flat) and
                                                      a sub-agent's
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from fixture_io import HERE, dump, write_lines

ROOT = HERE / "cursor"
USER = ROOT / "Cursor" / "User"

C_MAIN = "0f3c9a2e-7b1d-4e5f-9a8b-2c3d4e5f6a7b"
C_SECOND = "3b9e6c1d-2a4f-4b8e-8c7d-6e5f4a3b2c1d"
C_INLINE = "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d"
C_ASSISTANT = "6d7e8f90-a1b2-4c3d-8e4f-5a6b7c8d9e0f"
C_EMPTY = "7e8f9a0b-b1c2-4d3e-9f4a-6b7c8d9e0f1a"
C_BAD = "8f9a0b1c-c2d3-4e4f-8a5b-7c8d9e0f1a2b"
C_TASK = "task-toolu_01RgSearchLoop"
TAB = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
WS_CHAT = "5d41402abc4b2a76b9719d911017c592"
WS_LIST = "7d793037a0760186574b0282f2f435e7"
WS_DAMAGED = "9e107d9d372bb6826bd81d3542a419d6"
WS_INLINE = "e4da3b7fbbce2345d7772b0674a318d5"
C_LISTED = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"  # inline in a workspace's list only
C_BOTH = "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a"  # in the list and in cursorDiskKV
T_MAIN = "8c2f1e4a-6b3d-4c5e-9f7a-1b2c3d4e5f60"
T_SUB = "9d3a2f5b-7c4e-4d6f-8a8b-2c3d4e5f6a71"
T_FLAT = "ae4b3c6d-8d5f-4e7a-9b9c-3d4e5f6a7b82"
SCHEMA = "CREATE TABLE {} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"  # as Cursor's


def ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).replace(tzinfo=UTC).timestamp() * 1000)


def workspace(path: str, workspace_id: str) -> dict:
    return {"id": workspace_id, "uri": {"$mid": 1, "fsPath": path, "external": f"file://{path}",
                                        "path": path, "scheme": "file"}}


def write_db(path, items: list[tuple[str, object]], kv: list[tuple[str, object]]) -> None:
    """A state.vscdb with both key-value tables; a str value is stored as given (JSON text,
    or damage), bytes as a BLOB, anything else as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    connection = sqlite3.connect(path)
    with connection:
        for table, rows in (("ItemTable", items), ("cursorDiskKV", kv)):
            connection.execute(SCHEMA.format(table))
            connection.executemany(f"INSERT INTO {table} VALUES (?, ?)", [
                (k, v if isinstance(v, str | bytes) else dump(v)) for k, v in rows])
    connection.close()


def bubble(bubble_id: str, kind: int, at: str, text: str = "", **extra: object) -> dict:
    """A bubble row; `at` is a time on 2026-03-21 unless it names its own day."""
    when = at if "T" in at else f"2026-03-21T{at}"
    return {"_v": 3, "type": kind, "bubbleId": bubble_id, "text": text, "richText": "",
            "createdAt": f"{when}Z", "isAgentic": True, **extra}


def global_db() -> None:
    big_output = ("src/payments/client.py:88:    while True:  # retry until the gateway answers\n"
                  + "src/payments/client.py:91:        log.debug('retrying')\n" * 400)
    main_bubbles = {
        "u1": bubble("u1", 1, "09:14:05.120",
                     "The payments client retries forever when the gateway answers 503. Cap it at "
                     "three attempts with exponential backoff and jitter.",
                     workspaceUris=["file:///home/lin/code/payments"]),
        "a1": bubble("a1", 2, "09:14:09.800", "Let me find the retry loop first.",
                     thinking={"text": "The retry loop is probably in client.py; look before "
                                       "editing.", "signature": "sig"}),
        "a2": bubble("a2", 2, "09:14:11.000", capabilityType=15, toolFormerData={
            "tool": 15, "name": "run_terminal_cmd", "toolCallId": "toolu_01RgSearchLoop",
            "status": "completed",
            "rawArgs": json.dumps({"command": "rg -n 'while True' src/payments",
                                   "explanation": "find the loop"}),
            "result": json.dumps({"output": big_output, "exitCode": 0})}),
        "a3": bubble("a3", 2, "09:14:20.000", capabilityType=15, toolFormerData={
            "tool": 7, "name": "edit_file", "toolCallId": "toolu_02Edit", "status": "completed",
            "rawArgs": json.dumps({"target_file": "src/payments/client.py",
                                   "instructions": "cap the retries at three attempts"}),
            "result": json.dumps({"diff": {"linesAdded": 9, "linesRemoved": 2},
                                  "isApplied": True})}),
        "a4": bubble("a4", 2, "09:14:31.500",
                     "The client now gives up after 3 attempts, sleeping 0.5 s × 2^attempt plus "
                     "up to 250 ms of jitter (retry_with_backoff in client.py)."),
        "u2": bubble("u2", 1, "09:20:00.000",
                     "Also make the 503 case raise GatewayUnavailable so callers can tell it "
                     "apart."),
        "a5": bubble("a5", 2, "09:20:04.000", toolFormerData={
            "tool": 5, "name": "read_file", "toolCallId": "toolu_03Read", "status": "error",
            "rawArgs": json.dumps({"target_file": "src/payments/errors.py"}),
            "result": json.dumps({"error": "File not found: src/payments/errors.py"})}),
        "a6": bubble("a6", 2, "09:20:15.000",
                     "Added GatewayUnavailable to src/payments/exceptions.py; the client raises "
                     "it after the last attempt."),
        # a turn Cursor pruned (the user restarted from u1): still stored, no longer shown
        "stale": bubble("stale", 2, "09:14:08.000", "An earlier draft that retried ten times."),
    }
    headers = [{"bubbleId": b, "type": main_bubbles[b]["type"]}
               for b in ("u1", "a1", "a2", "a3", "a4", "u2")]
    headers += [{"bubbleId": "u2", "type": 1},  # written twice
                {"bubbleId": "gone", "type": 2},  # its row was deleted
                {"bubbleId": "torn", "type": 2},  # its row does not parse
                {"bubbleId": "a5", "type": 2, "serverBubbleId": "srv-a5"},
                {"bubbleId": "a6", "type": 2, "serverBubbleId": "srv-a6"}]
    main = {"_v": 10, "composerId": C_MAIN, "name": "Cap the payments client retries",
            "text": "", "richText": "", "status": "completed", "unifiedMode": "agent",
            "createdAt": ms("2026-03-21T09:14:00"), "lastUpdatedAt": ms("2026-03-21T09:20:16"),
            "workspaceIdentifier": workspace("/home/lin/code/payments", WS_LIST),
            "fullConversationHeadersOnly": headers, "conversationMap": {},
            "modelConfig": {"modelName": "claude-4.5-sonnet", "maxMode": False}}
    second_bubbles = {
        "s1": bubble("s1", 1, "2026-03-22T11:02:00.000", "把 README 里的安装步骤翻译成英文，保留命令不变。"),
        "s2": bubble("s2", 2, "2026-03-22T11:02:09.000",
                     "Installation: 1. Clone the repository. 2. Run `make install`. 3. Copy "
                     ".env.example to .env and fill in the API URL."),
    }
    second = {"_v": 10, "composerId": C_SECOND, "createdAt": ms("2026-03-22T11:01:55"),
              "lastUpdatedAt": ms("2026-03-22T11:02:10"), "text": "",
              "fullConversationHeadersOnly": [{"bubbleId": "s1", "type": 1},
                                              {"bubbleId": "s2", "type": 2}]}
    inline = {"_v": 2, "composerId": C_INLINE, "createdAt": ms("2025-02-10T16:40:00"),
              "conversation": [
                  {"type": 1, "bubbleId": "i1",
                   "text": "Write a bash one-liner that renames every *.jpeg here to *.jpg."},
                  {"type": 2, "bubbleId": "i2",
                   "text": 'for f in *.jpeg; do mv -- "$f" "${f%.jpeg}.jpg"; done'}]}
    assistant_only = {"_v": 10, "composerId": C_ASSISTANT, "createdAt": ms("2026-03-20T08:00:00"),
                      "fullConversationHeadersOnly": [{"bubbleId": "x1", "type": 2}]}
    empty = {"_v": 10, "composerId": C_EMPTY, "createdAt": ms("2026-03-23T07:00:00"),
             "text": "", "fullConversationHeadersOnly": [], "conversationMap": {}}
    task = {"_v": 10, "composerId": C_TASK, "createdAt": ms("2026-03-21T09:14:12"),
            "subagentInfo": {"parentComposerId": C_MAIN, "subagentType": "explore"},
            "fullConversationHeadersOnly": [{"bubbleId": "k1", "type": 1}]}
    listing = {"allComposers": [
        {"composerId": C_SECOND, "name": "Translate the README install steps",
         "createdAt": ms("2026-03-22T11:01:55"), "unifiedMode": "agent",
         "workspaceIdentifier": workspace("/home/lin/code/docs-site", "c0ffee00")},
        {"composerId": C_MAIN, "name": "Cap the payments client retries",
         "createdAt": ms("2026-03-21T09:14:00")}]}
    kv: list[tuple[str, object]] = [
        # out of key order, as a long-lived database returns them
        (f"bubbleId:{C_MAIN}:a4", main_bubbles["a4"]),
        (f"composerData:{C_SECOND}", second),
        (f"bubbleId:{C_MAIN}:u2", main_bubbles["u2"]),
        (f"bubbleId:{C_MAIN}:stale", main_bubbles["stale"]),
        (f"checkpointId:{C_MAIN}:cp1", {"files": [], "nonExistentFiles": []}),
        (f"bubbleId:{C_MAIN}:a2", main_bubbles["a2"]),
        (f"composerData:{C_BAD}", '{"_v":10,"composerId":"8f9a0b1c-c2d3'),
        (f"bubbleId:{C_MAIN}:u1", dump(main_bubbles["u1"]).encode()),  # a BLOB value
        (f"composerData:{C_TASK}", task),
        (f"bubbleId:{C_TASK}:k1", bubble("k1", 1, "09:14:12.000", "Find the retry loop.")),
        (f"bubbleId:{C_MAIN}:torn", '{"_v":3,"type":2,"text":"half writ'),
        (f"composerData:{C_MAIN}", main),
        (f"bubbleId:{C_MAIN}:a6", main_bubbles["a6"]),
        (f"bubbleId:{C_MAIN}:a1", main_bubbles["a1"]),
        (f"messageRequestContext:{C_MAIN}:u1", {"gitStatusRaw": "", "cursorRules": []}),
        (f"bubbleId:{C_SECOND}:s2", second_bubbles["s2"]),
        (f"composerData:{C_INLINE}", inline),
        (f"bubbleId:{C_MAIN}:a3", main_bubbles["a3"]),
        (f"composerData:{C_ASSISTANT}", assistant_only),
        (f"bubbleId:{C_ASSISTANT}:x1", bubble("x1", 2, "08:00:01.000", "How can I help?")),
        (f"bubbleId:{C_SECOND}:s1", second_bubbles["s1"]),
        (f"composerData:{C_EMPTY}", empty),
        (f"bubbleId:{C_MAIN}:a5", main_bubbles["a5"]),
    ]
    items: list[tuple[str, object]] = [
        ("workbench.colorTheme", "Cursor Dark"),
        ("cursorAuth/accessToken", "eyJhbGciOiJIUzI1NiJ9.fixture-token-never-read.c2lnbmF0dXJl"),
        ("composer.composerHeaders", listing),
    ]
    write_db(USER / "globalStorage" / "state.vscdb", items, kv)


def workspaces() -> None:
    storage = USER / "workspaceStorage"
    panel = {"tabs": [
        {"tabId": TAB, "chatTitle": "Center a div", "lastSendTime": ms("2024-11-05T14:30:00"),
         "bubbles": [
             {"type": "user", "id": "b1", "text": "How do I center a div horizontally and "
                                                 "vertically with flexbox?",
              "selections": [], "fileSelections": []},
             {"type": "ai", "id": "b2", "rawText": "Give the parent display: flex; "
                                                  "justify-content: center; align-items: center;",
              "codeBlocks": []},
             {"type": "user", "id": "b3", "text": ""},
             {"type": "system-notice", "id": "b4", "text": "Model switched."}]},
        {"tabId": "f0e1d2c3-b4a5-4968-8776-655443322110", "chatTitle": "New Chat", "bubbles": []},
    ]}
    composers = {"allComposers": [{"composerId": C_MAIN, "name": "Cap the payments client retries",
                                   "createdAt": ms("2026-03-21T09:14:00")}],
                 "selectedComposerIds": [C_MAIN]}
    chat = storage / WS_CHAT
    write_db(chat / "state.vscdb", [("workbench.panel.aichat.view.aichat.chatdata", panel),
                                    ("composer.composerData", composers)], [])
    (chat / "workspace.json").write_text(dump({"folder": "file:///home/lin/code/site"}) + "\n",
                                         "utf-8")
    listed = storage / WS_LIST
    write_db(listed / "state.vscdb", [("composer.composerData", composers)], [])
    (listed / "workspace.json").write_text(
        dump({"folder": "file:///home/lin/code/payments"}) + "\n", "utf-8")
    # a database whose schema page was overwritten: it opens, and its first query fails
    damaged = storage / WS_DAMAGED / "state.vscdb"
    write_db(damaged, [("composer.composerData", composers)], [])
    data = bytearray(damaged.read_bytes())
    data[100:4096] = b"\xa5" * (4096 - 100)
    damaged.write_bytes(bytes(data))


def selected_image(uuid: str, width: int, height: int) -> dict:
    """An image attached to a bubble as current Cursor keeps it: the file it saved under the
    workspace's storage (DavidBerdik/cursor-view .cursor/rules/image-attachments.mdc)."""
    return {"uuid": uuid, "path": f"/home/lin/.config/Cursor/User/workspaceStorage/{WS_INLINE}"
                                  f"/images/image-{uuid}.png",
            "dimension": {"width": width, "height": height}, "loadedAt": ms("2025-06-03T10:00:00"),
            "addedWithoutMention": False}


def inline_workspace() -> None:
    """A workspace whose `composer.composerData` list keeps conversations inline, in the shape
    thomas-pedersen/cursor-chat-browser reads (src/types/workspace.ts: ComposerChat.conversation
    of {type, bubbleId, text, richText, context, timestamp}), with a screenshot sent without
    words; one composer is also in cursorDiskKV, one also in the global database's, one is only
    named (its conversation is in the global database), and one entry has no id."""
    shot = "0b6f1c2e-3d4a-4b5c-8d6e-7f8091a2b3c4"
    listed = {"composerId": C_LISTED, "name": "Checkout button hidden on mobile",
              "createdAt": ms("2025-06-03T10:00:00"), "lastUpdatedAt": ms("2025-06-03T10:05:00"),
              "status": "completed", "text": "", "richText": "", "context": {},
              "conversation": [
                  {"type": 1, "bubbleId": "w1", "text": "", "richText": "",
                   "context": {"selectedImages": [selected_image(shot, 390, 844)],
                               "fileSelections": []},
                   "timestamp": ms("2025-06-03T10:00:05")},
                  {"type": 2, "bubbleId": "w2", "text": "The sticky footer covers the checkout "
                                                        "button below 400 px: give the button "
                                                        "a bottom margin of the footer's "
                                                        "height.",
                   "richText": "", "context": {}, "timestamp": ms("2025-06-03T10:00:20")},
                  {"type": 1, "bubbleId": "w3", "text": "Same on the cart page, codename "
                                                        "osprey",
                   "richText": "",
                   # the same screenshot attached again, and a second one
                   "context": {"selectedImages": [
                       selected_image(shot, 390, 844),
                       selected_image("1c7a2d3f-4e5b-4c6d-9e7f-8091a2b3c4d5", 390, 844)]},
                   "timestamp": ms("2025-06-03T10:04:00")},
                  {"type": 2, "bubbleId": "w4", "text": "Applied the same margin in cart.css.",
                   "richText": "", "context": {}, "timestamp": ms("2025-06-03T10:04:30")}]}
    both_inline = {"composerId": C_BOTH, "name": "Rename the env var",
                   "createdAt": ms("2025-06-04T09:00:00"), "conversation": [
                       {"type": 1, "bubbleId": "d1", "text": "Rename API_URL to SHOP_API_URL"},
                       {"type": 2, "bubbleId": "d2", "text": "Renamed in .env.example."}]}
    # an older copy of a composer the global database holds as a row: read from there
    second_copy = {"composerId": C_SECOND, "name": "Translate the README install steps",
                   "createdAt": ms("2026-03-22T11:01:55"), "conversation": [
                       {"type": 1, "bubbleId": "s1", "text": "把 README 里的安装步骤翻译成英文"}]}
    composers = {"allComposers": [listed, both_inline, second_copy,
                                  {"composerId": C_MAIN, "name": "Cap the payments client retries",
                                   "createdAt": ms("2026-03-21T09:14:00")},
                                  {"name": "an entry without its id"}],
                 "selectedComposerIds": [C_LISTED]}
    # C_BOTH's row in cursorDiskKV: its first prompt is a screenshot alone, in the older inline
    # `images` shape ({uuid, dimension, data: the bytes as a {"0": byte, ...} object})
    png = {str(i): b for i, b in enumerate(b"\x89PNG\r\n\x1a\n")}
    both = {"_v": 10, "composerId": C_BOTH, "name": "Rename the env var",
            "createdAt": ms("2025-06-04T09:00:00"),
            "fullConversationHeadersOnly": [{"bubbleId": "r1", "type": 1},
                                            {"bubbleId": "r2", "type": 2},
                                            {"bubbleId": "r3", "type": 1},
                                            {"bubbleId": "r4", "type": 2}]}
    kv: list[tuple[str, object]] = [
        (f"composerData:{C_BOTH}", both),
        (f"bubbleId:{C_BOTH}:r1", bubble("r1", 1, "2025-06-04T09:00:05.000", "", images=[
            {"uuid": "2d8b3e4a-5f6c-4d7e-8f90-a1b2c3d4e5f6",
             "dimension": {"width": 1280, "height": 720}, "data": png}])),
        (f"bubbleId:{C_BOTH}:r2", bubble("r2", 2, "2025-06-04T09:00:09.000",
                                         "That is the settings page; which variable?")),
        (f"bubbleId:{C_BOTH}:r3", bubble("r3", 1, "2025-06-04T09:01:00.000",
                                         "Rename API_URL to SHOP_API_URL")),
        (f"bubbleId:{C_BOTH}:r4", bubble("r4", 2, "2025-06-04T09:01:20.000",
                                         "Renamed in .env.example and config.py.")),
        # a bubble whose composer row is gone (the chat was deleted)
        ("bubbleId:3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b:g1",
         bubble("g1", 1, "2025-06-01T08:00:00.000", "A deleted chat's prompt.")),
    ]
    folder = USER / "workspaceStorage" / WS_INLINE
    write_db(folder / "state.vscdb", [("composer.composerData", composers)], kv)
    (folder / "workspace.json").write_text(dump({"folder": "file:///home/lin/code/shop"}) + "\n",
                                           "utf-8")


def transcripts() -> None:
    projects = ROOT / "projects"

    def line(role: str, *blocks: dict) -> dict:
        return {"role": role, "message": {"content": list(blocks)}}

    def text(value: str) -> dict:
        return {"type": "text", "text": value}

    script = "".join(f"    parser.add_argument('--option-{n}')\n" for n in range(300))
    main = [
        line("user", text("<user_query>\nAdd a --dry-run flag to scripts/refund.py that prints "
                          "the refunds instead of sending them.\n</user_query>")),
        line("assistant", {"type": "thinking", "thinking": "Need to see the argparse setup."},
             text("I'll read the script first."),
             {"type": "tool_use", "id": "toolu_A", "name": "Read",
              "input": {"path": "scripts/refund.py"}}),
        line("user", {"type": "tool_result", "tool_use_id": "toolu_A",
                      "content": "import argparse\n" + script}),
        line("assistant", {"type": "tool_use", "id": "toolu_B", "name": "StrReplace",
                           "input": {"path": "scripts/refund.py",
                                     "old_string": "def main():",
                                     "new_string": "def main(dry_run=False):"}}),
        line("user", {"type": "tool_result", "tool_use_id": "toolu_B",
                      "content": "The file scripts/refund.py has been updated."}),
        line("assistant", text("Added --dry-run: with it, refund.py prints each refund (order "
                               "id, amount) and exits without calling the payments API.")),
        {"role": "system", "message": {"content": "You are a coding agent."}},
        {"kind": "checkpoint", "id": "cp-1"},
    ]
    folder = projects / "home-lin-code-payments" / "agent-transcripts" / T_MAIN
    write_lines(folder / f"{T_MAIN}.jsonl", main,
                torn='{"role":"assistant","message":{"content":[{"type":"text","text":"Also')
    write_lines(folder / "subagents" / f"{T_SUB}.jsonl", [
        line("user", text("List the scripts that call the payments API.")),
        line("assistant", text("scripts/refund.py and scripts/payout.py."))])
    write_lines(projects / "home-lin-notes" / "agent-transcripts" / f"{T_FLAT}.jsonl", [
        {"role": "user", "message": {
            "content": "<user_query>Summarize yesterday's standup notes in three bullets."
                       "</user_query>"}},
        {"role": "assistant", "message": {
            "content": "- Release moves to Thursday\n- Mei owns the flaky test\n- Budget review "
                       "on Monday"}}])


def cursor() -> None:
    global_db()
    workspaces()
    inline_workspace()
    transcripts()


if __name__ == "__main__":
    cursor()
