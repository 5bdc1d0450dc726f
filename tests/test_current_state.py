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
    query = "restic 备份每天几点开始跑？"  # no word about time: the best match first
    assert _top(service, query) == [BACKUP_JANUARY, BACKUP_JUNE]
    assert _top(service, query, "current") == [BACKUP_JUNE, BACKUP_JANUARY]
    assert _top(service, query, "history") == [BACKUP_JANUARY, BACKUP_JUNE]


def test_the_querys_own_words_ask_for_now(service: RecallService) -> None:
    assert _top(service, "NAS 的 restic 备份现在每天几点开始跑？")[0] == BACKUP_JUNE
    assert _top(service, "restic 备份最开始定的是每天几点跑？")[0] == BACKUP_JANUARY
