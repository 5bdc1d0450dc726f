"""An import trains the ANN index without the writer lock: a live write meanwhile goes
through at once, Lance commits the index over it, and its compaction is left for later; a
compaction that gets in anyway only sends the build back under the lock."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from indexer import HashEmbedder
from indexer.ingest.ingestor import Ingestor
from indexer.stores import vector as vector_store
from indexer.stores.lock import writer_active
from indexer.stores.vector import VectorIndex, deleted_rows
from models import SearchRequest

from .helpers import agreement, make_service

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import generate_archive

SESSIONS = 40
TABLE = "messages_other"  # the largest table: English messages


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(vector_store, "ANN_MIN_ROWS", 300)  # a test-sized table gets one
    folder = tmp_path / "archive"
    list(generate_archive.generate(folder, SESSIONS))
    return folder


def write_during_build(monkeypatch: pytest.MonkeyPatch,
                       write: Callable[[VectorIndex], None]) -> list[bool]:
    """Run `write` once the import's first ANN build has read the table, just before it trains;
    whether the writer lock was held then."""
    held: list[bool] = []
    build, config = VectorIndex.build, vector_store.ann_config

    def build_and_note(self: VectorIndex, names: list[str]) -> None:
        if not held:  # the first try only: not the one under the lock after a conflict
            held.append(writer_active(self.path.parents[2] / "writer.lock"))
            vectors.append(self)
        build(self, names)

    def write_then_config(rows: int, dim: int) -> object:
        if vectors:
            write(vectors.pop())
        return config(rows, dim)

    vectors: list[VectorIndex] = []
    monkeypatch.setattr(VectorIndex, "build", build_and_note)
    monkeypatch.setattr(vector_store, "ann_config", write_then_config)
    return held


def test_a_live_write_goes_through_while_the_import_trains_the_index(
        tmp_path: Path, archive: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    service = make_service(tmp_path / "home")
    live = Ingestor(service.data, HashEmbedder(), lock_wait=0)  # would fail if it had to wait
    changed = generate_archive.session_record(7, 3, revision=1)  # a new last message
    outcomes = []

    def replace_a_session(vectors: VectorIndex) -> None:
        outcomes.append(live.ingest_record(changed, replace=True))  # a delete, then an add
        fresh = VectorIndex(vectors.path, vectors.dim)  # the build's handle is a version behind
        outcomes.append(sum(map(deleted_rows, fresh.tables.values())))  # compaction waits

    held = write_during_build(monkeypatch, replace_a_session)
    with caplog.at_level(logging.WARNING):
        assert service.index([archive]).indexed == SESSIONS
    assert held == [False]
    assert outcomes[0].changed and outcomes[1] > 0
    assert "failed" not in caplog.text  # committed over the write, not built again
    status = service.searcher.generation().vectors.index_status()[TABLE]
    # trained on the table as the import left it: the write's rows are searched flat till the
    # next write folds them in
    assert status["built_rows"] and status["indexed"] and status["unindexed"]
    last = changed["messages"][-1]["content"]
    hits = service.search(SearchRequest(query=last, mode="vector", limit=3)).results
    assert hits and hits[0].session_id == changed["sessionId"]
    assert agreement(service)[changed["sessionId"]] == len(changed["messages"])

    service.ingest_record(generate_archive.session_record(7, 5, revision=1), replace=True)
    vectors = service.searcher.generation().vectors
    assert sum(map(deleted_rows, vectors.tables.values())) == 0  # the next write compacted
    assert vectors.index_status()[TABLE]["unindexed"] == 0


def test_a_compaction_that_gets_in_sends_the_build_back_under_the_lock(
        tmp_path: Path, archive: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """Another program compacting the table (not a recall writer, which waits for the build)
    makes the build's commit conflict: the build runs again under the writer lock."""
    service = make_service(tmp_path / "home")

    def compact_behind_its_back(vectors: VectorIndex) -> None:
        other = VectorIndex(vectors.path, vectors.dim).tables[TABLE]
        other.delete(f"session_id = '{generate_archive.session_record(7, 3)['sessionId']}'")
        other.to_lance().optimize.compact_files(materialize_deletions_threshold=0.0)

    write_during_build(monkeypatch, compact_behind_its_back)
    with caplog.at_level(logging.WARNING):
        assert service.index([archive]).indexed == SESSIONS
    assert "building under it" in caplog.text
    status = service.searcher.generation().vectors.index_status()[TABLE]
    assert status["built_rows"] == status["indexed"] > 0
