"""Amp's fixtures, laid out as under its data folder (~/.local/share/amp); run `python
generate_amp.py` (the output is committed). Amp is closed source: the shapes are those public
readers of these files test against (kenn-io/agentsview internal/parser/amp_test.go at 5e4471a9,
skillsynchq/txcript tests/amp.rs); see amp/README.md.

amp/threads/T-...0001.json  a thread with its traps: thinking, tool calls in Amp's run shape
                            (a dict result, a diff, an error, a cancelled run), an API-shaped
                            tool_result, a screenshot pasted alone, a redacted-thinking-only
                            answer, a record of an unknown role, `~debug`
amp/threads/T-...0002.json  a thread without a title, env or message ids (older release)
amp/threads/T-...0003.json  a thread with no messages: nothing to import
"""

from __future__ import annotations

import json
from typing import Any

from fixture_io import HERE

THREADS = HERE / "amp" / "threads"
MAIN = "T-019cf0a1-2b3c-7d4e-8f50-617283940001"
UNTITLED = "T-019cf0a1-2b3c-7d4e-8f50-617283940002"
EMPTY = "T-019cf0a1-2b3c-7d4e-8f50-617283940003"
CWD = "/home/lin/code/ledger app"


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, name: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "complete": True, "id": tool_id, "name": name, "input": value}


def run(tool_id: str, **fields: Any) -> dict[str, Any]:
    return {"type": "tool_result", "toolUseID": tool_id, "run": fields}


def usage(stamp: str) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "maxInputTokens": 168000, "inputTokens": 12,
            "outputTokens": 80, "cacheCreationInputTokens": 900, "cacheReadInputTokens": 3400,
            "totalInputTokens": 4312, "timestamp": stamp}


def answer(number: int, stamp: str, *content: dict[str, Any], stop: str = "end_turn") -> dict:
    return {"role": "assistant", "messageId": number, "content": list(content),
            "state": {"type": "complete", "stopReason": stop}, "usage": usage(stamp)}


def main_thread() -> dict[str, Any]:
    big = "test result: 212 passed\n" + "ok\n" * 400
    messages = [
        {"role": "user", "messageId": 0, "agentMode": "smart",
         "content": [text("The VAT export rounds Swiss invoices wrong; fix it to 0.05 CHF.")],
         "userState": {"currentlyVisibleFiles": []}, "meta": {"sentAt": 1773479524000}},
        answer(1, "2026-03-14T09:12:10.000Z",
               {"type": "thinking", "thinking": "round_vat is the likely culprit.",
                "signature": "sig-abc", "provider": "anthropic"},
               text("Let me run the tests first."),
               tool_use("toolu_01", "Bash", {"cmd": "uv run pytest -q", "cwd": CWD}),
               stop="tool_use"),
        {"role": "user", "messageId": 2, "content": [
            run("toolu_01", status="done", result={"output": big, "exitCode": 0},
                progress=[], trackFiles=[])]},
        answer(3, "2026-03-14T09:12:40.000Z",
               tool_use("toolu_02", "edit_file", {"path": f"{CWD}/vat.py", "old_str": "round(a, 2)",
                                                  "new_str": "round_to_step(a, 0.05)"}),
               tool_use("toolu_03", "painter", {"prompt": "a sticker", "savePath": "/tmp/s.png"}),
               tool_use("toolu_04", "Read", {"path": f"{CWD}/export.py"}),
               stop="tool_use"),
        {"role": "user", "messageId": 4, "content": [
            run("toolu_02", status="done", result={"diff": "-round(a, 2)\n+round_to_step(a, 0.05)",
                                                   "lineRange": [41, 41]}),
            run("toolu_03", status="error", error={"message": "Save path already exists"}),
            run("toolu_04", status="cancelled", reason="user pressed esc")]},
        answer(5, "2026-03-14T09:13:02.000Z",
               text("Swiss invoices now round VAT to the nearest 0.05 CHF; all 212 tests pass.")),
        # a screenshot pasted alone
        {"role": "user", "messageId": 6, "meta": {"sentAt": 1773479700000}, "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "iVBORw0KGgo="}}]},
        answer(7, "2026-03-14T09:15:05.000Z",
               {"type": "redacted_thinking", "data": "EuYBCkQYAiJA"}),
        answer(8, "2026-03-14T09:15:09.000Z",
               text("The screenshot shows 12.35 CHF, rounded as expected."),
               tool_use("toolu_05", "grep", {"pattern": "round_vat"})),
        # a result in the API's own shape, as some releases wrote it
        {"role": "user", "messageId": 9, "content": [
            {"type": "tool_result", "tool_use_id": "toolu_05",
             "content": [text("vat.py:41: def round_vat(a):")]}]},
        {"role": "supervisor", "note": "bookkeeping no reader models"},
        "not a message",
    ]
    return {"v": 42, "id": MAIN, "created": 1773479520664, "title": "Fix Swiss VAT rounding",
            "agentMode": "smart", "nextMessageId": 10, "~debug": {"queue": []},
            "env": {"initial": {
                "trees": [{"uri": "file:///home/lin/code/ledger%20app", "displayName": "ledger app",
                           "repository": {"type": "git", "url": "https://example.com/l.git",
                                          "ref": "refs/heads/main", "sha": "abc123"}}],
                "platform": {"os": "linux", "client": "CLI",
                             "clientVersion": "0.0.1773400000-g1a2b3c"}}},
            "meta": {"traces": [{"name": "inference", "startTime": "2026-03-14T09:12:05Z",
                                 "endTime": "2026-03-14T09:12:10Z"}]},
            "messages": messages}


def untitled_thread() -> dict[str, Any]:
    return {"v": 1, "id": UNTITLED, "created": 1770540207688, "messages": [
        {"role": "user", "content": [text("What does the ledger CLI's --dry-run flag do?")]},
        {"role": "assistant", "content": [text("It prints the postings it would write and "
                                               "exits without saving.")]}]}


def amp() -> None:
    THREADS.mkdir(parents=True, exist_ok=True)
    for thread in (main_thread(), untitled_thread(),
                   {"v": 1, "id": EMPTY, "created": 1770540300000, "messages": []}):
        (THREADS / f"{thread['id']}.json").write_text(
            json.dumps(thread, ensure_ascii=False, indent=2), "utf-8")


if __name__ == "__main__":
    amp()
