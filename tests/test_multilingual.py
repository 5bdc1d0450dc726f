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


UPGRADE_ZH = "063fbb6a-7c1c-4326-b4de-bb73c5b807f8"  # OpenClaw upgrade, in Chinese


def _strict(e5_service: RecallService, e5_dir: Path) -> RecallService:
    return RecallService(Settings(home=e5_service.data.root, embedder="e5",
                                  model_cache=e5_dir.parent, ranker="strict"))


def test_the_learned_ranker_orders_e5_hybrid_search(e5_service: RecallService) -> None:
    ranker = e5_service.searcher.ranker
    assert ranker is not None and ranker.applies_to(e5_service.embedder.name)
    results = e5_service.search(SearchRequest(query="升级")).results
    # the one session about upgrading far above those that never mention it
    assert results[0].session_id == UPGRADE_ZH
    assert all(results[0].score > 10 * r.score for r in results[1:])


@pytest.mark.parametrize(("query", "expected"), [
    ("升级", [UPGRADE_ZH]),
    ("which dentist did I book", []),  # the archive holds no answer
])
def test_strict_search_leaves_out_sessions_without_evidence(
        e5_service: RecallService, query: str, expected: list[str]) -> None:
    strict = [r.session_id for r in e5_service.search(
        SearchRequest(query=query, limit=3, strict=True)).results]
    assert strict == expected
    shown = _top(e5_service, query, "hybrid")
    assert len(shown) > len(strict) and shown[:1] == (expected[:1] or shown[:1])


def test_strict_search_keeps_the_answer_first_and_drops_most_of_the_rest(
        e5_service: RecallService) -> None:
    """Not an exact list: the runner-up (a weekly report) sits within 0.2 logit of the keep
    floor with every build of the encoder (fp32 -3.09, the int8 exports -3.12 and -2.90, the
    floor -2.94), so which side of it falls on is int8 noise, not ranking."""
    query = "Which database did we pick for the bookkeeping side project?"
    strict, shown = ([r.session_id for r in e5_service.search(
        SearchRequest(query=query, limit=5, strict=is_strict)).results]
        for is_strict in (True, False))
    assert strict[:1] == shown[:1] == [LEDGERLY_ZH]
    assert len(shown) == 5 and len(strict) <= 2


def test_strict_ranking_is_also_a_setting(e5_service: RecallService, e5_dir: Path) -> None:
    assert _top(_strict(e5_service, e5_dir), "which dentist did I book", "hybrid") == []
    assert _top(_strict(e5_service, e5_dir), "升级", "hybrid") == [UPGRADE_ZH]


def test_fused_ranking_is_a_setting_away(e5_service: RecallService, e5_dir: Path) -> None:
    fused = RecallService(Settings(home=e5_service.data.root, embedder="e5",
                                   model_cache=e5_dir.parent, ranker="fused"))
    assert fused.searcher.ranker is None
    assert _top(fused, "去日本看樱花的旅行安排", "hybrid")[0] == KYOTO_EN
