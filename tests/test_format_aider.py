"""The aider importer: one Markdown history, many sessions; user, tool and answer lines told
apart; found by `recall index` and `recall import aider`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from indexer.formats import ImportOptions, NothingToImport, detect_format
from indexer.formats.importer import candidate_files, default_paths
from indexer.formats.sources import discover, read_transcripts
from models import SearchRequest

from .helpers import FORMATS, make_service

HISTORY = FORMATS / "aider" / "ledger" / ".aider.chat.history.md"


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
    with pytest.raises(Exception, match="invalid JSON|not an aider chat history"):
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
