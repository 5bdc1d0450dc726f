"""Kimi CLI's fixtures, laid out as under its share folder (`~/.kimi`, here `kimi/share`); the
shapes are those of MoonshotAI/kimi-cli @ 4a550effdfcb29a25a5d325bf935296cc50cd417 (see
kimi/README.md). Run on its own or from generate.py.

kimi/share/kimi.json                                   the work directories Kimi has run in
kimi/share/sessions/<md5(cwd)>/<id>/wire.jsonl         a session's wire log (what recall reads)
                                   /context.jsonl      the model's context (not read)
                                   /state.json         its custom title
                                   /subagents/<id>/    a sub-agent's own log (not read)
kimi/kimi-code/sessions/wd_.../agents/main/wire.jsonl  Kimi Code's other shape (not read)
"""

from __future__ import annotations

import hashlib
import json

from fixture_io import HERE, dump, write_lines

ROOT = HERE / "kimi"
SHARE = ROOT / "share"
LEDGER_CWD, NOTES_CWD = "/home/lin/code/ledger", "/home/lin/notes"
MAIN = "6f1c2a3b-4d5e-4f60-8a71-9b2c3d4e5f60"
NOTES = "7a2b3c4d-5e6f-4a70-9b81-0c1d2e3f4a5b"
IDLE = "8b3c4d5e-6f70-4b81-8c92-1d2e3f4a5b6c"
AGENT = "a1b2c3d4"
T0 = 1773480000.0  # 2026-03-14T09:20:00Z


def bucket(cwd: str) -> str:
    return hashlib.md5(cwd.encode()).hexdigest()


def rec(offset: float, kind: str, **payload: object) -> dict:
    return {"timestamp": T0 + offset, "message": {"type": kind, "payload": payload}}


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def call(call_id: str, name: str, arguments: dict) -> dict:
    return {"type": "function", "id": call_id, "function": {"name": name,
                                                             "arguments": json.dumps(arguments)}}


def result(call_id: str, output: object, is_error: bool = False, message: str = "") -> dict:
    return {"tool_call_id": call_id, "return_value": {"is_error": is_error, "output": output,
                                                      "message": message, "display": []}}


HEADER = {"type": "metadata", "protocol_version": "1.10"}
STATUS = {"context_usage": 0.04, "token_usage": {"input_other": 1562, "output": 240,
                                                 "input_cache_read": 0,
                                                 "input_cache_creation": 0},
          "message_id": "chatcmpl-7Qx2"}


def main_session() -> list[dict]:
    """Two turns: tools, an error, thinking, a prompt with a screenshot, input added mid-turn,
    a sub-agent, an approval, a type no release wrote yet."""
    return [HEADER,
            rec(0, "TurnBegin", user_input="The monthly export rounds VAT wrong for Swiss "
                                           "invoices; round to 0.05 CHF."),
            rec(1, "StepBegin", n=1),
            {**rec(2, "ContentPart", type="think", think="Find round_vat callers first.",
                   encrypted=None)},
            rec(3, "ContentPart", type="text", text="Let me look at the tests first."),
            rec(4, "ToolCall", **call("tool_Sh1", "Shell", {"command": "uv run pytest -q"})),
            rec(5, "StatusUpdate", **STATUS),
            rec(9, "ToolResult", **result("tool_Sh1", "212 passed, 1 failed: test_chf_rounding")),
            rec(10, "StepBegin", n=2),
            rec(11, "ToolCall", **call("tool_Rd2", "ReadFile", {"path": "src/ledger/vat.py"})),
            rec(12, "ToolResult", **result("tool_Rd2", "", True, "File not found: vat.py")),
            rec(13, "StepBegin", n=3),
            rec(14, "ContentPart", type="text", text="round_vat now rounds to 0.05 CHF."),
            rec(15, "TurnEnd"),
            rec(60, "TurnBegin", user_input=[text("Does the invoice look right now?"),
                                             {"type": "image_url",
                                              "image_url": {"url": "data:image/png;base64,iVBO",
                                                            "id": None}}]),
            rec(61, "StepBegin", n=1),
            rec(62, "SteerInput", user_input=[text("Also note it in CHANGELOG.md.")]),
            rec(63, "ToolCall", **call("tool_Ag3", "Agent", {"description": "check invoices",
                                                             "prompt": "Compare totals"})),
            rec(64, "SubagentEvent", parent_tool_call_id="tool_Ag3", agent_id=AGENT,
                subagent_type="coder", event={"type": "ContentPart", "payload": text("ok")}),
            rec(70, "ToolResult", **result("tool_Ag3", [text("Totals match on 12 invoices.")])),
            rec(71, "ApprovalRequest", id="ap1", tool_call_id="tool_Ed4", sender="WriteFile",
                action="edit file", description="Edit CHANGELOG.md", display=[]),
            rec(72, "ApprovalResponse", request_id="ap1", response="approve"),
            rec(73, "TelemetryPing", seq=1),
            rec(74, "ContentPart", type="text", text="Yes: totals match, CHANGELOG noted."),
            rec(75, "TurnEnd")]


def notes_session() -> list[dict]:
    """No custom title, a screenshot sent without words, a compaction, a stray fragment."""
    return [HEADER,
            rec(600, "TurnBegin", user_input=[text("把周报模板整理成 Markdown 表格")]),
            rec(601, "StepBegin", n=1),
            rec(602, "ContentPart", type="text", text="好的，已整理成三列表格。"),
            rec(603, "ToolCallPart", arguments_part='{"pa'),
            rec(604, "CompactionBegin"), rec(605, "CompactionEnd"),
            rec(606, "TurnEnd"),
            rec(700, "TurnBegin", user_input=[{"type": "image_url",
                                               "image_url": {"url": "file:///tmp/shot.png"}}]),
            rec(701, "StepInterrupted")]


def context_lines() -> list[dict]:
    return [{"role": "_system_prompt", "content": "You are Kimi Code CLI."},
            {"role": "_checkpoint", "id": 0},
            {"role": "user", "content": [text("The monthly export rounds VAT wrong")]},
            {"role": "assistant", "content": [text("Let me look at the tests first.")]},
            {"role": "_usage", "token_count": 10863}]


def kimi() -> None:
    (SHARE / "kimi.json").parent.mkdir(parents=True, exist_ok=True)
    (SHARE / "kimi.json").write_text(dump({"work_dirs": [
        {"path": LEDGER_CWD, "kaos": "local", "last_session_id": MAIN},
        {"path": NOTES_CWD, "kaos": "local", "last_session_id": NOTES}]}), "utf-8")
    main = SHARE / "sessions" / bucket(LEDGER_CWD) / MAIN
    # a crash mid-write leaves the last line torn
    write_lines(main / "wire.jsonl", main_session(), torn='{"timestamp": 1773480080.0, "mes')
    write_lines(main / "context.jsonl", context_lines())
    (main / "state.json").write_text(dump({
        "version": 1, "approval": {"yolo": False, "afk": False, "auto_approve_actions": []},
        "additional_dirs": [], "custom_title": "Swiss VAT rounding", "plan_mode": False,
        "todos": []}), "utf-8")
    agent = main / "subagents" / AGENT
    write_lines(agent / "wire.jsonl", [HEADER, rec(64, "TurnBegin", user_input="Compare totals"),
                                       rec(65, "ContentPart", type="text", text="ok")])
    (agent / "meta.json").write_text(dump({
        "agent_id": AGENT, "subagent_type": "coder", "status": "completed",
        "description": "check invoices", "created_at": T0 + 63, "updated_at": T0 + 70,
        "launch_spec": {"agent_id": AGENT, "subagent_type": "coder", "model_override": None,
                        "effective_model": None, "created_at": T0 + 63}}), "utf-8")
    write_lines(SHARE / "sessions" / bucket(NOTES_CWD) / NOTES / "wire.jsonl", notes_session())
    write_lines(SHARE / "sessions" / bucket(NOTES_CWD) / IDLE / "wire.jsonl",
                [HEADER, rec(900, "TurnBegin", user_input=""), rec(901, "StatusUpdate", **STATUS)])
    code = (ROOT / "kimi-code" / "sessions" / "wd_ledger_057f5c09ee3f" / "session_9c1d" / "agents"
            / "main" / "wire.jsonl")
    write_lines(code, [{"type": "metadata", "protocol_version": "1.5", "created_at": 1786452160239},
                       {"type": "turn.prompt", "input": [text("hi")], "origin": {"kind": "user"},
                        "time": 1786452160300}])


if __name__ == "__main__":
    kimi()
