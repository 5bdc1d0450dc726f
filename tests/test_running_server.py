"""The CLI and a running `recall serve` on the same data directory: found through the file the
server writes, used only when it proves itself, and the same output either way."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from api.cli.output import Run
from api.http import discovery

from .helpers import serve

UPGRADE = "t-zh-upgrade"


@pytest.fixture
def served(built_home: Path, tmp_path: Path, recall, monkeypatch: pytest.MonkeyPatch):
    """A copy of the test index with `recall serve` running on it, and the CLI pointed at it."""
    home = tmp_path / "served"
    shutil.copytree(built_home, home, ignore=shutil.ignore_patterns("writer.lock"))
    recall_home = home
    monkeypatch.setenv("RECALL_HOME", str(recall_home))
    proc, base = serve(home)
    try:
        yield home, base
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def forbid_local_service(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any command that builds the service in this process fails: the server must answer."""
    def refuse(self: Run) -> None:
        raise AssertionError("the command was answered in-process")

    monkeypatch.setattr(Run, "service", property(refuse))


COMMANDS = [
    ("search", "升级", "--json"),
    ("search", "postgres", "--mode", "keyword", "--channel", "cli"),
    ("search", "v2.3.1", "--memory-type", "reference", "--json"),
    ("search", "升级", "--strict", "--json"),
    ("show", UPGRADE),
    ("show", UPGRADE, "--token-budget", "60", "--json"),
    ("memories", UPGRADE, "--types", "project", "--json"),
]


def test_commands_are_answered_by_the_server_with_the_same_output(
        served, recall, monkeypatch: pytest.MonkeyPatch) -> None:
    local = {args: recall(*args, "--no-server").stdout for args in COMMANDS}
    forbid_local_service(monkeypatch)
    for args in COMMANDS:
        assert recall(*args).stdout == local[args], args


def test_batch_lines_are_answered_by_the_server(served, recall,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    lines = "\n".join(json.dumps(q) for q in [{"qid": 1, "query": "升级"},
                                              {"qid": 2, "query": "postgres", "mode": "keyword"}])
    local = recall("search", "--batch", "-", "--no-server", stdin=lines).stdout
    forbid_local_service(monkeypatch)
    assert recall("search", "--batch", "-", stdin=lines).stdout == local


def test_recover_is_answered_by_the_server(served, recall, monkeypatch: pytest.MonkeyPatch) -> None:
    recall("snapshot", UPGRADE)  # a write: always in this process
    args = ("recover", UPGRADE, "--context", "升级", "--budget", "40", "--json")
    local = json.loads(recall(*args, "--no-server").stdout)
    forbid_local_service(monkeypatch)
    assert json.loads(recall(*args).stdout) == local


def test_what_the_server_refuses_is_answered_here_with_the_same_words(served, recall) -> None:
    # the HTTP API words a bad parameter its own way: the command's own words are printed
    many = recall("search", "升级", "--limit", "500", ok=False)
    assert (many.returncode, many.stderr) == (1, "recall: limit must be between 1 and 100\n")
    missing = recall("show", "no-such-session", ok=False)
    assert missing.returncode == 1 and missing.stderr == "recall: no session 'no-such-session'\n"


def test_a_server_that_cannot_prove_itself_is_not_used(served, recall,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    home, _ = served
    path = home / discovery.FILE_NAME
    announced = json.loads(path.read_text())
    path.write_text(json.dumps({**announced, "secret": "0" * 32}))  # a file that lies
    local = recall("search", "升级", "--no-server").stdout
    assert recall("search", "升级").stdout == local
    assert "does not prove to be the server" in recall("search", "升级").stderr


def test_a_server_with_another_embedder_is_not_used(served, recall,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_EMBEDDER", "hash-256")  # another vector space than the server's
    home, _ = served
    assert discovery.find(home) is not None
    assert recall("search", "升级", ok=False).stderr.startswith("recall: the index was built")


def test_the_file_is_found_only_while_its_server_lives(tmp_path: Path) -> None:
    announced = discovery.announce(tmp_path, "0.0.0.0", 8765, "e5")
    path = tmp_path / discovery.FILE_NAME
    assert path.stat().st_mode & 0o777 == 0o600
    assert discovery.find(tmp_path) == announced  # this process is alive
    assert announced.url == "http://127.0.0.1:8765"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)
    path.write_text(json.dumps({**json.loads(path.read_text()), "pid": int(gone.stdout)}))
    os.chmod(path, 0o600)
    assert discovery.find(tmp_path) is None  # a stale file: its process has ended
    other = discovery.announce(tmp_path, "127.0.0.1", 9000, "e5")
    os.chmod(path, 0o644)
    assert discovery.find(tmp_path) is None  # readable by others: not trusted
    os.chmod(path, 0o600)
    discovery.withdraw(tmp_path, announced)  # names another server now: left alone
    assert discovery.find(tmp_path) == other
    discovery.withdraw(tmp_path, other)
    assert not path.exists()


def test_a_proof_answers_one_challenge() -> None:
    server = discovery.ServerFile(1, "http://127.0.0.1:1", "e5", "s3cret")
    answer = discovery.proof("s3cret", "c1")
    assert server.proves("c1", answer)
    assert not server.proves("c2", answer) and not server.proves("c1", None)
    assert not server.proves("c1", discovery.proof("other", "c1"))


def test_the_server_file_goes_when_the_server_stops(built_home: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(built_home, home, ignore=shutil.ignore_patterns("writer.lock"))
    proc, _ = serve(home)
    assert (home / discovery.FILE_NAME).exists()
    proc.terminate()
    proc.communicate(timeout=30)
    assert not (home / discovery.FILE_NAME).exists()


def test_serve_on_a_taken_port_says_so_and_announces_nothing(recall, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        ran = recall("serve", "--port", port, ok=False)
    assert ran.returncode != 0 and f"cannot listen on 127.0.0.1:{port}" in ran.stderr
    assert not (tmp_path / "home" / "server.json").exists()
