"""Live sessions through the service: lifecycle, incremental indexing, redaction, budgets,
listing, recovery, summaries, and appends racing a reindex."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import msgspec
import numpy as np
import pytest

from api import RecallService, Settings
from indexer import HashEmbedder
from models import (
    Conflict,
    InvalidInput,
    NotFound,
    SearchFilters,
    SearchRequest,
    SessionArchived,
    check_transition,
    parse_session,
)
from models.files import decode_session

from .helpers import make_service

KEY = "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA" * 2


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting the passages it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += list(texts)
        return super().embed_passages(texts)


def _keyword(service: RecallService, query: str, **filters: str) -> list[str]:
    response = service.search(SearchRequest(query=query, mode="keyword",
                                            filters=SearchFilters(**filters)))
    return [m.id for hit in response.results for m in hit.messages if m.id]


def _archive_file(service: RecallService, session_id: str) -> Path:
    return next(service.data.archive.rglob(f"{session_id}.json"))


def test_the_lifecycle_round_trips_through_the_archive_record() -> None:
    raw = {"sessionId": "s1", "date": "2026-05-01", "status": "paused", "category": "planning",
           "statusHistory": [{"status": "active", "at": "2026-05-01T09:00:00+08:00"},
                             {"status": "paused", "at": "2026-05-01T10:00:00+08:00"}]}
    session = parse_session(raw)
    assert session.status == "paused" and [c.status for c in session.status_history] == ["active", "paused"]
    again = parse_session(json.loads(msgspec.json.encode(session)))
    assert again == session
    # another tool's own "status" is not a lifecycle: the record is ingested as it is
    assert parse_session({**raw, "status": "done"}).status is None


def test_transitions() -> None:
    check_transition("s", "active", "paused")
    check_transition("s", "paused", "archived")
    check_transition("s", "archived", "archived")  # the same status: nothing to do
    with pytest.raises(SessionArchived, match="is archived"):
        check_transition("s", "archived", "active")
    with pytest.raises(SessionArchived):
        check_transition("s", None, "paused")  # ingested from a file: archived
    with pytest.raises(InvalidInput, match="unknown status 'done'"):
        check_transition("s", "active", "done")


def test_appends_are_searchable_at_once_and_only_new_messages_are_embedded(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    service = RecallService(Settings(home=tmp_path, embedder="hash", lock_wait=2), embedder=embedder)
    started = service.live.start({"title": "Trip", "channel": "webchat", "category": "planning"})
    sid = started.session_id
    assert (started.status, started.message_count) == ("active", 0)
    assert [c.status for c in started.status_history] == ["active"]

    one = service.live.append(sid, {"role": "user", "content": "Book the zeppelin museum"})
    assert one.message_ids == [f"{sid}-m1"] and one.message_count == 1
    assert _keyword(service, "zeppelin") == [f"{sid}-m1"]
    embedder.embedded.clear()
    batch = service.live.append(sid, {"messages": [
        {"role": "assistant", "content": "Done: the harbour museum, at nine."},
        {"role": "user", "content": "后天去看灯塔", "time": "2026-05-01T10:00:00+08:00"},
    ]})
    assert batch.message_ids == [f"{sid}-m2", f"{sid}-m3"] and batch.message_count == 3
    # the new messages only: nothing embedded again for the first one or the session itself
    assert embedder.embedded == ["Done: the harbour museum, at nine.", "后天去看灯塔"]
    assert _keyword(service, "灯塔") == [f"{sid}-m3"]
    vector = service.search(SearchRequest(query="harbour museum at nine", mode="vector"))
    assert vector.results[0].session_id == sid
    stored = service.session(sid)
    assert [m.time for m in stored.messages][2] == "2026-05-01T10:00:00+08:00"
    assert stored.messages[0].time >= started.status_history[0].at  # said now
    assert service.maintenance.check().ok, service.maintenance.check().differences


def test_secrets_are_redacted_before_anything_is_stored(tmp_path: Path) -> None:
    service = make_service(tmp_path)
    sid = service.live.start({"title": f"deploy with {KEY}"}).session_id
    result = service.live.append(sid, [{"role": "user", "content": f"the key is {KEY}"},
                                           {"role": "user", "content": "password: hunter2hunter2"}])
    assert result.redacted == {"anthropic_key": 1, "password": 1}
    text = "".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file()
                   and p.suffix in (".json", ".txt"))
    assert KEY not in text and "hunter2hunter2" not in text
    gen = service.searcher.generation()
    assert not any(KEY in d.text or "hunter2" in d.text for d in gen.keyword.documents())
    assert _keyword(service, "hunter2hunter2") == []


def test_retries_are_idempotent_and_a_changed_repeat_is_refused(tmp_path: Path) -> None:
    service = make_service(tmp_path)
    sid = service.live.start({"sessionId": "live-1"}).session_id
    assert sid == "live-1"
    with pytest.raises(Conflict, match="already exists"):
        service.live.start({"sessionId": "live-1"})
    message = {"id": "c-1", "role": "user", "content": "first"}
    service.live.append(sid, [message])
    again = service.live.append(sid, [message, {"role": "user", "content": "second"}])
    assert (again.appended, again.duplicates) == (1, 1)
    assert again.message_ids == ["c-1", f"{sid}-m2"]
    with pytest.raises(Conflict, match="'c-1' is already in session 'live-1' with other content"):
        service.live.append(sid, [{"id": "c-1", "role": "user", "content": "changed"}])
    assert [m.content for m in service.session(sid).messages] == ["first", "second"]


@pytest.mark.parametrize(("body", "error", "detail"), [
    ([], InvalidInput, "give at least one message"),
    ([1], InvalidInput, "message 1 must be an object with role and content"),
    ({"messages": "hi"}, InvalidInput, "'messages' must be a list of {role, content} objects"),
    ({"messages": [], "extra": 1}, InvalidInput, "a batch is {\"messages\": [...]} and nothing else"),
    ([{"role": "user", "content": 5}], InvalidInput, "message 1: message content must be text"),
    ([{"role": "user", "content": "x"}] * 1001, InvalidInput, "at most 1000 messages in one append"),
])
def test_bad_appends_are_refused_and_change_nothing(tmp_path: Path, body: object,
                                                    error: type[Exception], detail: str) -> None:
    service = make_service(tmp_path)
    sid = service.live.start({}).session_id
    with pytest.raises(error) as raised:
        service.live.append(sid, body)
    assert detail in raised.value.detail  # type: ignore[attr-defined]
    assert service.session(sid).messages == ()
    with pytest.raises(NotFound, match="no session 'nope'"):
        service.live.append("nope", [{"role": "user", "content": "x"}])
    with pytest.raises(InvalidInput, match="unknown field"):
        service.live.start({"title": "x", "colour": "red"})


def test_archiving_gives_the_record_an_ingested_file_would_give(tmp_path: Path) -> None:
    service = make_service(tmp_path / "a")
    sid = service.live.start({"title": "Kyoto plans", "channel": "cli",
                              "participants": ["Lin"]}).session_id
    service.live.append(sid, [{"role": "user", "content": "I prefer window seats on trains."},
                                  {"role": "assistant", "content": "Noted."}])
    service.live.set_status(sid, "paused")
    service.live.set_status(sid, "active")
    archived = service.live.set_status(sid, "archived")
    assert archived.status == "archived"
    assert [c.status for c in archived.status_history] == ["active", "paused", "active", "archived"]
    assert archived.summary.startswith("I prefer window seats")  # extractive, no LLM set
    with pytest.raises(SessionArchived, match="takes no more messages"):
        service.live.append(sid, [{"role": "user", "content": "late"}])
    with pytest.raises(SessionArchived):
        service.live.set_status(sid, "active")
    assert service.live.set_status(sid, "archived").status == "archived"  # no-op

    # the archive file, ingested elsewhere, is the same record, byte for byte
    data = _archive_file(service, sid).read_bytes()
    other = make_service(tmp_path / "b")
    inbox = tmp_path / "inbox" / f"{sid}.json"
    inbox.parent.mkdir()
    inbox.write_bytes(data)
    assert other.index([inbox]).indexed == 1
    assert _archive_file(other, sid).read_bytes() == data
    # and indexed the same way: summary, messages and memories
    assert {d.key for d in other.searcher.generation().keyword.documents()} == \
        {d.key for d in service.searcher.generation().keyword.documents()}
    assert service.memories.of(sid) and service.maintenance.check().ok


def test_token_budget_summary_first_then_newest(tmp_path: Path) -> None:
    service = make_service(tmp_path)
    sid = service.live.start({}).session_id
    service.live.append(sid, [{"role": "user", "content": "我们来规划去京都的旅行"}]
                            + [{"role": "assistant", "content": f"第{n}天的安排：参观寺庙和庭园"}
                               for n in range(1, 9)])
    loaded = service.session(sid, token_budget=60)
    assert loaded.summary == "我们来规划去京都的旅行"  # made for the messages left out
    kept = loaded.messages
    assert kept and kept[-1].content == "第8天的安排：参观寺庙和庭园"
    assert loaded.omitted_messages == 9 - len(kept) and loaded.estimated_tokens <= 60
    # CJK-aware: ~1.5 characters per token, so fewer Chinese messages fit than their length in
    # characters over 4 would suggest
    assert len(kept) < 5


def test_list_by_status_category_and_channel(writable: RecallService) -> None:
    a = writable.live.start({"title": "A", "channel": "cli", "category": "planning"}).session_id
    b = writable.live.start({"title": "B", "channel": "webchat", "category": "debugging"}).session_id
    writable.live.set_status(b, "paused")

    def ids(**filters: str) -> set[str]:
        return {s.session_id for s in writable.list_sessions(**filters).sessions}

    assert ids(status="active") == {a}
    assert ids(status="paused") == {b}
    assert ids(category="Planning") == {a}
    assert ids(category="debugging", channel="webchat") == {b}
    assert len(ids(status="archived")) == 7  # the ingested test sessions
    with pytest.raises(InvalidInput, match="unknown status 'open'"):
        writable.list_sessions(status="open")


def test_pause_saves_a_snapshot_and_recovery_marks_the_session_recovered(tmp_path: Path) -> None:
    service = make_service(tmp_path)
    sid = service.live.start({"title": "Release checklist"}).session_id
    service.live.append(sid, [{"role": "user", "content": "We decided to ship on Friday. "
                                   "TODO: update the changelog before the release."}])
    service.live.set_status(sid, "paused")
    assert len(service.snapshots.of(sid).snapshots) == 1
    decision = service.snapshots.recover(sid, "finish the release")
    assert decision.selected.session_id == sid
    assert service.session(sid).status == "recovered"
    service.live.append(sid, [{"role": "user", "content": "changelog done"}])  # still open
    assert service.live.set_status(sid, "active").status == "active"

    # an open session with no snapshot yet gets one taken at recovery
    other = service.live.start({"title": "Quick question"}).session_id
    service.live.append(other, [{"role": "user", "content": "Remind me to call the bank."}])
    assert service.snapshots.recover(other).selected.session_id == other
    assert service.session(other).status == "recovered"
    # an archived session is recovered without reopening it
    service.live.set_status(sid, "archived")
    service.snapshots.recover(sid)
    assert service.session(sid).status == "archived"


def test_memories_of_an_open_session_are_current(tmp_path: Path) -> None:
    service = make_service(tmp_path)
    sid = service.live.start({}).session_id
    assert service.memories.of(sid) == []
    service.live.append(sid, [{"role": "user", "content": "Please don't use Markdown tables."}])
    assert [m.type for m in service.memories.of(sid)] == ["feedback"]
    assert service.search(SearchRequest(query="Markdown tables", filters=SearchFilters(scope="memories"))).results == ()
    service.live.set_status(sid, "archived")  # extracted and indexed on archive
    found = service.search(SearchRequest(query="Markdown tables", filters=SearchFilters(scope="memories"))).results
    assert found and found[0].session_id == sid


def test_llm_summary_when_configured_and_extractive_when_it_fails(tmp_path: Path,
                                                                  endpoint) -> None:
    url, handler = endpoint
    settings = Settings(home=tmp_path, embedder="hash", lock_wait=2, llm_url=url,
                        llm_model="tiny", llm_timeout=5, live_summary="llm")
    service = RecallService(settings, embedder=HashEmbedder())
    sid = service.live.start({}).session_id
    service.live.append(sid, [{"role": "user", "content": f"Plan the trip. key {KEY}"}])
    handler.answer = {"summary": "Planned a trip to Kyoto."}
    assert service.live.set_status(sid, "archived").summary == "Planned a trip to Kyoto."
    sent = json.dumps(handler.requests[-1]["body"])
    assert KEY not in sent and "[REDACTED:anthropic_key]" in sent  # the endpoint sees redacted text

    second = service.live.start({}).session_id
    service.live.append(second, [{"role": "user", "content": "Book the ferry to Naoshima."}])
    handler.answer = 500
    assert service.live.set_status(second, "archived").summary == "Book the ferry to Naoshima."
    with pytest.raises(InvalidInput, match="RECALL_LIVE_SUMMARY=llm needs an endpoint"):
        Settings.from_env({"RECALL_HOME": str(tmp_path), "RECALL_LIVE_SUMMARY": "llm"})
    assert replace(settings, live_summary="extractive").live_summary == "extractive"


def test_appends_while_a_reindex_runs_are_all_kept(writable: RecallService) -> None:
    sid = writable.live.start({"title": "during reindex"}).session_id
    errors: list[Exception] = []
    ids: list[str] = []

    def append_all() -> None:
        try:
            for n in range(20):
                ids.extend(writable.live.append(
                    sid, [{"role": "user", "content": f"reindexed word quokka{n}"}]).message_ids)
        except Exception as exc:  # noqa: BLE001  (reported below, with the reindex's own failures)
            errors.append(exc)

    other = RecallService(writable.settings, embedder=HashEmbedder())  # another writer
    writer = threading.Thread(target=append_all)
    before = writable.data.current_generation()
    writer.start()
    reports = [other.maintenance.reindex() for _ in range(3)]
    writer.join(60)
    assert not errors and not writer.is_alive()
    assert writable.data.current_generation() != before and all(r.indexed >= 8 for r in reports)
    assert len(ids) == len(set(ids)) == 20
    session = writable.session(sid)
    assert [m.content for m in session.messages] == [f"reindexed word quokka{n}" for n in range(20)]
    for n in range(20):
        assert _keyword(writable, f"quokka{n}") == [f"{sid}-m{n + 1}"], n
    assert writable.maintenance.check().ok, writable.maintenance.check().differences
    assert decode_session(_archive_file(writable, sid).read_bytes()).status == "active"
