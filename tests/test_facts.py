"""What stands now: a later statement that changes a value supersedes the earlier one, and every
interface shows it (facts, memories, search, HTTP), on the hash embedder and the real stores.
Deleting the later session restores the earlier statement; a reindex computes the same links."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient

from api import RecallService
from api.http import create_app
from indexer.stores.facts import FactStore
from models import SearchRequest

JANUARY, FEBRUARY = "standup-jan", "standup-feb"


def _record(session_id: str, date: str, lines: list[tuple[str, str]]) -> dict[str, Any]:
    return {"sessionId": session_id, "date": date, "channel": "webchat",
            "participants": ["Ana", "Bot"],
            "messages": [{"id": f"{session_id}-m{n}", "role": role, "content": text,
                          "time": f"{date}T10:0{n}:00Z"}
                         for n, (role, text) in enumerate(lines, start=1)]}


@pytest.fixture
def changed(writable: RecallService) -> RecallService:
    writable.ingest_record(_record(JANUARY, "2026-01-05", [
        ("user", "Let's set the rules for the Kestrel team standup."),
        ("user", "We decided the Kestrel standup is at 9:30 every weekday."),
        ("assistant", "Noted: Kestrel standup at 9:30.")]))
    writable.ingest_record(_record(FEBRUARY, "2026-02-10", [
        ("user", "Quick change for the Kestrel team."),
        ("user", "We decided to move the Kestrel standup to 10:15 instead of 9:30, starting Monday."),
        ("assistant", "Noted: Kestrel standup now at 10:15.")]))
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
    with TestClient(create_app(changed.settings, changed)) as client:
        answer = client.get("/v1/facts", params={"subject": "Kestrel standup", "when": "current"})
        assert answer.status_code == 200
        assert any("10:15" in f["text"] for f in answer.json()["facts"])
        assert client.get("/v1/facts", params={"when": "someday"}).status_code == 400
