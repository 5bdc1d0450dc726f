"""The server's memory diagnostics: the tracemalloc hook's growth report, glibc malloc's arena
limit and summary (api/http/allocator.py), and the soak's memory figures from its samples."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pyarrow
import pytest

from api.http.allocator import arena_summary, limit_arenas
from api.http.memory_trace import dump, start_from_env
from benchmarks.soak_memory import memory_rows, read_trace_folder, slopes


def test_the_snapshots_dumped_name_the_site_that_grew(tmp_path: Path) -> None:
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start(5)
    try:
        dump(tmp_path, 60)
        kept = [bytes(1024) for _ in range(2000)]  # ~2 MB held by this line
        dump(tmp_path, 120)
    finally:
        if not was_tracing:
            tracemalloc.stop()
    report = read_trace_folder(tmp_path)
    assert (report["from_s"], report["to_s"]) == (60, 120)
    assert [line["at_s"] for line in report["dumps"]] == [60, 120]
    top = report["top_growing"][0]
    assert top["traceback"][-1].startswith(f"{__file__}:")
    assert top["size_diff_kb"] > 1900 and top["count_diff"] >= 2000
    assert len(kept) == 2000


def test_without_frames_only_the_allocator_figures_are_written(tmp_path: Path) -> None:
    """RECALL_TRACEMALLOC_FRAMES=0: no tracing, no snapshot; malloc's and Arrow's figures, the
    latter counting what Arrow's pool holds now."""
    if tracemalloc.is_tracing():
        pytest.skip("another test traces")
    assert start_from_env({"RECALL_TRACEMALLOC": str(tmp_path / "other"),
                           "RECALL_TRACEMALLOC_FRAMES": "0", "RECALL_TRACEMALLOC_EVERY": "3600"})
    assert not tracemalloc.is_tracing()
    dump(tmp_path, 60)
    held = pyarrow.array(range(1_000_000), type=pyarrow.int64())  # 8 MB from Arrow's pool
    dump(tmp_path, 120)
    report = read_trace_folder(tmp_path)
    assert not list(tmp_path.glob("*.tracemalloc"))
    first, last = (line["arrow"] for line in report["dumps"])
    assert last["bytes"] - first["bytes"] >= 8_000_000 and last["backend"] == first["backend"]
    assert len(held) == 1_000_000


def test_a_folder_without_snapshots_reports_nothing(tmp_path: Path) -> None:
    assert read_trace_folder(tmp_path) == {"dumps": [], "top_growing": [], "from_s": None,
                                           "to_s": None}


def test_tracing_stays_off_without_the_variable() -> None:
    assert start_from_env({}) is None
    assert start_from_env({"RECALL_TRACEMALLOC": ""}) is None


def test_arena_summary_reads_malloc_info() -> None:
    summary = arena_summary()
    if summary is None:
        pytest.skip("malloc is not glibc's here")
    assert summary["arenas"] >= 1
    assert summary["system_bytes"] > 0 and summary["free_bytes"] >= 0


def test_the_user_s_malloc_arena_max_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert limit_arenas() is False


def test_slopes_leave_out_the_warm_up() -> None:
    # 500 MB of warm-up in the first minute, then anonymous memory +1 MB per minute, RSS flat
    samples = [(float(at), {"rss": 900.0 if at >= 60 else 400.0,
                            "anon": 500.0 + at / 60 if at >= 60 else 0.0, "threads": 90.0})
               for at in range(0, 1800, 5)]
    assert slopes(samples, after_s=60, window_s=600) == {"rss": 0.0, "anon": 10.0}
    assert slopes(samples[:2], after_s=60, window_s=600) == {"rss": None, "anon": None}
    row = memory_rows(samples, 600, 1200)
    assert row["anon_mean"] == round(500 + (600 + 1195) / 2 / 60)
    assert row["anon_max"] == round(500 + 1195 / 60) and row["threads_max"] == 90
    assert row["file_mean"] is None
