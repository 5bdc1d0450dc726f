"""Kimi CLI's fixtures, laid out as under its share folder (`~/.kimi`, here `kimi/share`); the
shapes are those of MoonshotAI/kimi-cli @ 4a550effdfcb29a25a5d325bf935296cc50cd417 (see
kimi/README.md). Run on its own or from generate.py.

kimi/share/kimi.json                                   the work directories Kimi has run in
kimi/share/sessions/<md5(cwd)>/<id>/wire.jsonl         a session's wire log (what recall reads)
                                   /context.jsonl      the model's context (not read)
                                   /state.json         its custom title
                                   /subagents/<id>/    a sub-agent's own log (not read)
kimi/kimi-code/sessions/wd_<slug>_<hash>/<id>/state.json            Kimi Code: the title
                                             /agents/main/wire.jsonl  the session's journal
                                             /agents/agent-0/...      a sub-agent's (not read)
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
CODE_SESSION = "session_3c9d2e1f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
CODE_T0 = 1773734400000  # 2026-03-17T08:00:00Z, in ms as Kimi Code writes times


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
    kimi_code()


def journal(offset: int, kind: str, **payload: object) -> dict:
    return {"type": kind, "agentId": "main", **payload, "time": CODE_T0 + offset * 1000}


def loop(offset: int, **event: object) -> dict:
    return journal(offset, "context.append_loop_event", event=event)


def kimi_code_journal() -> list[dict]:
    """A Kimi Code session: a prompt and its copy in the context, thinking, a tool and its
    result, a prompt the agent sent itself, a screenshot, a cancelled turn, a record type of a
    later release, a torn line."""
    step1, step2, step3 = "st-1", "st-2", "st-3"
    return [{"type": "metadata", "protocol_version": "1.5", "created_at": CODE_T0},
            journal(1, "config.update", cwd=LEDGER_CWD, profileName="agent",
                    systemPrompt="You are Kimi."),
            journal(2, "tools.set_active_tools", names=["Shell", "ReadFile"]),
            journal(10, "turn.prompt", input=[text("Why is the nightly export slow?")],
                    origin="user"),
            journal(11, "context.append_message", message={
                "role": "user", "content": [text("Why is the nightly export slow?")],
                "toolCalls": []}),
            loop(20, type="step.begin", uuid=step1, turnId="t1", step=0),
            loop(21, type="content.part", stepUuid=step1, part={"type": "think",
                                                                "think": "Profile it."}),
            loop(22, type="content.part", stepUuid=step1, part=text("Profiling first.")),
            loop(23, type="tool.call", stepUuid=step1, toolCallId="call_1", name="Shell",
                 args={"command": "py-spy top --pid 4242"}),
            loop(24, type="step.end", uuid=step1, turnId="t1", step=0, finishReason="tool_use"),
            loop(30, type="tool.result", toolCallId="call_1",
                 result={"output": "81% in ledger.money.to_decimal", "isError": False}),
            loop(31, type="step.begin", uuid=step2, turnId="t1", step=1),
            loop(32, type="content.part", stepUuid=step2,
                 part=text("to_decimal parses every row's string; cache the parsed rates.")),
            loop(33, type="step.end", uuid=step2, turnId="t1", step=1, finishReason="end_turn"),
            journal(34, "usage.record", model="kimi-k2", usage={
                "inputOther": 900, "output": 80, "inputCacheRead": 0, "inputCacheCreation": 0},
                usageScope="turn"),
            journal(35, "turn.ended", turnId=1, reason="completed"),
            journal(40, "turn.prompt", input=[text("Continue the background task.")],
                    origin="system_trigger"),
            journal(60, "turn.prompt", input=[{"type": "image_url", "image_url": {
                "url": "data:image/png;base64,iVBO"}}], origin={"kind": "user"}),
            journal(61, "context.append_message", message={
                "role": "user", "content": [{"type": "image_url"}], "toolCalls": []}),
            loop(62, type="step.begin", uuid=step3, turnId="t3", step=0),
            loop(63, type="content.part", stepUuid=step3,
                 part=text("The chart shows the export at 40 s, down from 9 min.")),
            journal(64, "turn.cancel", turnId=3, target="active", reason="user_cancelled"),
            journal(65, "tower_mode.enter")]


def kimi_code() -> None:
    session = ROOT / "kimi-code" / "sessions" / "wd_ledger_057f5c09ee3f" / CODE_SESSION
    write_lines(session / "agents" / "main" / "wire.jsonl", kimi_code_journal(),
                torn='{"type": "context.append_loop_ev')
    write_lines(session / "agents" / "agent-0" / "wire.jsonl", [
        {"type": "metadata", "protocol_version": "1.5", "created_at": CODE_T0 + 25_000},
        {"type": "turn.prompt", "agentId": "agent-0", "input": [text("Profile the export")],
         "origin": "task", "time": CODE_T0 + 26_000}])
    (session / "state.json").write_text(dump({
        "createdAt": "2026-03-17T08:00:00.000Z", "updatedAt": "2026-03-17T08:01:05.000Z",
        "title": "Nightly export speed", "isCustomTitle": False,
        "lastPrompt": "Why is the nightly export slow?",
        "agents": {"main": {"type": "main", "parentAgentId": None},
                   "agent-0": {"type": "sub", "parentAgentId": "main"}}, "custom": {}}), "utf-8")

if __name__ == "__main__":
    kimi()
