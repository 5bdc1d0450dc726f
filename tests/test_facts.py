"""What stands now: a later statement that changes a value supersedes the earlier one, and every
interface shows it (facts, memories, search, HTTP), on the hash embedder and the real stores.
Deleting the later session restores the earlier statement; a reindex computes the same links."""

from __future__ import annotations

import pytest
from litestar.testing import TestClient

from api import RecallService
from api.cli import main
from api.http import create_app
from indexer.memories.supersession import SHOWN
from indexer.stores.facts import FactStore
from models import SearchFilters, SearchRequest

from .helpers import KESTREL_STANDUPS

JANUARY, FEBRUARY = (r["sessionId"] for r in KESTREL_STANDUPS)


@pytest.fixture
def changed(writable: RecallService) -> RecallService:
    for record in KESTREL_STANDUPS:
        writable.ingest_record(record)
    return writable


def _links(service: RecallService) -> list[tuple[str, str]]:
    with FactStore(service.data) as store:
        return sorted((link.later, link.earlier) for link in store.links())


def test_facts_show_what_stands_now_and_what_it_replaced(changed: RecallService) -> None:
    current = changed.facts.list("Kestrel standup", "current").facts
    assert [f.session_id for f in current if "10:15" in f.text] == [FEBRUARY]
    assert not any("9:30 every weekday" in f.text for f in current)

    marked = {f.session_id: f for f in changed.facts.list("Kestrel standup").facts
              if "standup is at 9:30" in f.text or "10:15 instead" in f.text}
    old, new = marked[JANUARY], marked[FEBRUARY]
    assert old.status == "superseded" and new.status == "current"
    assert old.superseded_by is not None and old.superseded_by.date == "2026-02-10"
    assert old.reason and "10:15" in old.reason and old.confidence
    assert [r.session_id for r in new.supersedes] == [JANUARY]

    chains = changed.facts.list("Kestrel standup", "history").chains
    chain = next(c for c in chains if any(f.id == old.id for f in c))
    assert [f.valid_from for f in chain] == sorted(f.valid_from for f in chain)
    assert chain[-1].id == new.id


def test_memories_mark_a_superseded_decision(changed: RecallService) -> None:
    memories = changed.memories.extract(JANUARY).memories
    old = next(m for m in memories if "standup is at 9:30" in m.text)
    assert old.status == "superseded"
    assert old.superseded_by is not None and old.superseded_by.session_id == FEBRUARY
    assert old.superseded_reason and "10:15" in old.superseded_reason and old.superseded_confidence
    new = next(m for m in changed.memories.extract(FEBRUARY).memories if "10:15 instead" in m.text)
    assert new.status == "current" and new.superseded_by is None


def test_search_answers_with_the_current_decision_first(changed: RecallService) -> None:
    request = SearchRequest(query="Kestrel standup every weekday", mode="keyword")
    results = changed.search(request).results
    ids = [r.session_id for r in results]
    assert ids.index(FEBRUARY) < ids.index(JANUARY)
    january = results[ids.index(JANUARY)]
    assert any(f.status == "superseded" and f.superseded_by and f.superseded_by.session_id == FEBRUARY
               for f in january.facts)
    # asking how it stood at first leaves the search's own order, still marked
    history = changed.search(SearchRequest(query="Kestrel standup every weekday", mode="keyword",
                                           when="history")).results
    assert history[0].session_id == JANUARY and history[0].facts


def test_deleting_the_later_session_restores_the_earlier_statement(changed: RecallService) -> None:
    assert _links(changed)
    changed.delete(FEBRUARY)
    assert not any(FEBRUARY in later for later, _ in _links(changed))
    old = next(f for f in changed.facts.list("Kestrel standup").facts if "9:30 every" in f.text)
    assert old.status == "current"


def test_a_reindex_computes_the_same_links(changed: RecallService) -> None:
    before = _links(changed)
    assert before
    changed.maintenance.reindex()
    assert _links(changed) == before


def test_facts_over_http(changed: RecallService) -> None:
    with TestClient(create_app(changed.settings, changed), base_url="http://127.0.0.1") as client:
        answer = client.get("/v1/facts", params={"subject": "Kestrel standup", "when": "current"})
        assert answer.status_code == 200
        assert any("10:15" in f["text"] for f in answer.json()["facts"])
        assert client.get("/v1/facts", params={"when": "someday"}).status_code == 400


def test_recovery_says_a_restored_fact_was_superseded(changed: RecallService) -> None:
    changed.snapshots.create(JANUARY)
    decision = changed.snapshots.recover(JANUARY)
    assert [f.superseded_by.session_id for f in decision.superseded_facts
            if f.superseded_by] == [FEBRUARY]
    assert any("superseded later" in reason for reason in decision.reasons)
    restored = {f.statement: f.active for f in decision.selected.facts}
    assert restored["We decided the Kestrel standup is at 9:30 every weekday."] is False


def test_a_pack_gives_what_stands_now_first_with_its_history(changed: RecallService) -> None:
    pack = changed.pack("Kestrel standup every weekday", budget=600)
    first = pack.excerpts[0]
    assert first.kind == "current" and first.session_id == FEBRUARY
    assert "10:15" in first.text and "replaces:" in first.text and "2026-01-05" in first.text


def test_the_digest_lists_what_changed_in_its_period(changed: RecallService) -> None:
    february = changed.digest("month", "2026-02-15")
    assert any(f.session_id == JANUARY and f.superseded_by and f.superseded_by.session_id == FEBRUARY
               for f in february.changes)
    assert not changed.digest("month", "2026-01-15").changes or all(
        f.superseded_by and f.superseded_by.date.startswith("2026-01")
        for f in changed.digest("month", "2026-01-15").changes)


def test_a_data_directory_indexed_before_links_were_kept_gets_them_on_its_next_write(
        changed: RecallService) -> None:
    before = _links(changed)
    for name in ("facts.sqlite3", "facts.sqlite3-wal", "facts.sqlite3-shm"):
        (changed.data.root / name).unlink(missing_ok=True)
    assert _links(changed) == []
    changed.ingest_record({"sessionId": "unrelated", "date": "2026-03-01", "messages": [
        {"role": "user", "content": "The zeppelin museum opens at nine."}]})
    assert _links(changed) == before


def test_check_notices_missing_statements_and_repair_restores_them(changed: RecallService) -> None:
    with FactStore(changed.data) as store:
        store.forget_sessions([JANUARY])
    kinds = {(d.session_id, d.kind) for d in changed.maintenance.check().differences}
    assert (JANUARY, "facts") in kinds
    changed.maintenance.repair()
    assert not [d for d in changed.maintenance.check().differences if d.kind == "facts"]
    assert _links(changed)


def test_a_superseding_session_is_brought_in_only_within_the_filters(
        changed: RecallService) -> None:
    query = "Kestrel standup every weekday"
    one = changed.search(SearchRequest(query=query, mode="keyword",
                                       filters=SearchFilters(session=JANUARY))).results
    assert [r.session_id for r in one] == [JANUARY]  # asked for that session only
    assert one[0].facts  # still marked
    changed.ingest_record(KESTREL_STANDUPS[1] | {"channel": "telegram"})  # said elsewhere
    assert _links(changed)
    webchat = changed.search(SearchRequest(query=query, mode="keyword",
                                           filters=SearchFilters(channel="webchat"))).results
    assert [r.session_id for r in webchat] == [JANUARY]
    anywhere = changed.search(SearchRequest(query=query, mode="keyword")).results
    assert [r.session_id for r in anywhere][:2] == [FEBRUARY, JANUARY]


def _unsure(service: RecallService) -> None:
    """Every link made less sure than the floor a link needs to be shown."""
    with FactStore(service.data) as store:
        store._db.execute("UPDATE links SET confidence = ?", (SHOWN - 0.2,))


def test_an_unsure_link_marks_nothing_superseded_but_stays_in_the_history(
        changed: RecallService, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _unsure(changed)
    assert _links(changed)  # kept
    facts = [f for f in changed.facts.list("Kestrel standup").facts if "9:30 every" in f.text]
    assert facts and all(f.status == "current" and f.superseded_by is None for f in facts)
    assert all(m.status != "superseded" for m in changed.memories.extract(JANUARY).memories)
    # search: nothing marked, nothing moved up or brought in
    results = changed.search(SearchRequest(query="Kestrel standup every weekday",
                                           mode="keyword")).results
    assert not [f for r in results for f in r.facts if f.status == "superseded"]
    assert not [m for r in results for m in r.messages if m.status == "superseded"]
    assert not [r for r in results if "supersedes" in (r.score_parts or {})]
    # recovery restores January's statement as still holding
    changed.snapshots.create(JANUARY)
    decision = changed.snapshots.recover(JANUARY)
    assert not decision.superseded_facts
    assert not any("superseded later" in reason for reason in decision.reasons)
    # the history shows the link with its reason and confidence, the older one still current
    chain = next(c for c in changed.facts.list("Kestrel standup", "history").chains
                 if any("9:30 every" in f.text for f in c))
    maybe = next(f for f in chain if "9:30 every" in f.text)
    assert maybe.status == "current" and maybe.maybe_superseded_by is not None
    assert maybe.maybe_superseded_by.session_id == FEBRUARY
    assert maybe.reason and "10:15" in maybe.reason and maybe.confidence == pytest.approx(SHOWN - 0.2)
    monkeypatch.setenv("RECALL_HOME", str(changed.settings.home))
    monkeypatch.setenv("RECALL_EMBEDDER", "hash")
    assert main(["facts", "--history", "--subject", "Kestrel standup", "--no-server"]) == 0
    out = capsys.readouterr().out
    assert f"maybe ({SHOWN - 0.2:.2f}, too unsure to mark it superseded)" in out
    assert "10:15" in out
