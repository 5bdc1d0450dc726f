"""The ANN index on the vector table: built once the table is large enough, kept covering new
rows, retrained when the table has grown, and answering like a flat scan."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from indexer import vector_store
from models import SearchFilters, SearchRequest
from tests.conftest import make_service

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import generate_archive


@pytest.fixture
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_store, "ANN_MIN_ROWS", 200)


def test_index_is_built_kept_up_and_retrained(tmp_path: Path, small_threshold: None) -> None:
    archive = tmp_path / "archive"
    service = make_service(tmp_path / "home")
    list(generate_archive.generate(archive, 20))
    service.index([archive])
    vectors = service.searcher.generation().vectors
    status = vectors.index_status()
    assert status["rows"] >= 200 and status["built_rows"] == status["rows"]
    assert status["unindexed"] == 0
    assert {i.name for i in vectors.table.list_indices()} >= {"vector_idx", "lang_idx", "role_idx"}

    generate_archive.touch(archive, 20, 0.1)  # two sessions change: folded in, not retrained
    service.index([archive])
    vectors.refresh()
    after = vectors.index_status()
    assert after["built_rows"] == status["built_rows"] and after["unindexed"] == 0

    list(generate_archive.generate(archive, 60))  # the table triples: partitions retrained
    service.index([archive])
    vectors.refresh()
    grown = vectors.index_status()
    assert grown["built_rows"] == grown["rows"] > 2 * status["rows"]


def test_ann_search_matches_flat_search(tmp_path: Path, small_threshold: None) -> None:
    archive = tmp_path / "archive"
    list(generate_archive.generate(archive, 30))
    flat_service = make_service(tmp_path / "flat")
    ann_service = make_service(tmp_path / "ann")
    vector_store.ANN_MIN_ROWS, threshold = 10**9, vector_store.ANN_MIN_ROWS
    flat_service.index([archive])
    vector_store.ANN_MIN_ROWS = threshold
    ann_service.index([archive])
    assert ann_service.searcher.generation().vectors.index_status()["built_rows"]
    assert flat_service.searcher.generation().vectors.index_status()["built_rows"] is None
    for query in generate_archive.sample_queries(10):
        for mode in ("vector", "hybrid"):
            request = SearchRequest(query=query, mode=mode, filters=SearchFilters())
            flat = [r.session_id for r in flat_service.search(request).results[:3]]
            ann = [r.session_id for r in ann_service.search(request).results[:3]]
            assert ann[:1] == flat[:1], (query, mode)
