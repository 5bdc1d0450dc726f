"""The aider importer: one Markdown history, many sessions; user, tool and answer blocks told
apart, each with its fate in the ledger; a history whose first header was cut off; found by
`recall index` and `recall import aider`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from indexer.formats import ImportOptions, NothingToImport, detect_format
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.ledger import Ledger
from indexer.formats.sources import discover, read_transcripts
from models import SearchRequest

from .helpers import FORMATS, make_service

HISTORY = FORMATS / "aider" / "ledger" / ".aider.chat.history.md"
# aider's own tests/fixtures/chat-history.md (Aider-AI/aider): a history that begins with the
# tail of a session whose header was cut off, as real histories do
REAL = FORMATS.parent / "real" / "aider" / "aider" / ".aider.chat.history.md"


def sessions(path: Path = HISTORY, **options: object) -> dict[str, dict]:
    found = read_transcripts(path, path.read_text("utf-8"), ImportOptions(**options)) or []
    return {t.record["sessionId"]: t.record for t in found}


def test_one_file_holds_many_sessions() -> None:
    found = sessions()
    # the session started at 11:02 had no prompt: nothing to import from it
    assert list(found) == ["aider-ledger-2026-03-02T09-15-40", "aider-ledger-2026-03-05T16-40-03"]
    first = found["aider-ledger-2026-03-02T09-15-40"]
    assert (first["channel"], first["date"], first["topics"]) == ("aider", "2026-03-02", ["ledger"])
    assert first["title"] == "The CSV export puts amounts in scientific notation for large invoices."


def test_user_tool_and_answer_lines() -> None:
    messages = sessions()["aider-ledger-2026-03-02T09-15-40"]["messages"]
    roles = [m["role"] for m in messages]
    assert roles == ["tool", "user", "assistant", "tool", "user", "tool", "assistant"]
    # a multi-line prompt is one message, without aider's markers and trailing spaces
    assert messages[1]["content"] == ("The CSV export puts amounts in scientific notation for "
                                      "large invoices.\nAlways write two decimals instead.")
    # an edit block's ">>>>>>> REPLACE" is the answer's, not aider's output
    assert ">>>>>>> REPLACE" in messages[2]["content"] and messages[2]["content"].endswith("```")
    assert messages[3]["content"].startswith("[aider] Applied edit to src/ledger/export.py")
    assert messages[4]["content"] == "/run pytest -q tests/test_export.py"
    assert len(messages[5]["content"]) <= len("[aider] ") + 301  # command output cut
    assert [m["id"] for m in messages] == [f"m{n}" for n in range(1, 8)]


def test_every_block_has_its_fate_in_the_ledger() -> None:
    ledger = Ledger()
    found = read_transcripts(HISTORY, HISTORY.read_text("utf-8"), ImportOptions(), ledger) or []
    totals = ledger.totals()
    assert totals.adds_up()
    # 3 headers, 7 + 3 blocks in the sessions imported, 1 tool block in the one without a prompt
    assert totals.records == 14 and (totals.imported, totals.merged) == (12, 0)
    assert totals.left_out == {"session without a prompt": 2}
    assert totals.parts_left_out == {"thinking": 1}
    first = ledger.fate("session 2026-03-02 09:15:40: line 2")
    assert first is not None and first.reason == "session start"
    assert ledger.fate("line 94").reason == "session without a prompt"  # type: ignore[union-attr]
    assert [t.skipped for t in found] == [{}, {"thinking": 1}]


def test_a_history_whose_first_header_was_cut_off() -> None:
    ledger = Ledger()
    found = read_transcripts(REAL, REAL.read_text("utf-8"), ImportOptions(), ledger) or []
    assert ledger.totals().adds_up()
    head = found[0].record
    # no start time of its own: the next header's time, which it preceded
    assert head["sessionId"] == "aider-aider-before-2024-08-05T19-33-02"
    assert head["date"] == "2024-08-05" and head["title"] == "# Fix any errors below, if possible."
    assert [m["role"] for m in head["messages"]] == ["assistant", "tool", "user", "tool"]
    assert head["messages"][2]["content"].startswith("# Fix any errors below, if possible.\n\n"
                                                     "## Running: /Users/gauthier/Projects/aider")
    # the rest of the file imports as usual; sessions without a prompt are left out
    assert [t.record["sessionId"] for t in found[1:]] == [
        "aider-aider-2024-08-05T19-33-32", "aider-aider-2024-08-05T20-39-59",
        "aider-aider-2024-08-05T20-40-33"]
    assert ledger.totals().left_out == {"session without a prompt": 12}
    assert detect_format(REAL, REAL.read_text("utf-8")) == "aider"


def test_a_cut_off_head_without_a_prompt_is_left_out(tmp_path: Path) -> None:
    history = tmp_path / "notes" / ".aider.chat.history.md"
    history.parent.mkdir()
    tail = "> Applied edit to notes.md  \n> Commit 1a2b3c4 docs: typo  \n\n"
    history.write_text(tail + HISTORY.read_text("utf-8"), "utf-8")
    ledger = Ledger()
    found = read_transcripts(history, history.read_text("utf-8"), ImportOptions(), ledger) or []
    assert [t.record["sessionId"] for t in found] == ["aider-notes-2026-03-02T09-15-40",
                                                      "aider-notes-2026-03-05T16-40-03"]
    assert ledger.fate("line 1") is not None
    assert ledger.totals().left_out == {"session header cut off": 1, "session without a prompt": 2}


def test_blocks_as_aider_writes_them(tmp_path: Path) -> None:
    """Shapes from aider/io.py: each prompt after a blank line (`user_input`), tool lines ending
    with two spaces and a message of several lines marked on its first line only
    (`tool_output` through `append_chat_history`)."""
    history = tmp_path / "shop" / ".aider.chat.history.md"
    history.parent.mkdir()
    history.write_text(
        "\n# aider chat started at 2026-04-01 10:00:00\n\n"
        "> Aider v0.86.1  \n"
        "> Here are summaries of some files present in my git repository.\n"
        "Do not propose changes to these files, treat them as *read-only*.\n\n"
        "shop/cart.py:\n│def total(items):\n\nshop/tax.py  \n\n"
        "#### /diff  \n\n#### /undo  \n\n"
        "#### <blank>  \n\n"
        "#### why is total() slow?  \n####   \n#### it loops twice  \n\n"
        "<thinking-content-7bbeb8e1>\n\n> the user quotes a line\n\n</thinking-content-7bbeb8e1>\n\n"
        "It sums the items twice.\n\n> Tokens: 1.8k sent, 653 received.  \n",
        "utf-8")
    ledger = Ledger()
    (session,) = read_transcripts(history, history.read_text("utf-8"), ImportOptions(),
                                  ledger) or []
    messages = [(m["role"], m["content"]) for m in session.record["messages"]]
    assert messages[0][0] == "tool" and messages[0][1].startswith("[aider] Aider v0.86.1\nHere are")
    assert messages[0][1].endswith("shop/tax.py")  # the summaries are aider's, not the model's
    # two prompts typed one after the other are two messages
    assert messages[1:3] == [("user", "/diff"), ("user", "/undo")]
    assert messages[3] == ("user", "why is total() slow?\n\nit loops twice")
    # the model's thinking is the answer's, "> " lines and all, and left out of it
    assert messages[4] == ("assistant", "It sums the items twice.")
    assert messages[5] == ("tool", "[aider] Tokens: 1.8k sent, 653 received.")
    assert ledger.totals().left_out == {"empty user block": 1}
    assert ledger.totals().parts_left_out == {"thinking": 1}
    assert ledger.totals().adds_up()


def test_a_confirmation_written_as_a_prompt_is_aiders_output(tmp_path: Path) -> None:
    """A release that writes aider's question with the answer as typed as a `#### ` line, then
    its own record of it (`> `, the answer it took): merged into that record, never a prompt;
    alone, it is tool output."""
    history = tmp_path / "app" / ".aider.chat.history.md"
    history.parent.mkdir()
    question = "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]:"
    history.write_text(
        "\n# aider chat started at 2026-04-22 22:40:47\n\n#### fix the reducer  \n\n"
        "> frontend/src/store/reducer.ts  \n\n"
        f"#### {question} all  \n> {question} a  \n> frontend/src/main.ts  \n\n"
        "Done.\n\n"
        f"#### {question} s  \n\n#### thanks  \n", "utf-8")
    ledger = Ledger()
    (session,) = read_transcripts(history, history.read_text("utf-8"), ImportOptions(),
                                  ledger) or []
    messages = [(m["role"], m["content"]) for m in session.record["messages"]]
    assert messages == [("user", "fix the reducer"),
                        ("tool", "[aider] frontend/src/store/reducer.ts"),
                        ("tool", f"[aider] {question} a\nfrontend/src/main.ts"),
                        ("assistant", "Done."),
                        ("tool", f"[aider] {question} s"),
                        ("user", "thanks")]
    assert [(f.where, f.reason) for f in ledger.fates() if f.fate == "merged"] == [
        ("session 2026-04-22 22:40:47: line 8", "aider's record of the same question on line 9")]
    assert ledger.totals().adds_up()


def test_a_history_written_on_windows(tmp_path: Path) -> None:
    """aider writes its history in text mode: "\\r\\n" line ends on Windows."""
    windows = tmp_path / "zen-mcp-server" / ".aider.chat.history.md"
    windows.parent.mkdir()
    real = FORMATS.parent / "real" / "aider" / "zen-mcp-server" / ".aider.chat.history.md"
    windows.write_bytes(real.read_bytes().replace(b"\n", b"\r\n"))
    def shown(path: Path) -> list[tuple[str, str, list[dict]]]:
        return [(sid, r["title"], r["messages"]) for sid, r in sessions(path).items()]

    assert shown(windows) == shown(real)


def test_sessions_started_in_the_same_second_keep_distinct_ids(tmp_path: Path) -> None:
    history = tmp_path / "cron" / ".aider.chat.history.md"
    history.parent.mkdir()
    run = "\n# aider chat started at 2026-04-01 03:00:00\n\n#### nightly check  \n\nAll good.\n"
    history.write_text(run * 2, "utf-8")
    found = sessions(history)
    assert list(found) == ["aider-cron-2026-04-01T03-00-00", "aider-cron-2026-04-01T03-00-00-2"]


def test_a_reasoning_models_thinking_is_left_out_unless_asked_for() -> None:
    session = "aider-ledger-2026-03-05T16-40-03"
    found = read_transcripts(HISTORY, HISTORY.read_text("utf-8"), ImportOptions()) or []
    (later,) = [t for t in found if t.record["sessionId"] == session]
    answer = later.record["messages"][-1]["content"]
    assert answer == "`src/ledger/vat.py` holds them in `RATES`, keyed by country code."
    assert later.skipped == {"thinking": 1}
    kept = sessions(thinking=True)[session]["messages"][-1]["content"]
    assert kept.startswith("[thinking] The user asks where VAT rates live") and "RATES" in kept
    assert "► ANSWER" not in kept


def test_detected_by_content_and_found_by_index(tmp_path: Path) -> None:
    assert detect_format(HISTORY, HISTORY.read_text("utf-8")) == "aider"
    assert HISTORY in list(discover([FORMATS / "aider"]))  # the one hidden file read
    other = tmp_path / ".aider.chat.history.md"
    other.write_text("# notes\n\nnot a chat\n", "utf-8")
    with pytest.raises(Exception, match=r"invalid JSON|not an aider chat history"):
        read_transcripts(other, other.read_text("utf-8"), ImportOptions(format="aider"))
    empty = tmp_path / "empty" / ".aider.chat.history.md"
    empty.parent.mkdir()
    empty.write_text("\n# aider chat started at 2026-01-01 10:00:00\n\n> Aider v0.82.1\n", "utf-8")
    with pytest.raises(NothingToImport, match="no session with a prompt"):
        read_transcripts(empty, empty.read_text("utf-8"), ImportOptions())


def test_default_location_and_candidates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_paths("aider", tmp_path, {"AIDER_CHAT_HISTORY_FILE": "/srv/h.md"}) == [
        Path("/srv/h.md")]
    monkeypatch.chdir(tmp_path)
    assert default_paths("aider", tmp_path, {}) == [tmp_path / ".aider.chat.history.md"]
    assert candidate_files("aider", [FORMATS]) == [HISTORY]


def test_indexed_and_reimported_as_the_history_grows(tmp_path: Path) -> None:
    folder = tmp_path / "ledger"
    shutil.copytree(HISTORY.parent, folder)
    service = make_service(tmp_path / "home")
    assert service.index([folder]).indexed == 2
    hits = service.search(SearchRequest(query="scientific notation CSV", mode="keyword")).results
    assert hits[0].session_id == "aider-ledger-2026-03-02T09-15-40"
    history = folder / ".aider.chat.history.md"
    history.write_text(history.read_text("utf-8") + "\n#### and the EU rates?\n\nIn `EU_RATES`.\n",
                       "utf-8")
    again = service.index([folder])
    # the file changed, but only its last session did: the other one stays as it was
    assert (again.indexed, again.unchanged, again.rejected) == (1, 1, [])
    last = service.session("aider-ledger-2026-03-05T16-40-03")
    assert last.messages[-1].content == "In `EU_RATES`."
    assert last.title == "which file holds the VAT rates?"
