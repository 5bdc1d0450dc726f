"""The ANN index on the vector table: built once the table is large enough, kept covering new
rows, retrained when the table has grown, and answering like a flat scan."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from indexer.stores import vector as vector_store
from indexer.stores import vector_ann
from models import SearchFilters, SearchRequest

from .helpers import make_service

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import generate_archive


@pytest.fixture
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_store, "ANN_MIN_ROWS", 300)  # PQ training needs 256 rows


def _big_tables(vectors: vector_store.VectorIndex) -> dict[str, dict[str, int | None]]:
    return {name: status for name, status in vectors.index_status().items()
            if status["rows"] >= vector_store.ANN_MIN_ROWS}


def test_index_is_built_kept_up_and_retrained(tmp_path: Path, small_threshold: None) -> None:
    archive = tmp_path / "archive"
    service = make_service(tmp_path / "home")
    list(generate_archive.generate(archive, 40))
    service.index([archive])
    vectors = service.searcher.generation().vectors
    status = _big_tables(vectors)
    assert "messages_other" in status  # the largest table: English messages
    for name, table in status.items():
        assert table["built_rows"] == table["rows"] and table["unindexed"] == 0, name
        assert {i.name for i in vectors.tables[name].list_indices()} >= {"vector_idx", "role_idx"}
    small = {name for name, table in vectors.index_status().items() if name not in status}
    assert all(vectors.index_status()[name]["built_rows"] is None for name in small)

    generate_archive.touch(archive, 40, 0.05)  # two sessions change: folded in, not retrained
    service.index([archive])
    vectors.refresh()
    after = _big_tables(vectors)
    for name, table in status.items():
        assert after[name]["built_rows"] == table["built_rows"] and after[name]["unindexed"] == 0

    list(generate_archive.generate(archive, 120))  # the tables triple: partitions retrained
    service.index([archive])
    vectors.refresh()
    grown = _big_tables(vectors)["messages_other"]
    assert grown["built_rows"] == grown["rows"] > 2 * status["messages_other"]["rows"]


def test_tables_split_by_kind_and_language(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    service = make_service(tmp_path / "home")
    list(generate_archive.generate(archive, 20))
    service.index([archive])
    vectors = service.searcher.generation().vectors
    for name in vectors.tables:
        roles = {role for data in vectors.rows(["role"], kinds=[name.split("_")[0]])
                 for role in data["role"].to_pylist()}
        memory_roles = {role for role in roles if role.startswith("memory:")}
        assert memory_roles == (roles if name.startswith("memories") else set()), name
    assert all(status["rows"] for status in vectors.index_status().values())


@pytest.mark.parametrize("index_type", ["IvfHnswSq", "IvfPq"])
def test_ann_search_matches_flat_search(tmp_path: Path, small_threshold: None, index_type: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    if index_type == "IvfPq":  # the index of large tables, here on a small one
        monkeypatch.setattr(vector_ann, "PQ_MIN_ROWS", vector_store.ANN_MIN_ROWS)
    archive = tmp_path / "archive"
    list(generate_archive.generate(archive, 40))
    flat_service = make_service(tmp_path / "flat")
    ann_service = make_service(tmp_path / "ann")
    vector_store.ANN_MIN_ROWS, threshold = 10**9, vector_store.ANN_MIN_ROWS
    flat_service.index([archive])
    vector_store.ANN_MIN_ROWS = threshold
    ann_service.index([archive])
    ann_vectors = ann_service.searcher.generation().vectors
    assert ann_vectors.index_status()["messages_other"]["built_rows"]
    kinds = {i.index_type for i in ann_vectors.tables["messages_other"].list_indices() if i.name == "vector_idx"}
    assert kinds == {index_type}
    assert not any(status["built_rows"] for status in
                   flat_service.searcher.generation().vectors.index_status().values())
    for query in generate_archive.sample_queries(10):
        for mode in ("vector", "hybrid"):
            request = SearchRequest(query=query, mode=mode, filters=SearchFilters())
            flat = [r.session_id for r in flat_service.search(request).results[:3]]
            ann = [r.session_id for r in ann_service.search(request).results[:3]]
            assert ann[:1] == flat[:1], (query, mode)


@pytest.mark.parametrize("index_type", ["IvfHnswSq", "IvfPq"])
def test_ann_index_builds_over_near_identical_vectors(tmp_path: Path, small_threshold: None,
                                                      index_type: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """One session of many near-identical messages (the hostile inputs' many-messages shape,
    at a size the suite can afford): the index is built and answers."""
    if index_type == "IvfPq":
        monkeypatch.setattr(vector_ann, "PQ_MIN_ROWS", vector_store.ANN_MIN_ROWS)
    inbox = tmp_path / "in"
    inbox.mkdir()
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message number {i}"}
                for i in range(600)]
    (inbox / "many.json").write_text(json.dumps(
        {"sessionId": "many", "date": "2026-02-03", "messages": messages}))
    service = make_service(tmp_path / "home")
    assert service.index([inbox]).indexed == 1
    vectors = service.searcher.generation().vectors
    built = {name: status for name, status in _big_tables(vectors).items() if status["built_rows"]}
    assert built and all(s["built_rows"] == s["rows"] for s in built.values())
    kinds = {i.index_type for name in built for i in vectors.tables[name].list_indices()
             if i.name == "vector_idx"}
    assert kinds == {index_type}
    hits = service.search(SearchRequest(query="message number 17", mode="vector")).results
    assert [h.session_id for h in hits] == ["many"]


def test_updates_and_deletes_leave_no_deleted_rows(tmp_path: Path, small_threshold: None) -> None:
    """Lance searches a table holding deleted rows through a per-query mask (2-5x slower), so
    every write that deletes rows ends by rewriting them out."""
    archive = tmp_path / "archive"
    service = make_service(tmp_path / "home")
    list(generate_archive.generate(archive, 40))
    service.index([archive])
    vectors = service.searcher.generation().vectors

    def deleted() -> dict[str, int]:
        vectors.refresh()
        return {name: vector_store.deleted_rows(table) for name, table in vectors.tables.items()}

    assert set(deleted().values()) == {0}
    generate_archive.touch(archive, 40, 0.1)  # four sessions change: their old rows are deleted
    report = service.index([archive])
    assert report.indexed == 4 and set(deleted().values()) == {0}
    victim = next(iter(vectors.session_counts()))
    service.delete(victim)
    assert set(deleted().values()) == {0} and victim not in vectors.session_counts()
    hits = service.search(SearchRequest(query="deploy", mode="vector")).results
    assert hits and all(hit.session_id != victim for hit in hits)


def test_search_sees_every_write_of_the_same_index(tmp_path: Path) -> None:
    """Search reads a cached Lance dataset per table: each add and delete must drop it."""
    from indexer.stores.documents import Doc, Passage, doc_key
    vectors = vector_store.VectorIndex(tmp_path / "vectors", dim=4, create=True)
    query = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
    assert vectors.search(query, SearchFilters(), 5, "other") == []

    def passage(session_id: str, message_id: str | None) -> Passage:
        doc = Doc(doc_key(session_id, message_id), session_id, message_id, "user", None,
                  20260329, "cli", (), None, "plain words")
        return Passage(doc, 0, doc.text)

    vectors.add([passage("s1", "m1"), passage("s2", None)],
                np.array([[1, 0, 0, 0], [0, 1, 0, 0]], dtype=np.float32))
    hits = vectors.search(query, SearchFilters(), 5, "other")
    assert [(h.session_id, h.message_id) for h in hits] == [("s1", "m1"), ("s2", None)]
    assert hits[0].similarity == pytest.approx(1.0) and hits[1].similarity == pytest.approx(0.0)
    vectors.delete_sessions(["s1"])
    assert [h.key for h in vectors.search(query, SearchFilters(), 5, "other")] == ["s2\x1f"]
