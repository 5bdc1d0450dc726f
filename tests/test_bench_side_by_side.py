"""The side-by-side benchmark's baselines (FTS5, LanceDB hybrid) built from the test archive."""

from __future__ import annotations

from pathlib import Path

from benchmarks.baselines import load_messages
from benchmarks.side_by_side import percentiles
from benchmarks.side_by_side_engines import Fts5Engine, LanceEngine, build_baselines

from .helpers import SESSIONS

DIM = 64


def test_baselines_hold_every_message_and_find_by_words_and_vectors(tmp_path: Path) -> None:
    built = build_baselines(SESSIONS, tmp_path, DIM, workers=1)
    assert built["messages"] == len(load_messages(SESSIONS)) > 0
    assert built["hash_vectors"]["messages"] == built["messages"]
    assert not built["ann_index"]  # a flat scan under ANN_MIN_ROWS
    assert set(built["phases_s"]) >= {"parse", "fts5 insert", "lance add", "lance fts index"}
    fts5 = Fts5Engine(tmp_path / "fts5.sqlite3")
    assert fts5.search("ERR_CONNECTION_REFUSED httpkit")[0] == "t-en-errors"
    assert fts5.search("?!") == []
    lance = LanceEngine(tmp_path / "lancedb", DIM)
    assert lance.search("maple leaves ryokan")[0] == "t-kyoto"


def test_a_second_build_reuses_the_vectors_and_their_timing(tmp_path: Path) -> None:
    first = build_baselines(SESSIONS, tmp_path, DIM, workers=1)
    second = build_baselines(SESSIONS, tmp_path, DIM, workers=1)
    assert second["hash_vectors"] == {**first["hash_vectors"], "cached": True}
    assert second["messages"] == first["messages"]
    assert LanceEngine(tmp_path / "lancedb", DIM).table.count_rows() == first["messages"]


def test_percentiles_are_nearest_rank() -> None:
    found = percentiles([float(n) for n in range(1, 21)])
    assert found == {"p50": 10.5, "p95": 20.0, "min": 1.0, "max": 20.0, "n": 20}
