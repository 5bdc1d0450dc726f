"""`recall check`: each kind of disagreement made on purpose is reported, and --repair fixes it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from litestar.testing import TestClient

from api import RecallService, Settings
from api.cli import main
from api.http.app import create_app
from indexer import HashEmbedder
from indexer.stores.documents import session_documents, split_passages
from indexer.stores.generation import Generation
from indexer.stores.memories import MemoryStore
from indexer.stores.state import State
from models.files import decode_session

from .helpers import agreement

SID = "t-en-errors"


def _gen(service: RecallService) -> Generation:
    return Generation.open(service.data.generation(service.data.current_generation() or ""))


def _docs(service: RecallService, session_id: str = SID):
    path = next(service.data.archive.rglob(f"{session_id}.json"))

    return session_documents(decode_session(path.read_bytes()))


def drop_keyword_doc(service: RecallService) -> None:
    gen = _gen(service)
    gen.keyword.delete_keys([_docs(service)[-1].key])
    gen.close()


def drop_vector_rows(service: RecallService) -> None:
    gen = _gen(service)
    for table in gen.vectors.tables.values():
        table.delete(f"key = '{_docs(service)[-1].key}'")
    gen.close()


def stray_vector_row(service: RecallService) -> None:
    gen = _gen(service)
    doc = _docs(service)[-1]
    ghost = type(doc)(**{**{f: getattr(doc, f) for f in doc.__slots__},
                         "key": "ghost\x1fm1", "session_id": "ghost"})
    passages = split_passages(ghost)
    gen.vectors.add(passages, np.ones((len(passages), gen.dim), dtype=np.float32))
    gen.close()


def duplicate_doc(service: RecallService) -> None:
    gen = _gen(service)
    doc = _docs(service)[-1]
    gen.keyword.add([doc])
    gen.close()
    gen = _gen(service)
    passages = split_passages(doc)
    gen.vectors.add(passages, np.ones((len(passages), gen.dim), dtype=np.float32))
    gen.close()


def remove_archive_file(service: RecallService) -> None:
    next(service.data.archive.rglob(f"{SID}.json")).unlink()


def half_written(service: RecallService) -> None:
    state = State(service.data.state_db)
    state.set_status([SID], "pending")
    state.close()


def lose_memories(service: RecallService) -> None:
    MemoryStore(service.data).delete(SID)


def stray_memories(service: RecallService) -> None:
    MemoryStore(service.data).save("nobody", [])


def forget_state(service: RecallService) -> None:
    state = State(service.data.state_db)
    state.forget([SID])
    state.close()


@pytest.mark.parametrize("damage,kinds,session", [
    (drop_keyword_doc, {"keyword_missing"}, SID),
    (drop_vector_rows, {"vector_missing"}, SID),
    (stray_vector_row, {"stray_session"}, "ghost"),
    (duplicate_doc, {"keyword_duplicate", "vector_duplicate"}, SID),
    (remove_archive_file, {"missing_archive", "stray_session"}, SID),
    (half_written, {"half_written"}, SID),
    (lose_memories, {"missing_memories", "keyword_stray", "vector_stray"}, SID),
    (stray_memories, {"stray_memories"}, "nobody"),
    (forget_state, {"not_in_state"}, SID),
])
def test_check_reports_and_repair_fixes(writable: RecallService, damage: Callable[[RecallService], None],
                                        kinds: set[str], session: str) -> None:
    assert writable.maintenance.check() == writable.maintenance.check()
    assert writable.maintenance.check().ok
    damage(writable)
    report = writable.maintenance.check()
    assert not report.ok
    found = {d.kind for d in report.differences}
    assert kinds <= found, report.differences
    assert {d.session_id for d in report.differences} == {session}
    repaired = writable.maintenance.repair()
    assert repaired.ok, repaired.differences
    assert {d.kind for d in repaired.found} == found
    sessions = agreement(writable)
    assert (SID in sessions) == (damage is not remove_archive_file)


def test_wrong_embedder_is_reported_and_rebuilt(writable: RecallService) -> None:
    other = RecallService(Settings(home=writable.data.root, embedder="hash-128"),
                          embedder=HashEmbedder(128))
    report = other.maintenance.check()
    assert [(d.session_id, d.kind) for d in report.differences] == [(None, "embedder")]
    repaired = other.maintenance.repair()
    assert repaired.ok and repaired.repaired.rebuilt
    assert _gen(other).embedder_name == "hash-128"


def test_cli_exit_status_json_and_repair(writable: RecallService, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(writable.data.root)
    args = ["--home", home, "--embedder", "hash"]
    assert main([*args, "check"]) == 0
    assert "consistent" in capsys.readouterr().out
    duplicate_doc(writable)
    assert main([*args, "check", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {d["kind"] for d in report["differences"]} == {"keyword_duplicate", "vector_duplicate"}
    assert main([*args, "check"]) == 1
    out = capsys.readouterr().out
    assert f"{SID}: keyword_duplicate" in out and "2 differences" in out
    assert main([*args, "check", "--repair"]) == 0
    out = capsys.readouterr().out
    assert "re-indexed 1 sessions" in out and "consistent" in out


def test_http_check(writable: RecallService) -> None:
    with TestClient(create_app(writable.settings, writable), base_url="http://127.0.0.1") as client:
        body = client.get("/v1/check").json()
    assert body["ok"] and body["sessions"] == 7 and body["differences"] == []


def test_check_on_an_empty_home(tmp_path: Path) -> None:
    from .conftest import make_service

    assert make_service(tmp_path / "home").maintenance.check().ok
