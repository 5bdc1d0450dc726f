"""opencode's fixtures, laid out as under its data folder (~/.local/share/opencode); generate.py
runs this with the rest.

opencode/opencode.db       the database: a session with its traps (synthetic prompt text,
                           reasoning, big tool output, a failed and an unfinished tool call,
                           step/snapshot/patch parts, an unknown part type, a compaction, rows
                           inserted out of order, a message and a part whose JSON is torn), the
                           sub-agent session it started, one with opencode's default title (and
                           a screenshot pasted alone), one with nothing to import, and a message
                           and a part of a session no longer there
opencode/older-install/   the data folder of an install from before the database (opencode
                           copies its tree into a new opencode.db once, so the two are kept apart):
  storage/                 the JSON tree: two sessions (one a sub-agent's), their messages and
                           parts (one part file torn), and the project, todo and file-change files
  project/                 the oldest releases' tree: a session whose messages hold their parts
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fixture_io import HERE, dump

ROOT = HERE / "opencode"
OLDER = ROOT / "older-install"
LEDGER = "/home/lin/code/ledger"
PROJECT = "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"  # opencode names a project by its first commit

DB_MAIN = "ses_30f1a2b3cffeLedgerVatRound"
DB_CHILD = "ses_30f1a2a0bffeExploreVatHelp"
DB_NOTES = "ses_30e8c1d2affeNotesTodoWeekly"
DB_EMPTY = "ses_30e8c1d1bffeOnlyAFileRead"
TREE_MAIN = "ses_52a0c3d4effeCsvExportSpeed"
TREE_CHILD = "ses_52a0c3d3dffeProfileExport1"
OLDEST = "ses_7d10e2f3fffeNameTheLedgerC"


def ms(stamp: str) -> int:
    """Epoch milliseconds, opencode's times, of a UTC `YYYY-MM-DDTHH:MM:SS.fff`."""
    return int(datetime.fromisoformat(stamp).replace(tzinfo=UTC).timestamp() * 1000)


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2), "utf-8")  # as Storage.write


def opencode() -> None:
    shutil.rmtree(OLDER, ignore_errors=True)
    database()
    tree()
    oldest()


# the database --------------------------------------------------------------------------------

SCHEMA = """
CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric);
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text,
  icon_url text, icon_color text, time_created integer NOT NULL, time_updated integer NOT NULL,
  time_initialized integer, sandboxes text NOT NULL, commands text);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, workspace_id text,
  parent_id text, slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL,
  version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer,
  summary_files integer, summary_diffs text, revert text, permission text, agent text, model text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer,
  time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE todo (session_id text NOT NULL, content text NOT NULL, status text NOT NULL,
  priority text NOT NULL, position integer NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, PRIMARY KEY (session_id, position));
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
"""


class _Session:
    """A session's rows, messages and parts, built in order and written in any order."""

    def __init__(self, session_id: str, day: str) -> None:
        self.id = session_id
        self.day = day
        self.messages: list[tuple[str, int, str]] = []  # id, time, data
        self.parts: list[tuple[str, str, int, str]] = []  # id, message id, time, data
        self.counter = 0

    def at(self, clock: str) -> int:
        return ms(f"{self.day}T{clock}")

    def user(self, message_id: str, clock: str, *parts: dict[str, Any]) -> None:
        data = {"role": "user", "time": {"created": self.at(clock)}, "agent": "build",
                "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}
        self._message(message_id, clock, data, parts)

    def assistant(self, message_id: str, clock: str, *parts: dict[str, Any], parent: str,
                  **extra: Any) -> None:
        time = self.at(clock)
        data = {"role": "assistant", "time": {"created": time, "completed": time + 4000},
                "parentID": parent, "modelID": "claude-sonnet-4-5", "providerID": "anthropic",
                "mode": "build", "agent": "build", "path": {"cwd": LEDGER, "root": LEDGER},
                "cost": 0.0123, "tokens": {"input": 2100, "output": 120, "reasoning": 0,
                                           "cache": {"read": 9000, "write": 0}}, **extra}
        self._message(message_id, clock, data, parts)

    def _message(self, message_id: str, clock: str, data: dict[str, Any],
                 parts: tuple[dict[str, Any], ...]) -> None:
        self.messages.append((message_id, self.at(clock), dump(data)))
        for part in parts:
            self.counter += 1
            part_id = f"prt_{self.id[4:16]}{self.counter:03d}{message_id[-6:]}"
            raw = part.pop("_raw", None)
            self.parts.append((part_id, message_id, self.at(clock), raw or dump(part)))


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def tool(name: str, tool_input: dict[str, Any], status: str = "completed",
         output: str | None = None, error: str | None = None) -> dict[str, Any]:
    state: dict[str, Any] = {"status": status, "input": tool_input}
    if status == "completed":
        state |= {"output": output, "title": name, "metadata": {},
                  "time": {"start": 1, "end": 2}}
    elif status == "error":
        state |= {"error": error, "time": {"start": 1, "end": 2}}
    else:
        state |= {"time": {"start": 1}}
    return {"type": "tool", "callID": f"toolu_{name}", "tool": name, "state": state}


STEP_START = {"type": "step-start", "snapshot": "9c1e2d3f"}
STEP_FINISH = {"type": "step-finish", "reason": "tool-calls", "cost": 0.01,
               "tokens": {"input": 10, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}}}


def database() -> None:
    main = _Session(DB_MAIN, "2026-03-14")
    prompt = ("The monthly export rounds VAT wrong for Swiss invoices; fix the rounding to 0.05 CHF "
              "and keep the tests green. @src/ledger/vat.py")
    main.user("msg_c5701e3b4001AbCdEfGhIj0001", "09:12:04.000", text(prompt),
              text('Called the Read tool with the following input: '
                   '{"filePath":"/home/lin/code/ledger/src/ledger/vat.py"}', synthetic=True),
              text("<file>\n00041| def round_vat(amount, currency):\n00042|     return round(amount, 2)"
                   "\n</file>", synthetic=True),
              {"type": "file", "mime": "text/plain", "filename": "src/ledger/vat.py",
               "url": f"file://{LEDGER}/src/ledger/vat.py"})
    big_output = "test result: 212 passed\n" + "ok\n" * 400
    main.assistant("msg_c5701e3b9001AbCdEfGhIj0002", "09:12:06.500",
                   STEP_START,
                   {"type": "reasoning", "text": "Looking for the VAT rounding helper.",
                    "time": {"start": 1, "end": 2}},
                   text("Let me find every caller of round_vat first."),
                   tool("task", {"description": "Find the VAT rounding helper",
                                 "prompt": "Find where VAT is rounded in src/ and list callers.",
                                 "subagent_type": "explore"},
                        output="round_vat is in src/ledger/vat.py:41; export.py calls it twice."),
                   tool("bash", {"command": "uv run pytest -q", "description": "Run the tests"},
                        output=big_output),
                   STEP_FINISH, parent="msg_c5701e3b4001AbCdEfGhIj0001")
    main.assistant("msg_c5701e3c8001AbCdEfGhIj0003", "09:12:40.000",
                   STEP_START,
                   text("Swiss invoices now round VAT to the nearest 0.05 CHF (round_to_step in "
                        "vat.py); all 212 tests pass."),
                   {"type": "patch", "hash": "1f2e3d4c", "files": [f"{LEDGER}/src/ledger/vat.py"]},
                   STEP_FINISH, {"type": "snapshot", "snapshot": "a9b8c7d6"},
                   parent="msg_c5701e3b4001AbCdEfGhIj0001")
    # the reply's id sorts before its prompt's: messages are read by time first
    main.user("msg_c5701f2a0001AbCdEfGhIj0005", "09:31:00.000",
              text("Also note in the changelog that CHF rounding changed."))
    main.assistant("msg_c5701f2a0000AbCdEfGhIj0004", "09:31:02.000",
                   STEP_START,
                   tool("edit", {"filePath": f"{LEDGER}/CHANGELOG.md"}, status="error",
                        error="File CHANGELOG.md has been modified since it was last read"),
                   text("Added a line under 'Fixed' in CHANGELOG.md."),
                   tool("bash", {"command": "git diff --stat"}, status="running"),
                   {"type": "world-state", "note": "a part type this reader does not know"},
                   {"_raw": '{"type":"text","text":"torn'},
                   parent="msg_c5701f2a0001AbCdEfGhIj0005")
    main.user("msg_c57024b00001AbCdEfGhIj0006", "09:40:00.000", {"type": "compaction", "auto": True})
    main.assistant("msg_c57024b40001AbCdEfGhIj0007", "09:40:05.000",
                   text("Fixed Swiss VAT rounding to 0.05 CHF in vat.py; changelog noted."),
                   parent="msg_c57024b00001AbCdEfGhIj0006", summary=True, finish="stop")
    main.messages.append(("msg_c57024b80001AbCdEfGhIj0008", main.at("09:41:00.000"), "{not json"))

    child = _Session(DB_CHILD, "2026-03-14")
    child.user("msg_c5701e3c0001ChIlDeXpLoR0001", "09:12:08.000",
               text("Find where VAT is rounded in src/ and list callers."))
    child.assistant("msg_c5701e3c1001ChIlDeXpLoR0002", "09:12:09.000",
                    tool("grep", {"pattern": "round_vat", "path": "src"},
                         output="src/ledger/vat.py:41:def round_vat(amount, currency):\n"
                                "src/ledger/export.py:88:    vat = round_vat(net, cur)"),
                    text("round_vat is in src/ledger/vat.py:41; export.py calls it twice."),
                    parent="msg_c5701e3c0001ChIlDeXpLoR0001")

    notes = _Session(DB_NOTES, "2026-03-15")
    notes.user("msg_c5801a000001NoTeSnOtEs0001", "08:00:05.000",
               text("List the open TODOs in notes/ and group them by week."))
    notes.assistant("msg_c5801a040001NoTeSnOtEs0002", "08:00:09.000",
                    text("There are four: two this week (renew the TLS certificate, send the "
                         "invoices) and two next week."), parent="msg_c5801a000001NoTeSnOtEs0001")
    # a screenshot pasted alone: the TUI's paste makes a file part named "clipboard" with the
    # image's mime and a data: url (packages/opencode/src/cli/cmd/tui/component/prompt)
    notes.user("msg_c5801a080001NoTeSnOtEs0003", "08:00:11.000",
               {"type": "file", "mime": "image/png", "filename": "clipboard",
                "url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="})
    notes.assistant("msg_c5801a0c0001NoTeSnOtEs0004", "08:00:12.000",
                    text("The screenshot shows the TODO for the TLS certificate already ticked."),
                    parent="msg_c5801a080001NoTeSnOtEs0003")

    empty = _Session(DB_EMPTY, "2026-03-15")
    empty.user("msg_c5801b000001EmPtYoNlYa0001", "09:00:00.000",
               text('Called the Read tool with the following input: {"filePath":"notes/a.md"}',
                    synthetic=True))

    path = ROOT / "opencode.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    connection = sqlite3.connect(path)
    connection.executescript(SCHEMA)
    connection.execute("INSERT INTO __drizzle_migrations VALUES (1, '3c1d', 1769000000000)")
    connection.executemany("INSERT INTO project VALUES (?,?,?,?,NULL,NULL,?,?,?,'[]',NULL)", [
        (PROJECT, LEDGER, "git", "ledger", main.at("09:00:00.000"), main.at("09:41:00.000"),
         main.at("09:00:00.000")),
        ("global", "/", None, None, notes.at("08:00:00.000"), notes.at("09:00:00.000"), None)])
    sessions = [
        (DB_MAIN, PROJECT, None, LEDGER, "Round Swiss VAT to 0.05 CHF", main, "09:12:03.100",
         "09:41:00.000"),
        (DB_CHILD, PROJECT, DB_MAIN, LEDGER, "Find the VAT rounding helper (@explore subagent)",
         child, "09:12:07.900", "09:12:13.000"),
        (DB_NOTES, "global", None, "/home/lin/notes", "New session - 2026-03-15T08:00:00.000Z",
         notes, "08:00:00.000", "08:00:13.000"),
        (DB_EMPTY, "global", None, "/home/lin/notes", "New session - 2026-03-15T09:00:00.000Z",
         empty, "08:59:59.000", "09:00:00.000")]
    for session_id, project, parent, directory, title, rows, created, updated in sessions:
        connection.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
            "time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?)",
            (session_id, project, parent, "brave-otter", directory, title, "1.2.10",
             rows.at(created), rows.at(updated)))
    # rows inserted newest first and parts shuffled: the reader must order them itself
    for rows in (empty, notes, child, main):
        connection.executemany("INSERT INTO message VALUES (?,?,?,?,?)",
                               [(i, rows.id, t, t, d) for i, t, d in reversed(rows.messages)])
        shuffled = rows.parts[1::2] + rows.parts[::2]
        connection.executemany("INSERT INTO part VALUES (?,?,?,?,?,?)",
                               [(i, m, rows.id, t, t, d) for i, m, t, d in shuffled])
    # a message whose session row is gone, and its part: rows of no session
    connection.execute("INSERT INTO message VALUES (?,?,?,?,?)", (
        "msg_c5801c000001OrPhAnEdMs0001", "ses_30e8c1d0cffeDeletedLater", notes.at("10:00:00.000"),
        notes.at("10:00:00.000"), dump({"role": "user", "time": {"created": notes.at("10:00:00.000")}})))
    connection.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (
        "prt_30e8c1d0cffe001Ms0001", "msg_c5801c000001OrPhAnEdMs0001", "ses_30e8c1d0cffeDeletedLater",
        notes.at("10:00:00.000"), notes.at("10:00:00.000"), dump(text("a prompt of a deleted session"))))
    connection.execute("INSERT INTO todo VALUES (?,?,?,?,?,?,?)",
                       (DB_MAIN, "Note the CHF change in the changelog", "completed", "low", 0,
                        main.at("09:31:00.000"), main.at("09:31:05.000")))
    connection.commit()
    connection.execute("VACUUM")
    connection.close()


# the JSON tree -------------------------------------------------------------------------------

def tree() -> None:
    storage = OLDER / "storage"
    day = "2025-11-20"
    write_json(storage / "project" / f"{PROJECT}.json", {
        "id": PROJECT, "worktree": LEDGER, "vcs": "git",
        "time": {"created": ms(f"{day}T14:00:00.000"), "initialized": ms(f"{day}T14:00:00.000")}})
    sessions = [
        (TREE_MAIN, None, "Speed up the CSV export", "14:02:00.000", [
            ("msg_a4c1f0e10001CsVeXpOrTs0001", "user", "14:02:01.000", [
                text("The CSV export of 40k invoices takes 90 seconds. Make it faster.")]),
            ("msg_a4c1f0e50001CsVeXpOrTs0002", "assistant", "14:02:05.000", [
                STEP_START,
                {"type": "reasoning", "text": "Probably one query per invoice.",
                 "time": {"start": 1, "end": 2}},
                tool("read", {"filePath": f"{LEDGER}/src/ledger/export.py"},
                     output="<file>\n" + "\n".join(f"{n:05d}| line {n}" for n in range(1, 300))),
                text("Each row runs its own customer query; I batched them into one join. "
                     "The export now takes 4 seconds."),
                {"type": "_torn"},
                STEP_FINISH]),
        ]),
        (TREE_CHILD, TREE_MAIN, "Profile the export (@general subagent)", "14:02:10.000", [
            ("msg_a4c1f1000001PrOfIlEeXp0001", "user", "14:02:10.500", [
                text("Profile ledger export --format csv and report the slowest call.")]),
            ("msg_a4c1f1040001PrOfIlEeXp0002", "assistant", "14:02:14.000", [
                text("fetch_customer() is 96% of the time: one query per invoice row.")]),
        ]),
    ]
    for session_id, parent, title, created, messages in sessions:
        info = {"id": session_id, "version": "0.15.8", "projectID": PROJECT, "directory": LEDGER,
                "title": title, "time": {"created": ms(f"{day}T{created}"),
                                         "updated": ms(f"{day}T14:03:00.000")}}
        if parent:
            info["parentID"] = parent
        else:
            info["summary"] = {"additions": 12, "deletions": 30, "files": 1}
        write_json(storage / "session" / PROJECT / f"{session_id}.json", info)
        for number, (message_id, role, clock, parts) in enumerate(messages):
            time = ms(f"{day}T{clock}")
            message = {"id": message_id, "sessionID": session_id, "role": role,
                       "time": {"created": time}}
            if role == "assistant":
                message |= {"parentID": messages[number - 1][0], "modelID": "gpt-5",
                            "providerID": "openai", "mode": "build",
                            "path": {"cwd": LEDGER, "root": LEDGER}, "cost": 0.0, "summary": False,
                            "tokens": {"input": 900, "output": 80, "reasoning": 0,
                                       "cache": {"read": 0, "write": 0}}}
            write_json(storage / "message" / session_id / f"{message_id}.json", message)
            for index, part in enumerate(parts):
                part_id = f"prt_{message_id[4:16]}{index:03d}{message_id[-6:]}"
                target = storage / "part" / message_id / f"{part_id}.json"
                if part.get("type") == "_torn":  # a write cut short
                    target.write_text('{\n  "id": "' + part_id + '",\n  "type": "te', "utf-8")
                    continue
                write_json(target, {"id": part_id, "sessionID": session_id,
                                    "messageID": message_id, **part})
    write_json(storage / "todo" / f"{TREE_MAIN}.json", [
        {"content": "Batch the customer lookups", "status": "completed", "priority": "high",
         "id": "1"}])
    write_json(storage / "session_diff" / f"{TREE_MAIN}.json", [
        {"file": "src/ledger/export.py", "before": "", "after": "", "additions": 12,
         "deletions": 30}])


def oldest() -> None:
    """June 2025: a storage folder per project, messages holding their parts (AI SDK shapes)."""
    storage = OLDER / "project" / "home-lin-code-ledger" / "storage" / "session"
    created = ms("2025-06-20T10:00:00.000")
    write_json(storage / "info" / f"{OLDEST}.json", {
        "id": OLDEST, "version": "0.1.150", "title": "Name the bookkeeping CLI",
        "time": {"created": created, "updated": created + 9000}})
    write_json(storage / "share" / f"{OLDEST}.json",
               {"secret": "fixture-share-secret", "url": "https://opencode.ai/s/fixture"})
    write_json(storage / "message" / OLDEST / "msg_97a0b1c20001OlDeStNaMe0001.json", {
        "id": "msg_97a0b1c20001OlDeStNaMe0001", "role": "user",
        "parts": [{"type": "text", "text": "What is a good name for a bookkeeping CLI?"}],
        "metadata": {"time": {"created": created + 1000}, "sessionID": OLDEST, "tool": {}}})
    write_json(storage / "message" / OLDEST / "msg_97a0b1c60001OlDeStNaMe0002.json", {
        "id": "msg_97a0b1c60001OlDeStNaMe0002", "role": "assistant",
        "parts": [{"type": "step-start"},
                  {"type": "tool-invocation", "toolInvocation": {
                      "state": "result", "toolCallId": "toolu_01", "toolName": "webfetch",
                      "args": {"url": "https://pypi.org/project/ledgerly/"},
                      "result": "404: no such project"}},
                  {"type": "text", "text": "How about 'ledgerly'? Short, and free on PyPI."}],
        "metadata": {"time": {"created": created + 5000, "completed": created + 9000},
                     "sessionID": OLDEST, "tool": {"toolu_01": {"title": "pypi.org"}},
                     "assistant": {"system": [], "modelID": "claude-sonnet-4", "providerID":
                                   "anthropic", "path": {"cwd": LEDGER, "root": LEDGER},
                                   "cost": 0.0, "tokens": {"input": 10, "output": 20,
                                                           "reasoning": 0}}}})


if __name__ == "__main__":
    opencode()
