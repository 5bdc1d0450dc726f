"""`recall search` through a running server, answered by the fast client (api/client/search.py)
before click or the service are imported: the installed `recall` command run as a real process
against a real `recall serve`, its output compared byte for byte with the click CLI's
(RECALL_FULL_CLI=1); whatever the client leaves to click (no server, an option it does not know,
a refusal) ends exactly as before. Which path answered is read from the modules the process
imported (PYTHONPROFILEIMPORTTIME)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import tomllib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import click
import msgspec
import pytest

from api.cli import cli
from api.cli.read import search as search_command
from api.client import search as fast
from api.client.server import PROOF, ServerFile, ask, proof
from api.service.search_params import SearchParams
from api.settings import SETTINGS, Settings
from models import SearchResponse

from .helpers import ROOT, serve

RECALL = Path(sys.executable).with_name("recall")  # the console script pyproject declares
HOME = "<home>"  # stands for the served data directory in the cases below

# answered by the fast client: every option it takes, text and --json
FAST = [
    ("search", "升级"),
    ("search", "升级", "--json"),
    ("search", "postgres", "--mode", "keyword", "--channel", "cli"),
    ("search", "v2.3.1", "--memory-type", "reference", "--json"),
    ("search", "升级", "--strict", "--json"),
    ("search", "--limit=2", "deploy", "--scope", "all", "--json"),
    ("search", "升级", "--memories"),
    ("search", "database", "--current", "--since", "2026-01", "--until", "2026-04-30"),
    ("search", "database", "--history", "--date", "2026", "--role", "user", "--json"),
    ("search", "升级", "--memory-rank", "relevance", "--scope", "all", "--participant", "nobody"),
    ("search", "升级", "--session", "t-zh-upgrade", "--mode", "vector"),
    ("search", "zzqx-nothing-like-this", "--mode", "keyword"),
    ("--embedder", "hash", f"--home={HOME}", "search", "升级"),
]
# left to the click CLI: refused by the server, or not the fast client's to answer
LEFT = [
    ("search", "升级", "--limit", "500"),  # the server's 400: the CLI's own words
    ("search", "升级", "--mode", "fuzzy"),  # click's usage error
    ("search", "升级", "--limit", "two"),
    ("search", "升级", "--memories", "--scope", "messages"),
    ("search", "升级", "--limit", "2", "--limit", "3"),
    ("search", "升级", "--no-server", "--json"),
    ("search", ""),
    ("search", "--", "-升级"),
    ("search", "--help"),
    ("--embedder", "hash-256", "search", "升级", "--mode", "keyword"),  # not the server's embedder
]


def environment(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("RECALL_") and k != "PYTHONPROFILEIMPORTTIME"}
    return env | {"RECALL_HOME": str(home), "RECALL_EMBEDDER": "hash"} | extra


def run(home: Path, args: tuple[str, ...], **extra: str) -> subprocess.CompletedProcess[bytes]:
    argv = [a.replace(HOME, str(home)) for a in args]
    return subprocess.run([str(RECALL), *argv], env=environment(home, **extra), cwd=ROOT,
                          capture_output=True, timeout=120, check=False)


def imported(home: Path, args: tuple[str, ...], **extra: str) -> set[str]:
    """The modules `recall ARGS` imported, by name."""
    ran = run(home, args, PYTHONPROFILEIMPORTTIME="1", **extra)
    return {line.rsplit("|", 1)[1].strip() for line in ran.stderr.decode().splitlines()
            if line.startswith("import time:") and "|" in line}


def same_as_click(home: Path, args: tuple[str, ...], **extra: str) -> None:
    ours, theirs = run(home, args, **extra), run(home, args, RECALL_FULL_CLI="1", **extra)
    assert (ours.returncode, ours.stdout, ours.stderr) == (
        theirs.returncode, theirs.stdout, theirs.stderr), args


@pytest.fixture(scope="module")
def served(built_home: Path, tmp_path_factory: pytest.TempPathFactory):
    """A copy of the test index with `recall serve` running on it."""
    home = tmp_path_factory.mktemp("fast") / "served"
    shutil.copytree(built_home, home, ignore=shutil.ignore_patterns("writer.lock"))
    proc, _ = serve(home)
    try:
        yield home
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_the_recall_command_is_the_fast_entry() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert declared == {"recall": "api.entry:main"}
    # a checkout installed before the entry moved runs the click CLI: reinstall (make install)
    assert "from api.entry import main" in RECALL.read_text(), "reinstall: pip install -e ."


@pytest.mark.parametrize("args", FAST, ids=" ".join)
def test_a_search_through_the_server_prints_what_the_click_cli_prints(served: Path,
                                                                       args: tuple[str, ...]) -> None:
    same_as_click(served, args)
    modules = imported(served, args)
    assert "api.client.search" in modules and not modules & {"click", "msgspec", "models"}


def test_the_cases_print_results_with_facts_and_without(served: Path) -> None:
    """The cases above reach each part of the output: hits, highlights, no match."""
    found = json.loads(run(served, ("search", "升级", "--json")).stdout)
    assert found["results"] and any(m["highlights"] for h in found["results"]
                                     for m in h["messages"])
    assert "no match for" in run(served, ("search", "zzqx-nothing-like-this")).stdout.decode()


@pytest.mark.parametrize("args", LEFT, ids=" ".join)
def test_what_the_fast_client_leaves_ends_as_before(served: Path, args: tuple[str, ...]) -> None:
    same_as_click(served, args)
    assert "click" in imported(served, args)


def test_a_setting_the_cli_checks_leaves_the_search_to_it(served: Path) -> None:
    same_as_click(served, ("search", "升级"), RECALL_RANKER="fused")
    assert "click" in imported(served, ("search", "升级"), RECALL_RANKER="fused")
    broken = run(served, ("search", "升级"), RECALL_RANKER="best")
    assert broken.returncode == 1 and b"RECALL_RANKER must be" in broken.stderr
    assert "click" in imported(served, ("search", "升级"), RECALL_TENANT="team-a")


def test_without_a_server_the_click_cli_answers(built_home: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(built_home, home, ignore=shutil.ignore_patterns("writer.lock"))
    for args in [("search", "升级"), ("search", "升级", "--json")]:
        same_as_click(home, args)
        assert "click" in imported(home, args)
    # a file left by a server that is gone: not used
    (home / "server.json").write_text(json.dumps(
        ServerFile(2**22 + 1, "http://127.0.0.1:9", "hash", "s").as_dict()))
    os.chmod(home / "server.json", 0o600)
    same_as_click(home, ("search", "升级"))


def test_a_server_with_a_token_gets_it_from_the_fast_client(built_home: Path,
                                                           tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(built_home, home, ignore=shutil.ignore_patterns("writer.lock"))
    proc, _ = serve(home, env={"RECALL_API_TOKEN": "s3cret-token"})
    try:
        args = ("search", "升级", "--json")
        same_as_click(home, args, RECALL_API_TOKEN="s3cret-token")
        assert "click" not in imported(home, args, RECALL_API_TOKEN="s3cret-token")
        # a wrong token: refused (401), so the click CLI answers, in this process
        same_as_click(home, args, RECALL_API_TOKEN="wrong")
        assert "click" in imported(home, args, RECALL_API_TOKEN="wrong")
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def interrupted(home: Path, click_cli: str) -> tuple[int, bytes, bytes]:
    """`recall search` sent to a server that takes the request and never answers, then Ctrl-C
    (SIGINT) while it waits."""
    with socket.create_server(("127.0.0.1", 0)) as silent:
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        (home / "server.json").write_text(json.dumps(
            ServerFile(os.getpid(), url, "hash", "s").as_dict()))  # this test process: alive
        os.chmod(home / "server.json", 0o600)
        # Ctrl-C's SIGINT as a terminal delivers it: a shell without job control starts
        # background jobs with SIGINT ignored, and Python then never raises KeyboardInterrupt
        proc = subprocess.Popen([sys.executable, "-c", _WITH_DEFAULT_SIGINT, str(RECALL),
                                 "search", "升级"], cwd=ROOT,
                                env=environment(home, RECALL_FULL_CLI=click_cli),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            silent.settimeout(60)
            connection, _ = silent.accept()  # the request is on its way: the client waits
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
            connection.close()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return proc.returncode, out, err


# exec keeps a signal's default disposition (an ignored one stays ignored)
_WITH_DEFAULT_SIGINT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                        "os.execv(sys.argv[1], sys.argv[1:])")


def test_ctrl_c_while_the_server_thinks_ends_as_with_the_click_cli(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    ours = interrupted(home, click_cli="")
    assert ours == interrupted(home, click_cli="1")
    assert ours[0] == 130 and ours[2].endswith(b"recall: interrupted\n")


def test_the_fast_client_imports_nothing_but_the_standard_library() -> None:
    probe = ("import json, sys\nimport api.entry, api.client.search\n"
             "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, check=True, timeout=60)
    modules = set(json.loads(done.stdout))
    recall = {m for m in modules if m.split(".")[0] in ("api", "models", "indexer", "search")}
    assert recall == {"api", "api.entry", "api.client", "api.client.search",
                      "api.client.results", "api.client.server"}
    assert not modules & {"click", "msgspec", "platformdirs", "http.client", "ssl", "email",
                          "typing", "dataclasses", "hashlib", "_hashlib", "socket", "selectors"}


@pytest.mark.parametrize("secret", ["", "k", "s" * 64, "long secret " * 9, "密钥"])
def test_the_proof_is_the_hmac_modules(secret: str) -> None:
    for challenge in ["", "c1", os.urandom(16).hex(), "x" * 300]:
        assert proof(secret, challenge) == hmac.new(secret.encode(), challenge.encode(),
                                                    hashlib.sha256).hexdigest()


def test_the_params_are_search_params_in_order_with_their_defaults() -> None:
    declared = [(f.name, None if f.default is msgspec.NODEFAULT else f.default)
                for f in msgspec.structs.fields(SearchParams)]
    assert list(fast.PARAMS) == declared


def test_the_options_are_the_search_commands() -> None:
    """Each option of `recall search` is one the fast client reads, or one it leaves to click."""
    left = {"--batch", "--no-server", "--help", "-h"}
    options = {opt: p for p in search_command.params if isinstance(p, click.Option)
               for opt in p.opts}
    assert set(options) - left == set(fast.VALUED) | set(fast.FLAGS)
    for opt, name in fast.VALUED.items():
        param = options[opt]
        assert isinstance(param, click.Option) and param.name == name and not param.is_flag
    for opt, (name, value) in fast.FLAGS.items():
        param = options[opt]
        assert isinstance(param, click.Option) and param.name == name and param.is_flag
        assert value is True if param.is_bool_flag else param.flag_value == value
    group = {opt: p for p in cli.params for opt in p.opts}
    assert set(group) - {"-v", "--verbose", "-h", "--help"} == set(fast.GROUP_VALUED)


def test_the_settings_left_unread_are_ones_the_cli_never_refuses() -> None:
    infos = {s.env: s for s in SETTINGS}
    for name in fast.UNCHECKED_SETTINGS:
        assert infos[name].check is None and infos[name].kind in (str, Path), name
        Settings.from_env({name: "anything at all"})  # no rule: nothing to refuse


def float_fields(kind: Any, path: str = "") -> set[str]:
    """Where a msgspec type holds floats, as paths like results[].score."""
    info = msgspec.inspect.type_info(kind) if not isinstance(kind, msgspec.inspect.Type) else kind
    if isinstance(info, msgspec.inspect.FloatType):
        return {path}
    if isinstance(info, msgspec.inspect.UnionType):
        return set().union(*(float_fields(t, path) for t in info.types))
    if isinstance(info, msgspec.inspect.StructType):
        return set().union(*(float_fields(f.type, f"{path}.{f.name}".lstrip("."))
                             for f in info.fields))
    if isinstance(info, msgspec.inspect.CollectionType):
        return float_fields(info.item_type, f"{path}[]")
    if isinstance(info, msgspec.inspect.DictType):
        return float_fields(info.value_type, f"{path}{{}}")
    return set()


def test_numbers_come_out_as_the_typed_decoding_makes_them() -> None:
    assert float_fields(SearchResponse) == {
        "results[].score", "results[].score_parts{}", "results[].messages[].score",
        "results[].facts[].confidence"}
    ref = {"id": "f2", "session_id": "s2", "date": "2026-02-01", "text": "uses MySQL"}
    sample = json.dumps({"query": "db", "results": [{
        "session_id": "s1", "date": "2026-01-01", "channel": None, "score": 1.0,
        "messages": [{"id": None, "role": "user", "time": None, "snippet": "db", "score": 2.0,
                      "highlights": [[0, 2]]}],
        "title": "t", "score_parts": {"bm25": 3.0, "rank": 0.5},
        "facts": [{"id": "f1", "session_id": "s1", "type": "decision", "text": "uses Postgres",
                   "valid_from": "2026-01-01", "status": "superseded", "superseded_by": ref,
                   "confidence": 1.0}]}]})
    # every field the server sends, then whole floats sent as `1`, as a server might
    typed = msgspec.to_builtins(msgspec.json.decode(sample, type=SearchResponse))
    sent = json.dumps(whole_floats_as_ints(typed))
    assert '"score": 1,' in sent and '"confidence": 1}' in sent
    ours = fast._as_declared(json.loads(sent))
    assert json.dumps(ours, ensure_ascii=False) == json.dumps(typed, ensure_ascii=False)


def whole_floats_as_ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: whole_floats_as_ints(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [whole_floats_as_ints(v) for v in value]
    return value


class Answering(BaseHTTPRequestHandler):
    """An HTTP server that proves itself and sends its body with a length, in chunks, or up to
    the end of the connection."""

    secret: ClassVar[str] = "k"
    seen: ClassVar[list[dict[str, str]]] = []

    def do_GET(self) -> None:
        type(self).seen.append(dict(self.headers))
        body = json.dumps({"path": self.path}).encode()
        self.protocol_version = "HTTP/1.1"
        self.send_response(200)
        self.send_header(PROOF, proof(self.secret, self.headers["x-recall-challenge"]))
        if self.path.endswith("chunked"):
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (body[:5], body[5:]):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        elif self.path.endswith("length"):
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


def test_an_answer_is_read_whatever_its_framing_and_checked_for_its_proof() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Answering)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        for framing in ("length", "chunked", "close"):
            reply = ask(ServerFile(1, url, "hash", "k"), "tok", "GET", f"/v1/x?f={framing}")
            assert (reply.status, reply.proven) == (200, True)
            assert json.loads(reply.body) == {"path": f"/v1/x?f={framing}"}
        headers = Answering.seen[-1]
        assert headers["Host"] == f"127.0.0.1:{server.server_address[1]}"
        assert headers["Authorization"] == "Bearer tok"
        assert not ask(ServerFile(1, url, "hash", "other"), None, "GET", "/length").proven
    finally:
        server.shutdown()
        server.server_close()
