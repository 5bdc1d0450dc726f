"""`RecallService.warm()`, what `recall serve` and `recall mcp` run at start-up: the first search's
work (the model, the relevance floor's lines, the stores) is done before any request comes."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from api import RecallService, Settings
from indexer.embedding.embedders import HashEmbedder

from .helpers import SESSIONS, make_service


def test_warm_runs_a_search_on_an_indexed_home(tmp_path: Path) -> None:
    make_service(tmp_path).index([SESSIONS])
    service = make_service(tmp_path)
    service.warm()
    assert service.searcher._background_floor is not None  # the floor's lines are embedded
    assert service.searcher.generation().vectors is not None


def test_warm_on_an_empty_home_does_nothing(tmp_path: Path) -> None:
    service = make_service(tmp_path)
    service.warm()
    assert service.searcher._background_floor is None


def test_a_failing_warm_up_is_logged_not_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    make_service(tmp_path).index([SESSIONS])
    other = RecallService(Settings(home=tmp_path, embedder="hash-64"), embedder=HashEmbedder(64))
    with caplog.at_level(logging.WARNING):
        other.warm()  # the index was built with hash-512
    assert "warm-up search failed" in caplog.text and "recall reindex" in caplog.text
