"""The relink of statements at scale: the rise's statistics in linear time and bounded blocks,
and an import's last relink computed without the writer lock, stored only if no writer changed
the statements meanwhile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from indexer import HashEmbedder
from indexer.ingest.ingestor import Ingestor
from indexer.memories.rise import RiseRows, RiseStats, relative_similarity
from indexer.stores.facts import FactStore
from indexer.stores.lock import WriterLock

from .helpers import KESTREL_STANDUPS, make_service

JANUARY, FEBRUARY = (r["sessionId"] for r in KESTREL_STANDUPS)


def pairs(links: Any) -> list[tuple[str, str]]:
    return [(link.later.split(":")[0], link.earlier.split(":")[0]) for link in links]


def standup_files(folder: Path, standups: Any = KESTREL_STANDUPS) -> list[Path]:
    folder.mkdir()
    paths = []
    for standup in standups:
        paths.append(folder / f"{standup['sessionId']}.json")
        paths[-1].write_text(json.dumps(standup))
    return paths


def test_the_rise_is_the_one_computed_from_every_pair() -> None:
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(300, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    n = len(vectors)
    sims = vectors.astype(np.float64) @ vectors.T.astype(np.float64)
    others = sims[~np.eye(n, dtype=bool)].reshape(n, n - 1)  # each row without itself
    mean, spread = others.mean(axis=1), others.std(axis=1)
    expected = ((sims - mean[:, None]) / spread[:, None]
                + (sims - mean[None, :]) / spread[None, :]) / 2
    stats = RiseStats(16)
    for start in range(0, n, 70):  # in parts, as linking reads them
        stats.add(vectors[start:start + 70])
    rise = RiseRows(vectors, *stats.of(vectors))
    np.testing.assert_allclose(rise.mean, mean, atol=1e-6)
    np.testing.assert_allclose(rise.spread, spread, atol=1e-6)
    np.testing.assert_allclose(relative_similarity(vectors), expected, atol=1e-4)
    np.testing.assert_allclose(rise.rows_at([5, 40, 299], 100), expected[[5, 40, 299], :100],
                               atol=1e-4)
    picked = np.array([3, 17, 250])  # against some columns only
    np.testing.assert_allclose(rise.rows_at([5, 40], picked), expected[np.ix_(np.array([5, 40]), picked)],
                               atol=1e-4)
    # memories held elsewhere (their vectors and statistics) against these columns
    np.testing.assert_array_equal(rise.against(vectors[[5]], rise.mean[[5]], rise.spread[[5]], 100),
                                  rise.rows_at([5], 100))


def test_a_tie_at_a_rule_s_rise_does_not_depend_on_float_error() -> None:
    """With three statements each row has two others, so a pair nearest to each other rises
    exactly 1.0 (the rise a statement naming the old value needs) and the third pair exactly 0:
    the rise says so whatever the rounding of the products was."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        vectors = rng.normal(size=(3, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        off_diagonal = relative_similarity(vectors)[~np.eye(3, dtype=bool)]
        assert sorted(set(off_diagonal.tolist())) == [-1.0, 0.0, 1.0]


def test_a_block_of_rows_stays_small_however_many_statements() -> None:
    rise = RiseRows(np.eye(4, dtype=np.float32), np.zeros(4), np.ones(4))
    assert rise.block_for(4) == RiseRows.BLOCK
    assert rise.block_for(2_000_000) >= 1 and rise.block_for(2_000_000) * 2_000_000 <= RiseRows.CELLS


def test_links_computed_before_the_statements_changed_are_not_stored(tmp_path: Path) -> None:
    service = make_service(tmp_path / "home")
    assert service.index(standup_files(tmp_path / "in")).indexed == 2
    with FactStore(service.data) as facts:
        changes, links = facts.compute_links()
    assert pairs(links) == [(FEBRUARY, JANUARY)]
    service.ingestor().delete(FEBRUARY)  # forgets its statements, relinks: no link left
    with FactStore(service.data) as facts:
        assert not facts.store_links(changes, links)
        assert facts.links() == [] and not facts.stale


def test_the_import_computes_its_last_relink_without_the_writer_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    service = make_service(tmp_path / "home")
    compute = FactStore.compute_links
    lock_free: list[bool] = []

    def compute_observed(self: FactStore) -> Any:
        with WriterLock(service.data.lock_file, wait=0):  # WriterBusy if the import held it
            lock_free.append(True)
        return compute(self)

    monkeypatch.setattr(FactStore, "compute_links", compute_observed)
    importer = Ingestor(service.data, HashEmbedder(), lock_wait=0.5)
    assert importer.index_paths(standup_files(tmp_path / "in")).indexed == 2
    assert lock_free == [True]
    with FactStore(service.data) as facts:
        assert pairs(facts.links()) == [(FEBRUARY, JANUARY)] and not facts.stale


def test_a_write_during_the_last_relink_makes_the_import_compute_it_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The import of January alone computes its links; meanwhile a live write brings February,
    whose statement supersedes January's: what is stored is computed after that write."""
    service = make_service(tmp_path / "home")
    live = Ingestor(service.data, HashEmbedder(), lock_wait=0.5)
    compute = FactStore.compute_links
    computed: list[int] = []

    def compute_then_write(self: FactStore) -> Any:
        result = compute(self)
        computed.append(len(result[1]))
        if len(computed) == 1:
            live.ingest_record(KESTREL_STANDUPS[1])
        return result

    monkeypatch.setattr(FactStore, "compute_links", compute_then_write)
    importer = Ingestor(service.data, HashEmbedder(), lock_wait=0.5)
    inputs = standup_files(tmp_path / "in", KESTREL_STANDUPS[:1])
    assert importer.index_paths(inputs).indexed == 1
    assert computed == [0, 1]
    with FactStore(service.data) as facts:
        assert pairs(facts.links()) == [(FEBRUARY, JANUARY)] and not facts.stale
