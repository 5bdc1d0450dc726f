"""Hostile inputs (tests/hostile/generate.py) through `recall index`, POST /v1/sessions and the
MCP archive_session tool: a clear per-file error or a whole, correct ingest; never a crash, a
hang, half a session, or a write outside the data dir."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from litestar.testing import TestClient

from api import RecallService
from api.http.app import create_app
from api.mcp.server import build_mcp
from api.service.indexing import IndexResult
from indexer.stores import vector as vector_store

from .helpers import agreement, make_service
from .hostile.generate import BIG, generate


def _tree(root: Path, skip: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in root.rglob("*")
            if not p.is_relative_to(skip)}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], RecallService,
                                                               IndexResult, dict, dict]:
    root = tmp_path_factory.mktemp("hostile")
    expected = generate(root / "in", root / "outside")
    home = root / "home"
    before = _tree(root, home)
    service = make_service(home)
    with pytest.MonkeyPatch.context() as patch:
        # no ANN index: its build over 50,000 near-identical vectors takes minutes, and is
        # tested on that shape in test_vector_index.py
        patch.setattr(vector_store, "ANN_MIN_ROWS", 10**9)
        report = service.index([root / "in"])
    return root, expected, service, report, before, _tree(root, home)


def test_every_file_is_rejected_clearly_or_ingested_whole(hostile) -> None:
    _root, expected, service, report, _before, _after = hostile
    rejected = {Path(r.path).name: r.reason for r in report.rejected}
    assert all(reason.strip() for reason in rejected.values())
    for name, expect in expected.items():
        if expect == "reject":
            assert name in rejected, f"{name} was not rejected"
        if expect == "ingest":
            assert name not in rejected, f"{name}: {rejected.get(name)}"
    archived = agreement(service)  # whole sessions only, every store agrees
    assert service.maintenance.check().ok
    assert archived["many-messages"] == 50_000 and archived["huge-message"] == 1
    assert {"ok", "bom", "dup-ids", "dk2", "twin", "empty-id", "u8"} <= set(archived)
    # two runs of bytes that are not UTF-8, each made U+FFFD
    assert service.session("u8").messages[0].content == "caf\ufffd( \ufffd"
    assert service.session("twin").messages[0].content == "version a"
    assert ("twin-b.json" in rejected) and "already read from" in rejected["twin-b.json"]
    assert len(service.session("dup-ids").messages) == 3
    assert report.indexed + len(rejected) == len(expected)  # each file: one or the other


def test_symlinks_out_of_the_folder_are_not_followed(hostile) -> None:
    _root, _expected, service, _report, _before, _after = hostile
    names = set(agreement(service))
    assert not {"outside-file", "outside-dir"} & names


def test_nothing_is_written_outside_the_data_dir(hostile) -> None:
    _root, _expected, service, _report, before, after = hostile
    assert after == before
    pattern = re.compile(r"\d{4}-\d{2}/[A-Za-z0-9][^/]*\.json")
    for path in service.data.archive.rglob("*"):
        if path.is_file():
            assert pattern.fullmatch(str(path.relative_to(service.data.archive))), path
    for path in (service.data.root / "memories").iterdir():
        assert not path.name.startswith("."), path


def _bodies(root: Path, expected: dict[str, str]) -> list[tuple[str, bytes]]:
    return [(name, (root / "in" / name).read_bytes()) for name in sorted(expected)
            if name not in BIG]


def test_http_answers_4xx_with_a_problem_body_never_5xx(hostile, tmp_path: Path) -> None:
    root, expected, _service, _report, _before, _after = hostile
    service = make_service(tmp_path / "home")
    statuses: dict[str, int] = {}
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as client:
        for name, body in _bodies(root, expected):
            response = client.post("/v1/sessions", content=body,
                                   headers={"content-type": "application/json"})
            statuses[name] = response.status_code
            assert response.status_code < 500, (name, response.text)
            if response.status_code >= 400:
                assert response.headers["content-type"].startswith("application/problem+json")
                problem = response.json()
                assert problem["status"] == response.status_code and problem["detail"], name
        big = b'{"sessionId": "big", "messages": [{"content": "' + b"x" * 21_000_000 + b'"}]}'
        assert client.post("/v1/sessions", content=big,
                           headers={"content-type": "application/json"}).status_code == 413
    rejected = {n for n, e in expected.items() if e == "reject"} - BIG
    assert all(400 <= statuses[n] < 500 for n in rejected), \
        {n: statuses[n] for n in rejected if statuses[n] < 400}
    assert statuses["ok.json"] == 201
    agreement(service)
    assert service.maintenance.check().ok


def test_mcp_archive_session_returns_tool_errors_never_crashes(hostile, tmp_path: Path) -> None:
    root, expected, _service, _report, _before, _after = hostile
    service = make_service(tmp_path / "home")
    server = build_mcp(service)
    outcomes: dict[str, Any] = {}

    async def run() -> None:
        for name, body in _bodies(root, expected):
            try:
                argument: Any = json.loads(body.decode("utf-8-sig"))
            except (ValueError, RecursionError):
                argument = body.decode("utf-8", "replace")  # what a client could still send
            try:
                result = await server.call_tool("archive_session", {"session": argument})
            except Exception as exc:  # noqa: BLE001 - argument validation by the SDK is fine
                assert "validation error" in str(exc).lower(), (name, exc)
                outcomes[name] = "invalid"
                continue
            text = result.content[0].text
            assert not text.startswith("Error executing tool"), (name, text)
            outcomes[name] = "error" if result.is_error else "ok"

    anyio.run(run)
    # JSON-RPC carries only valid UTF-8: a client has already replaced the bad bytes, as an
    # import of the file does (bad-utf8.json is ingested)
    rejected = {n for n, e in expected.items() if e == "reject"} - BIG
    assert all(outcomes[n] != "ok" for n in rejected), [n for n in rejected if outcomes[n] == "ok"]
    assert outcomes["ok.json"] == "ok"
    agreement(service)
    assert service.maintenance.check().ok
