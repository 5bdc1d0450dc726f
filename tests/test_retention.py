"""Retention tiers: off by default, a dry run writes nothing, applying trims messages and keeps
the record, its summary and its memories searchable, through reindex too, and only once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api import RecallService, Settings
from api.cli import main
from api.service.sessions import ArchivedSession
from indexer.maintenance.retention import COMPRESSED_SUMMARY_CHARS
from indexer.stores.memories import MemoryStore
from models import Decision, InvalidInput, SearchFilters, SearchRequest

from .helpers import agreement

STYLE = {
    "sessionId": "t-style",
    "date": "2026-01-04",
    "channel": "webchat",
    "participants": ["Lin", "Atlas"],
    "messages": [
        {"id": "m1", "role": "user", "content": "请帮我整理一下周报的格式。\n第二行", "time": "2026-01-04T09:00:00+08:00"},
        {"id": "m2", "role": "assistant", "content": "好的，下面用表格列出本周的进展。"},
        {"id": "m3", "role": "user", "content": "不要用Markdown表格，改成编号列表。"},
        {"id": "m4", "role": "user", "content": "Also, stop adding emojis to the headings."},
    ],
}
LONG = {
    "sessionId": "t-long", "date": "2026-01-05", "summary": "Chose the heron design. " * 30,
    "decisions": [{"text": "use the heron logo", "context": "the owl looked too sleepy"}],
    "messages": [{"role": "user", "content": "which logo, heron or owl?"}],
}
AS_OF = "2026-04-10"  # t-blocks (04-02) and t-zh-upgrade (03-29) are 8 and 12 days old


def files(service: RecallService) -> dict[str, bytes]:
    root = service.data.root
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "index" not in p.parts and p.name != "writer.lock"}


def archived(service: RecallService, session_id: str) -> ArchivedSession:
    return service.session(session_id)


def hits(service: RecallService, query: str, **filters: str) -> list[tuple[str, str | None]]:
    response = service.search(SearchRequest(query=query, mode="keyword",
                                            filters=SearchFilters(**filters)))
    return [(h.session_id, m.id) for h in response.results for m in h.messages]


@pytest.fixture
def trimmed_home(writable: RecallService) -> RecallService:
    writable.ingest_record(STYLE)
    writable.ingest_record(LONG)
    return writable


def test_retention_is_off_by_default(trimmed_home: RecallService, capsys, monkeypatch) -> None:
    before = files(trimmed_home)
    result = trimmed_home.maintenance.retention(apply=True)
    assert (result.enabled, result.sessions) == (False, [])
    assert files(trimmed_home) == before
    monkeypatch.setenv("RECALL_HOME", str(trimmed_home.data.root))
    monkeypatch.setenv("RECALL_EMBEDDER", "hash")
    assert main(["retention", "--apply"]) == 0
    assert "retention is off" in capsys.readouterr().out
    assert files(trimmed_home) == before


def test_settings_from_the_environment(tmp_path: Path) -> None:
    settings = Settings.from_env({"RECALL_HOME": str(tmp_path), "RECALL_RETENTION_FULL_DAYS": "7",
                                  "RECALL_RETENTION_SUMMARY_DAYS": "30"})
    assert (settings.retention_full_days, settings.retention_summary_days) == (7, 30)
    assert Settings.from_env({"RECALL_HOME": str(tmp_path)}).retention_full_days is None
    with pytest.raises(InvalidInput):
        Settings.from_env({"RECALL_HOME": str(tmp_path), "RECALL_RETENTION_FULL_DAYS": "30",
                           "RECALL_RETENTION_SUMMARY_DAYS": "7"})
    with pytest.raises(InvalidInput):
        Settings.from_env({"RECALL_HOME": str(tmp_path), "RECALL_RETENTION_FULL_DAYS": "soon"})


def test_dry_run_lists_moves_and_changes_nothing(trimmed_home: RecallService) -> None:
    before = files(trimmed_home)
    result = trimmed_home.maintenance.retention(full_days=7, summary_days=30, today=AS_OF)
    assert result.dry_run and result.applied is None
    moves = {s.session_id: (s.tier, s.target) for s in result.sessions}
    assert moves["t-blocks"] == moves["t-zh-upgrade"] == ("full", "summary")
    assert moves["t-kyoto"] == moves["t-style"] == ("full", "compressed")
    assert len(moves) == 9  # every session older than a week
    long = next(s for s in result.sessions if s.session_id == "t-long")
    assert long.drops == ["1 messages (25 characters)",
                          f"summary cut from 720 to about {COMPRESSED_SUMMARY_CHARS} characters",
                          "1 decision contexts"]
    style = next(s for s in result.sessions if s.session_id == "t-style")
    assert style.summary_built and style.messages_dropped == 4
    assert files(trimmed_home) == before


def test_apply_trims_and_keeps_summary_and_memories_searchable(trimmed_home: RecallService) -> None:
    memories_before = MemoryStore(trimmed_home.data).load("t-style")
    assert memories_before and hits(trimmed_home, "Markdown表格", scope="memories")
    result = trimmed_home.maintenance.retention(full_days=7, summary_days=30, today=AS_OF,
                                                apply=True)
    assert result.applied == 9
    agreement(trimmed_home)  # archive, state and both indexes still agree

    style = archived(trimmed_home, "t-style")
    assert style.messages == ()
    assert style.retention.tier == "compressed"
    assert style.retention.message_count == 4
    assert style.retention.last_activity == "2026-01-04"
    assert any("4 messages" in note and "dropped" in note for note in style.retention.dropped)
    assert style.summary.startswith("请帮我整理一下周报的格式。")  # built: first user line...
    assert "第二行" not in style.summary
    assert (style.participants, style.channel) == (("Lin", "Atlas"), "webchat")
    # ...and its memories are the ones extracted before the messages went
    assert MemoryStore(trimmed_home.data).load("t-style") == memories_before
    assert [m.text for m in trimmed_home.memories.of("t-style")] == [m.text for m in memories_before]
    assert hits(trimmed_home, "Markdown表格", scope="memories")[0][0] == "t-style"
    assert ("t-style", None) in hits(trimmed_home, "周报")  # the summary document

    kyoto = archived(trimmed_home, "t-kyoto")
    assert kyoto.messages == () and kyoto.summary.startswith("Planned a Kyoto trip")
    assert ("t-kyoto", None) in hits(trimmed_home, "Kyoto")
    assert archived(trimmed_home, "t-blocks").retention.tier == "summary"

    long = archived(trimmed_home, "t-long")
    assert len(long.summary) <= COMPRESSED_SUMMARY_CHARS + 1
    assert long.decisions == (Decision(text="use the heron logo"),)  # no context


def test_a_trimmed_session_is_listed_with_the_messages_it_had(trimmed_home: RecallService) -> None:
    trimmed_home.maintenance.retention(full_days=7, summary_days=30, today=AS_OF, apply=True)
    listed = {s.session_id: s for s in trimmed_home.list_sessions(limit=100).sessions}
    style = listed["t-style"]
    assert style.message_count == 0  # what the archive holds now...
    assert style.trimmed is not None  # ...and what it held
    assert (style.trimmed.tier, style.trimmed.message_count) == ("compressed", 4)
    trimmed_home.maintenance.reindex()  # the state is rebuilt from the archive: still said
    again = {s.session_id: s for s in trimmed_home.list_sessions(limit=100).sessions}
    assert again["t-style"].trimmed == style.trimmed


def test_reindex_keeps_trimmed_sessions(trimmed_home: RecallService) -> None:
    trimmed_home.maintenance.retention(full_days=7, summary_days=30, today=AS_OF, apply=True)
    memories = MemoryStore(trimmed_home.data).load("t-style")
    record = archived(trimmed_home, "t-style")
    report = trimmed_home.maintenance.reindex()
    assert not report.rejected
    agreement(trimmed_home)
    assert archived(trimmed_home, "t-style") == record
    assert MemoryStore(trimmed_home.data).load("t-style") == memories
    assert hits(trimmed_home, "Markdown表格", scope="memories")[0][0] == "t-style"
    assert ("t-kyoto", None) in hits(trimmed_home, "Kyoto")


def test_a_second_apply_is_a_no_op_and_tiers_only_get_lighter(trimmed_home: RecallService) -> None:
    trimmed_home.maintenance.retention(full_days=7, today=AS_OF, apply=True)  # no compressed step
    assert archived(trimmed_home, "t-kyoto").retention.tier == "summary"
    before = files(trimmed_home)
    again = trimmed_home.maintenance.retention(full_days=7, today=AS_OF, apply=True)
    assert again.sessions == [] and again.applied is None
    assert files(trimmed_home) == before
    # a longer full period later does not bring anything back, nor rewrite anything
    assert trimmed_home.maintenance.retention(full_days=400, today=AS_OF, apply=True).sessions == []
    # a compressed step later moves summary -> compressed, dropping no messages (none are left)
    later = trimmed_home.maintenance.retention(full_days=7, summary_days=30, today=AS_OF)
    kyoto = next(s for s in later.sessions if s.session_id == "t-kyoto")
    assert (kyoto.tier, kyoto.target, kyoto.messages_dropped) == ("summary", "compressed", 0)
    trimmed_home.maintenance.retention(full_days=7, summary_days=30, today=AS_OF, apply=True)
    record = archived(trimmed_home, "t-kyoto")
    assert record.retention.tier == "compressed" and record.retention.message_count == 3
    notes = record.retention.dropped  # the messages went once, noted once
    assert [n.split(": ", 1)[1] for n in notes] == [
        "summary: 3 messages (250 characters) dropped", "compressed: decision contexts dropped"]


def test_cli_dry_run_and_apply(trimmed_home: RecallService, capsys, monkeypatch) -> None:
    monkeypatch.setenv("RECALL_HOME", str(trimmed_home.data.root))
    monkeypatch.setenv("RECALL_EMBEDDER", "hash")
    monkeypatch.setenv("RECALL_RETENTION_FULL_DAYS", "7")
    before = files(trimmed_home)
    assert main(["retention", "--as-of", AS_OF]) == 0
    out = capsys.readouterr().out
    assert "t-blocks  2026-04-02  last active 2026-04-02  full -> summary: drops 5 messages" in out
    assert "nothing written" in out and files(trimmed_home) == before
    assert main(["retention", "--as-of", AS_OF, "--apply", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["applied"] == 9 and not result["dry_run"]
    assert main(["retention", "--full-days", "30", "--summary-days", "7"]) == 1
    assert "at least the full days" in capsys.readouterr().err
