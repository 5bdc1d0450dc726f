"""Forgetting: after `recall delete --purge`, a deleted session's text is in no file under the
data directory, in no older LanceDB version and in no Tantivy segment, and everything else is
still there and searchable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api.cli import main
from indexer.maintenance.check import check as check_consistency
from models import SearchFilters, SearchRequest

from .helpers import make_service

MARKER = "Quixotrombone"  # one made-up word: nothing else in the archive holds it


def _session(sid: str, words: str) -> dict:
    return {"session_id": sid, "date": "2026-03-29", "channel": "cli", "participants": ["ann"],
            "messages": [{"id": "m1", "role": "user", "content": f"remember the {words} plan"},
                         {"id": "m2", "role": "assistant", "content": f"noted: the {words} plan "
                          "ships on Friday"}]}


def _files_with(root: Path, needle: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def _tantivy_deleted_docs(root: Path) -> int:
    deleted = 0
    for meta in root.rglob("keyword/meta.json"):
        for segment in json.loads(meta.read_text())["segments"]:
            deleted += (segment.get("deletes") or {}).get("num_deleted_docs", 0)
    return deleted


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "gone.json").write_text(json.dumps(_session("gone-session", MARKER)))
    for i in range(5):
        (folder / f"kept{i}.json").write_text(json.dumps(_session(f"kept-{i}", f"harbour{i}")))
    return folder


def test_purge_leaves_no_trace_and_keeps_the_rest(tmp_path: Path, archive: Path) -> None:
    service = make_service(tmp_path / "home")
    service.index([archive])
    service.delete("gone-session")
    for mode in ("keyword", "vector", "hybrid"):
        found = service.search(SearchRequest(query=MARKER, mode=mode,
                                             filters=SearchFilters(scope="all")))
        assert "gone-session" not in {r.session_id for r in found.results}, mode
    root = service.data.root
    # a delete alone leaves the bytes behind: this is what the purge is for
    assert _tantivy_deleted_docs(root) > 0
    assert _files_with(root, "gone-session") and _files_with(root, MARKER)

    copied = service.maintenance.purge()

    assert _files_with(root, "gone-session") == []
    assert _files_with(root, MARKER) == []
    assert _files_with(root, MARKER.lower()) == []
    assert _tantivy_deleted_docs(root) == 0
    assert len([p for p in service.data.index_root.iterdir() if p.is_dir()]) == 1
    vectors = service.searcher.generation().vectors
    assert all(len(table.list_versions()) <= 2 for table in vectors.tables.values())
    assert copied.vector_rows == vectors.count()
    assert check_consistency(service.data, service.embedder.name).ok
    for i in range(5):
        hits = service.search(SearchRequest(query=f"harbour{i}", mode="keyword")).results
        assert hits and hits[0].session_id == f"kept-{i}"


def test_cli_delete_purge(tmp_path: Path, archive: Path, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RECALL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RECALL_EMBEDDER", "hash")
    assert main(["index", str(archive)]) == 0
    assert main(["delete", "gone-session", "--purge"]) == 0
    out = capsys.readouterr().out
    assert "deleted gone-session" in out and "purged" in out
    # the audit log keeps the ids a delete named (never text): the one file that may
    assert _files_with(tmp_path / "home", "gone-session") == [str(tmp_path / "home" / "audit.jsonl")]
    assert main(["delete"]) != 0
    assert "--purge" in capsys.readouterr().err
