"""Transcripts the agents wrote themselves (tests/data/real/<format>/, each with its source and
licence in MANIFEST.json): each imports with the sessions and messages counted by hand from
the file, every record has a fate, and one folder mixing them all imports every session the
per-format imports do.

Where recall's reading differs from the hand count on purpose (a marker the interface wrote is
left out, a command's output is a tool message, not the user's words, aider's record of a
question merged into its other record of it), the sample's `recall` entry gives recall's
counts, the left-out reasons or merges that explain the difference, and a note."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from api import RecallService, Settings
from indexer import HashEmbedder
from indexer.formats.common import FORMAT_NAMES, ImportOptions
from indexer.formats.ledger import MERGED, UNACCOUNTED, Ledger
from indexer.formats.sources import load_database, load_file, normalize
from models import RecallError, Session

from .helpers import ROOT

REAL = ROOT / "tests" / "data" / "real"
MANIFESTS = {fmt: json.loads((REAL / fmt / "MANIFEST.json").read_text("utf-8"))
             for fmt in FORMAT_NAMES if (REAL / fmt / "MANIFEST.json").exists()}
SAMPLES = [(fmt, sample) for fmt, manifest in MANIFESTS.items() for sample in manifest["samples"]]
LICENCES = ("MIT", "Apache-2.0", "BSD", "ISC", "MPL-2.0", "CC0", "CC-BY", "Unlicense")


def _read(fmt: str, path: Path) -> tuple[list[Session], Ledger]:
    ledger = Ledger()
    options = ImportOptions(format=fmt, deleted=True)
    data = path.read_bytes()
    raws: list[Any] = (load_database(path, options, ledger) if data.startswith(b"SQLite format 3")
                       else load_file(path, data, 50_000_000, options, ledger))
    return [normalize(raw.record, raw.fallback_id)[0] for raw in raws], ledger


def test_every_format_has_a_manifest_saying_what_it_holds_or_why_not() -> None:
    assert set(MANIFESTS) == set(FORMAT_NAMES)
    for fmt, manifest in MANIFESTS.items():
        if len(manifest["samples"]) < 2:
            assert manifest.get("missing"), f"{fmt}: fewer than 2 samples and no word on why"


@pytest.mark.parametrize(("fmt", "sample"), SAMPLES, ids=[f"{f}:{s['file'][-40:]}" for f, s in SAMPLES])
def test_each_sample_has_its_source_and_a_licence_that_lets_it_be_copied(
        fmt: str, sample: dict[str, Any]) -> None:
    assert (REAL / fmt / sample["file"]).is_file()
    assert sample["source"]["repository"] and sample["source"]["path"]
    assert sample["licence"].startswith(LICENCES), sample["licence"]


@pytest.mark.parametrize(("fmt", "sample"), SAMPLES, ids=[f"{f}:{s['file'][-40:]}" for f, s in SAMPLES])
def test_each_sample_imports_as_counted_by_hand(fmt: str, sample: dict[str, Any]) -> None:
    try:
        sessions, ledger = _read(fmt, REAL / fmt / sample["file"])
    except RecallError as exc:
        pytest.fail(f"refused: {exc.detail}")
    expected = {**sample["hand_count"], **sample.get("recall", {})}
    roles = Counter(m.role for s in sessions for m in s.messages)
    assert len(sessions) == expected["sessions"]
    assert sum(roles.values()) == expected["messages"]
    assert dict(roles) == {role: n for role, n in expected.get("by_role", {}).items() if n}
    totals = ledger.totals()
    assert totals.adds_up() and UNACCOUNTED not in totals.left_out, totals
    if "records" in expected:
        assert totals.records == expected["records"]
    recall = sample.get("recall", {})
    for reason in recall.get("left_out_reasons", []):
        assert reason in totals.left_out, (reason, totals.left_out)
    for into, count in recall.get("merged", {}).items():
        merged = [f for f in ledger.fates() if f.fate == MERGED and into in f.reason]
        assert len(merged) == count, (into, merged)
    if expected["messages"] != sample["hand_count"]["messages"]:  # a difference has its reason
        assert recall.get("left_out_reasons") or recall.get("merged"), recall


def test_one_folder_mixing_every_sample_imports_every_session(tmp_path: Path) -> None:
    per_format: set[str] = set()
    mixed = tmp_path / "mixed"
    for fmt, sample in SAMPLES:
        source = REAL / fmt / sample["file"]
        sessions, _ = _read(fmt, source)
        if source.name.endswith(".deleted") or ".jsonl.deleted." in source.name:
            continue  # left out by `recall index` unless --deleted: imported above on purpose
        per_format |= {s.session_id for s in sessions}
        target = mixed / fmt / sample["file"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
        for sibling in source.parent.iterdir():  # what a reader looks at beside the file
            if sibling.name in ("sessions.json", "workspace.json", "projects.json"):
                shutil.copy(sibling, target.parent / sibling.name)
    service = RecallService(Settings(home=tmp_path / "home", embedder="hash"),
                            embedder=HashEmbedder())
    report = service.index([mixed])
    listed = {s.session_id for s in service.list_sessions(limit=500).sessions}
    assert per_format <= listed, (per_format - listed, report.rejected)
    assert all(f.records == f.imported + f.merged + sum(f.left_out.values())
               for f in report.files_read)


def test_a_gemini_chat_opened_by_init_is_titled_by_what_the_user_typed_next() -> None:
    """The first turn is `/init`, as typed (displayContent), not the prompt Gemini CLI expanded
    it into; the title is the first prompt that is not a slash command."""
    (session,), ledger = _read("gemini", REAL / "gemini" / "tmp" / "discordbot" / "chats"
                               / "test_conversation_gemini.jsonl")
    prompts = [m.content for m in session.messages if m.role == "user"]
    assert prompts[0] == "/init" and session.messages[0].content == "/init"
    assert session.title == "幫我做一個小修改 請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題"
    assert session.title == prompts[1].split("\n", 1)[0]
    assert ledger.totals().parts_left_out["prompt expanded from what the user typed"] == 1


def test_a_claude_code_session_opened_by_a_slash_command_is_titled_by_the_next_prompt() -> None:
    """`<command-name>exit</command-name>` is recorded as the user's `/exit` (its output a tool
    message), and the title is the first real prompt after it (not the slash command, nor the
    shell escape `! git status`); a session whose only prompt is a slash command is titled by
    it."""
    projects = REAL / "claude-code" / "projects"
    (session,), _ = _read("claude-code", projects / "-realm-project-sinex" / "sample-with-tools.jsonl")
    prompts = [m.content for m in session.messages if m.role == "user"]
    first_real = "is everything necessary commited? is everything unnecessary not commited?"
    assert prompts[:3] == ["/exit", "! git status", first_real]
    assert [m.role for m in session.messages[3:5]] == ["user", "tool"]
    assert session.title == prompts[2]
    (only,) = [path for path in projects.rglob("3680252d-*.jsonl")]
    (session,), _ = _read("claude-code", only)
    assert [m.content for m in session.messages if m.role == "user"] == ["/model"]
    assert session.title == "/model"
