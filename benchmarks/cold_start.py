"""What a person or an agent waits for: each `recall` command run N times as a separate process,
wall time and peak RSS (min / median / max), on a data directory indexed with the default model.

    python benchmarks/cold_start.py --home /tmp/recall-cold [--runs 3] [--json out.json]

The home is indexed from examples/ first when it holds nothing (with the settings' embedder,
e5 by default). `--server` also measures the searches with `recall serve` running on the same
home, each two ways in turn, run after run: the installed `recall` command (its fast client,
api/client/search.py) and the click CLI (`recall` with RECALL_FULL_CLI=1, the path every search
took before), beside the interpreter's own start-up (`python -c pass`; and with `-S`, without
the editable install's import hook, for the fast client too), the server's answer alone and its
RSS after them; `--mcp` measures `recall mcp` over stdio: the time to answer `initialize` from
the process start, then the first `search_archive` call after it.

Python's bytecode caches are on for the commands (PYTHONDONTWRITEBYTECODE is removed from their
environment, as an installed `recall` has them): the first run writes them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
RECALL = [sys.executable, "-m", "api.cli"]
INSTALLED = Path(sys.executable).with_name("recall")  # the console script: api.entry

COMMANDS: dict[str, list[str]] = {
    "help": ["--help"],
    "stats": ["stats"],
    "search keyword": ["search", "最后决定用什么数据库", "--mode", "keyword"],
    "search hybrid": ["search", "最后决定用什么数据库"],
    "search vector": ["search", "vacation planning in Japan", "--mode", "vector"],
}


def run_once(args: list[str], env: dict[str, str], command: list[str] = RECALL
             ) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one process; a failing command stops the benchmark."""
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen([*command, *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # the child's own peak RSS, not ours
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait again
        if proc.returncode not in (0, 1):  # 1: a search with no match is still a run
            err.seek(0)
            raise SystemExit(f"recall {' '.join(args)} failed: {err.read().decode()[-500:]}")
    return wall, usage.ru_maxrss


def measure(name: str, args: list[str], env: dict[str, str], runs: int) -> dict[str, Any]:
    return row_of(name, args, runs, [run_once(args, env) for _ in range(runs)])


def measure_in_turn(cases: list[tuple[str, list[str], list[str], dict[str, str]]],
                    runs: int) -> list[dict[str, Any]]:
    """(name, command, args, env) cases run one after the other, `runs` rounds, so that a
    machine that slows down or speeds up during the run weighs on each of them alike."""
    results: list[list[tuple[float, int]]] = [[] for _ in cases]
    for _ in range(runs):
        for found, (_, command, args, env) in zip(results, cases, strict=True):
            found.append(run_once(args, env, command))
    return [row_of(name, args, runs, found)
            for (name, _, args, _), found in zip(cases, results, strict=True)]


def row_of(name: str, args: list[str], runs: int, found: list[tuple[float, int]]
           ) -> dict[str, Any]:
    walls, rss = zip(*found, strict=True)
    row = {"command": name, "args": args, "runs": runs,
           "wall_s": {"min": round(min(walls), 3), "median": round(statistics.median(walls), 3),
                      "max": round(max(walls), 3)},
           "rss_mb": {"min": round(min(rss) / 1024), "median": round(statistics.median(rss) / 1024),
                      "max": round(max(rss) / 1024)}}
    print(f"{name:<24} wall {row['wall_s']['median']:6.3f} s (min {row['wall_s']['min']:.3f}, "
          f"max {row['wall_s']['max']:.3f})  peak RSS {row['rss_mb']['median']:5d} MB", flush=True)
    return row


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def with_server(env: dict[str, str], home: Path, runs: int) -> tuple[list[dict[str, Any]], dict]:
    """The search commands again with `recall serve` running; the server's RSS after them."""
    server = subprocess.Popen([*RECALL, "serve", "--port", str(free_port())], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        started = time.perf_counter()
        while not (home / "server.json").exists():
            if server.poll() is not None or time.perf_counter() - started > 120:
                raise SystemExit("recall serve did not start")
            time.sleep(0.05)
        ready = time.perf_counter() - started
        click_cli = {**env, "RECALL_FULL_CLI": "1"}
        run_once(["search", "warm the page cache"], env, [str(INSTALLED)])  # writes .pyc too
        run_once(["search", "warm the page cache"], click_cli, [str(INSTALLED)])
        # without site (-S): no .pth file runs, as the editable install's import hook does on
        # every start (a regular install has none); the checkout is found through PYTHONPATH
        bare = {**env, "PYTHONPATH": str(ROOT)}
        cases = [("python -c pass (start-up alone)", [sys.executable], ["-c", "pass"], env),
                 ("python -S -c pass", [sys.executable, "-S"], ["-c", "pass"], bare)]
        for name, cmd in COMMANDS.items():
            if name.startswith("search"):
                cases += [(f"{name} (server, fast client)", [str(INSTALLED)], cmd, env),
                          (f"{name} (server, click CLI)", [str(INSTALLED)], cmd, click_cli)]
        script = "import sys; from api.entry import main; sys.exit(main())"  # the console script's
        cases.append(("search hybrid (server, fast client, python -S)",
                      [sys.executable, "-S", "-c", script], COMMANDS["search hybrid"], bare))
        rows = measure_in_turn(cases, runs)
        answers = {name: answer_ms(home, cmd, env, runs) for name, cmd in COMMANDS.items()
                   if name.startswith("search")}
        for name, ms in answers.items():
            print(f"{name + ' (the answer alone)':<24} {ms['median']:.1f} ms "
                  f"(min {ms['min']:.1f}, max {ms['max']:.1f})", flush=True)
        return rows, {"ready_s": round(ready, 2), "rss_mb_after": rss_mb(server.pid),
                      "answer_ms": answers}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def answer_ms(home: Path, args: list[str], env: dict[str, str], runs: int) -> dict[str, float]:
    """The server's part of a search: the fast client's request from this (warm) process, from
    sending it to the whole answer read, in ms."""
    from api.client.search import PARAMS, wire_params
    from api.client.server import ask, find

    server = find(home)
    if server is None:
        raise SystemExit("the server's file is gone")
    query, options = args[1], dict(zip(args[2::2], args[3::2], strict=True))
    params = dict(PARAMS) | {"query": query} | {k.lstrip("-"): v for k, v in options.items()}
    target = "/v1/search?" + urlencode(wire_params(params))
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        reply = ask(server, env.get("RECALL_API_TOKEN"), "GET", target)
        times.append((time.perf_counter() - started) * 1000)
        if reply.status != 200 or not reply.proven:
            raise SystemExit(f"the server answered {reply.status} to {target}")
    return {"min": round(min(times), 1), "median": round(statistics.median(times), 1),
            "max": round(max(times), 1)}


def _rpc(proc: subprocess.Popen, message: dict[str, Any]) -> dict[str, Any] | None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    if "id" not in message:
        return None
    while True:
        reply = json.loads(proc.stdout.readline())
        if reply.get("id") == message["id"]:
            return reply


def mcp_once(env: dict[str, str]) -> tuple[float, float]:
    """Seconds from the start of `recall mcp` to its `initialize` answer, then seconds for the
    first `search_archive` sent right after it."""
    started = time.perf_counter()
    proc = subprocess.Popen([*RECALL, "mcp"], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "cold_start", "version": "1"}}})
        initialized = time.perf_counter() - started
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        asked = time.perf_counter()
        reply = _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "search_archive", "arguments": {"query": "最后决定用什么数据库"}}})
        first = time.perf_counter() - asked
        if reply is None or "error" in reply or reply["result"].get("isError"):
            raise SystemExit(f"search_archive failed: {reply}")
        return initialized, first
    finally:
        proc.kill()
        proc.wait()


def measure_mcp(env: dict[str, str], runs: int) -> dict[str, Any]:
    inits, firsts = zip(*(mcp_once(env) for _ in range(runs)), strict=True)
    row = {"command": "mcp", "runs": runs,
           "initialize_s": {"min": round(min(inits), 3), "median": round(statistics.median(inits), 3),
                            "max": round(max(inits), 3)},
           "first_search_ms": {"min": round(min(firsts) * 1000, 1),
                               "median": round(statistics.median(firsts) * 1000, 1),
                               "max": round(max(firsts) * 1000, 1)}}
    print(f"{'mcp initialize':<24} wall {row['initialize_s']['median']:6.3f} s; first search_archive "
          f"after it {row['first_search_ms']['median']:.1f} ms (max {row['first_search_ms']['max']:.1f})",
          flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True, help="data directory to use")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--embedder", help="RECALL_EMBEDDER (default: the settings' default, e5)")
    parser.add_argument("--only", nargs="*", help="only these commands (names above)")
    parser.add_argument("--server", action="store_true", help="also with `recall serve` running")
    parser.add_argument("--mcp", action="store_true", help="also `recall mcp` over stdio")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    env = {**os.environ, "RECALL_HOME": str(args.home)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode cached after one run
    if args.server and "from api.entry import" not in INSTALLED.read_text():
        raise SystemExit(f"{INSTALLED} is not the fast entry: reinstall (pip install -e .)")
    if args.embedder:
        env["RECALL_EMBEDDER"] = args.embedder
    if not (args.home / "state.sqlite3").exists():
        print(f"indexing examples/ into {args.home} ...", flush=True)
        subprocess.run([*RECALL, "index", "examples"], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    run_once(["search", "warm the page cache"], env)  # the first run reads the files from disk
    load = os.getloadavg()[0]
    rows = [measure(name, cmd, env, args.runs) for name, cmd in COMMANDS.items()
            if not args.only or name in args.only]
    result: dict[str, Any] = {"home": str(args.home), "load_average_at_start": round(load, 2),
                              "cpus": os.cpu_count(), "rows": rows}
    if args.mcp:
        result["mcp"] = measure_mcp(env, args.runs)
    if args.server:
        server_rows, result["server"] = with_server(env, args.home, args.runs)
        rows += server_rows
        print(f"{'server':<24} ready {result['server']['ready_s']} s, RSS after the searches "
              f"{result['server']['rss_mb_after']} MB")
    result["max_rss_self_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
