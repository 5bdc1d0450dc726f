"""Questions about how things stand now, and about how they stood at first, on the real model:
of the sessions near the top, the newest (or the oldest) comes first, when the query's words ask
for it or when `when` does. The sessions are the project's own (examples/ and eval/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from api import RecallService, Settings
from models import SearchRequest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = [ROOT / "examples" / "sessions", ROOT / "eval" / "sessions",
           ROOT / "eval" / "supersession" / "sessions"]
BACKUP_JANUARY = "486602f2-b93d-54bf-8ea3-e7c4b62ce4f0"  # restic at 02:00
BACKUP_JUNE = "efda559a-a3d5-536b-8cae-691ad1f5b8c3"  # moved to 04:15
FRIDAY_MARCH = "5973cc90-8e43-4d93-af48-24614faebc52"  # a trial allows Friday deploys
FRIDAY_APRIL = "ffc5daa7-fc63-4623-a3f2-174d04ce78ee"  # the vote bans them again

pytestmark = [pytest.mark.real_model, pytest.mark.xdist_group("models")]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, e5_dir: Path) -> RecallService:
    service = RecallService(Settings(home=tmp_path_factory.mktemp("current"), embedder="e5",
                                     model_cache=e5_dir.parent))
    assert service.index(FOLDERS).indexed == 58
    return service


def _top(service: RecallService, query: str, when: str | None = None) -> list[str]:
    request = SearchRequest(query=query, when=when)  # type: ignore[arg-type]
    return [r.session_id for r in service.search(request).results][:2]


def test_when_orders_the_sessions_near_the_top_by_date(service: RecallService) -> None:
    query = "restic 备份每天几点开始跑？"  # no word about time
    assert _top(service, query, "current") == [BACKUP_JUNE, BACKUP_JANUARY]
    assert _top(service, query, "history") == [BACKUP_JANUARY, BACKUP_JUNE]


def test_the_friday_deploys_question_is_answered_by_the_decision_that_stands(
        service: RecallService) -> None:
    """The vote of 2026-04-20 reversed the trial of 2026-03-06, naming it: the April session
    comes first, its decision marked current, and the March one marked superseded by it."""
    results = service.search(SearchRequest(query="What did we decide about Friday deploys?")).results
    ids = [r.session_id for r in results]
    assert ids[0] == FRIDAY_APRIL and ids.index(FRIDAY_MARCH) > 0
    april, march = results[0], results[ids.index(FRIDAY_MARCH)]
    assert any(f.status == "current" and any(r.session_id == FRIDAY_MARCH for r in f.supersedes)
               for f in april.facts)
    assert any(f.status == "superseded" and f.superseded_by is not None
               and f.superseded_by.session_id == FRIDAY_APRIL
               and f.superseded_by.date == "2026-04-20" for f in march.facts)
    now = service.facts.list("Friday deploys", "current").facts
    assert FRIDAY_APRIL in {f.session_id for f in now}
    assert FRIDAY_MARCH not in {f.session_id for f in now if "Friday deploys until 15:00" in f.text}


def test_the_querys_own_words_ask_for_now(service: RecallService) -> None:
    assert _top(service, "NAS 的 restic 备份现在每天几点开始跑？")[0] == BACKUP_JUNE
    assert _top(service, "restic 备份最开始定的是每天几点跑？")[0] == BACKUP_JANUARY
