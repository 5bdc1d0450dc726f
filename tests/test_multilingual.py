"""multilingual-e5-small as recall's embedder: questions in one language find answers in the
other, where the English-only all-MiniLM-L6-v2 cannot."""

from __future__ import annotations

from pathlib import Path

import pytest

from api import RecallService, Settings
from models import IndexMismatch, SearchRequest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "sessions"
LEDGERLY_ZH = "bad4375f-834d-4371-b13b-a71baa9ba88a"  # Postgres vs SQLite, in Chinese
KYOTO_EN = "764c1fec-e243-4af9-bfbe-6ac01ec9e81e"  # cherry-blossom trip, in English
BIRTHDAY_ZH = "7f913ee9-21d0-472e-80fc-936a03f37a03"  # mom's 60th birthday dinner, in Chinese

CASES = [
    ("Which database did we pick for the bookkeeping side project?", LEDGERLY_ZH),
    ("去日本看樱花的旅行安排", KYOTO_EN),
    ("给我妈过六十大寿的饭店订在哪", BIRTHDAY_ZH),  # Chinese paraphrase
]

# one worker builds the models once (pytest -n 2 --dist loadgroup)
pytestmark = [pytest.mark.real_model, pytest.mark.xdist_group("models")]


def _service(home: Path, embedder: str, model_cache: Path) -> RecallService:
    service = RecallService(Settings(home=home, embedder=embedder, model_cache=model_cache))
    report = service.index([EXAMPLES])
    assert report.indexed == 14
    return service


@pytest.fixture(scope="module")
def e5_service(tmp_path_factory: pytest.TempPathFactory, e5_dir: Path) -> RecallService:
    return _service(tmp_path_factory.mktemp("e5-home"), "e5", e5_dir.parent)


def _top(service: RecallService, query: str, mode: str) -> list[str]:
    return [r.session_id for r in service.search(SearchRequest(query=query, mode=mode, limit=3)).results]


@pytest.mark.parametrize(("query", "expected"), CASES)
@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_e5_finds_answers_across_languages(e5_service: RecallService, query: str, expected: str,
                                           mode: str) -> None:
    assert _top(e5_service, query, mode)[0] == expected


@pytest.mark.parametrize(("query", "expected"), CASES[:2])
def test_english_only_model_misses_them(minilm_service: RecallService, query: str, expected: str) -> None:
    assert expected not in _top(minilm_service, query, "vector")[:1]


def test_e5_is_the_default_and_recorded(e5_service: RecallService) -> None:
    assert Settings.from_env({}).embedder == "e5"
    assert e5_service.stats().index.embedder == "intfloat/multilingual-e5-small"


def test_switching_models_needs_reindex(e5_service: RecallService, e5_dir: Path) -> None:
    other = RecallService(Settings(home=e5_service.data.root, embedder="minilm", model_cache=e5_dir.parent))
    with pytest.raises(IndexMismatch, match="recall reindex"):
        other.search(SearchRequest(query="Kyoto", mode="vector"))


@pytest.mark.parametrize("query", ["xylophone quasar zebra", "asdf qwer zxcv", "如何饲养企鹅",
                                   "火星上的紫色大象"])
def test_e5_nonsense_finds_nothing(e5_service: RecallService, query: str) -> None:
    assert _top(e5_service, query, "hybrid") == []
