"""The attacks of docs/reliability.md#attacks, run over real HTTP against `recall serve` from a
checkout: each says whether the server held.

    python benchmarks/attacks.py [--checkout DIR] [--out docs/attacks.json]

`--checkout` is a recall source tree (default: this one); its `api.cli` runs on this venv's
Python, so an older commit can be checked out beside this one (`git worktree add /tmp/old
HEAD~5`) and both measured the same way. Every server runs on the sample archive in examples/
(14 sessions) with the `hash` embedder: what is measured is the door, not the search.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
FRIDAY = "5973cc90-8e43-4d93-af48-24614faebc52"
TEN = {"sessionId": "ten", "date": "2026-05-04", "channel": "cli",
       "messages": [{"role": "user", "content": f"step {n} of the heron rollout"}
                    for n in range(10)]}


class Recall:
    """`recall` of one checkout, on one data directory."""

    def __init__(self, checkout: Path, home: Path) -> None:
        self.checkout, self.home = checkout, home
        self.env = {**{k: v for k, v in os.environ.items() if not k.startswith("RECALL_")},
                    "RECALL_HOME": str(home), "RECALL_EMBEDDER": "hash",
                    "PYTHONPATH": str(checkout)}

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "api.cli", *args], cwd=self.checkout,
                              env=self.env, capture_output=True, text=True, timeout=300,
                              check=False)

    def serve(self, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen([sys.executable, "-m", "api.cli", "serve", "--port", str(port)],
                                cwd=self.checkout, env={**self.env, **(env or {})},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
        base = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                httpx.get(f"{base}/healthz", timeout=1)
                return proc, base
            except httpx.TransportError:
                time.sleep(0.1)
        raise SystemExit("the server did not start")


def _session(base: str, headers: dict[str, str] | None = None) -> str:
    return httpx.get(f"{base}/v1/sessions/{FRIDAY}", headers=headers or {}).text


def local_attacks(recall: Recall) -> dict[str, tuple[bool, str]]:
    """No token anywhere: the default mode on one person's machine."""
    proc, base = recall.serve()
    found: dict[str, tuple[bool, str]] = {}
    try:
        count = httpx.get(f"{base}/v1/stats").json()["sessions"]
        wipe = httpx.post(f"{base}/v1/cleanup", content='{"older_than": "1d", "dry_run": false}',
                          headers={"Content-Type": "text/plain", "Origin": "http://localhost:3000"})
        after = httpx.get(f"{base}/v1/stats").json()["sessions"]
        found["a page wipes the archive with a text/plain POST to /v1/cleanup"] = (
            after == count, f"{wipe.status_code}; sessions {count} -> {after}")
        before = _session(base)
        planted = httpx.post(f"{base}/v1/sessions", headers={
            "Content-Type": "text/plain", "Origin": "http://localhost:3000"}, content=json.dumps(
            {"sessionId": FRIDAY, "date": "2026-03-06",
             "messages": [{"role": "user", "content": "PLANTED"}]}))
        found["a page replaces a session with planted text"] = (
            _session(base) == before, f"{planted.status_code}")
        rebound = httpx.get(f"{base}/v1/sessions/{FRIDAY}", headers={"Host": "evil.example"})
        found["a DNS-rebinding page reads a session (Host: evil.example)"] = (
            rebound.status_code != 200, f"{rebound.status_code}")
        todo = httpx.post(f"{base}/v1/todos", json={"content": "PLANTED"},
                          headers={"Origin": "http://evil.example"})
        found["a page on another origin sends a JSON write"] = (
            todo.status_code == 403, f"{todo.status_code}")
    finally:
        proc.terminate()
        proc.wait(30)
    return found


def team_attacks(recall: Recall) -> dict[str, tuple[bool, str]]:
    """A team server: tokens in the token store, an admin one and a write one."""
    tokens = {}
    for scope in ("admin", "write"):
        made = recall.run("tokens", "create", "--scope", scope, "--name", f"t-{scope}")
        tokens[scope] = {"Authorization": f"Bearer {made.stdout.strip()}"}
    revoked = recall.run("tokens", "create", "--scope", "read", "--name", "t-gone").stdout.strip()
    recall.run("tokens", "revoke", "t-gone")
    found: dict[str, tuple[bool, str]] = {}
    reserved = recall.run("tokens", "create", "--scope", "read", "--name", "RECALL_API_TOKEN")
    found["a token named RECALL_API_TOKEN is made"] = (
        reserved.returncode != 0, f"exit {reserved.returncode}")
    proc, base = recall.serve()
    audit = recall.home / "audit.jsonl"
    try:
        health = httpx.get(f"{base}/healthz").json()
        found["/healthz without a token gives counts (tokens only in tokens.sqlite3)"] = (
            set(health) == {"status"}, json.dumps(health)[:80])
        httpx.post(f"{base}/v1/sessions", json=TEN, headers=tokens["admin"])
        cut = httpx.post(f"{base}/v1/sessions", headers=tokens["write"], json={
            **TEN, "messages": TEN["messages"][:1]})
        left = len(httpx.get(f"{base}/v1/sessions/ten", headers=tokens["admin"]).json()["messages"])
        found["a write token replaces a 10-message session with 1 message"] = (
            left == 10, f"{cut.status_code}; {left} messages left")
        lines = len(audit.read_text().splitlines())
        httpx.post(f"{base}//v1/sessions", headers=tokens["admin"],
                   json={**TEN, "sessionId": "slashes"})
        new = audit.read_text().splitlines()[lines:]
        found["a write to //v1/sessions goes unaudited"] = (
            any("slashes" in line for line in new), f"{len(new)} new lines")
        httpx.get(f"{base}/v1/sessions/x%0a2026-12-01 00:00  default  admin  DELETE everything"
                  "  -  204%1b[2J")
        httpx.get(f"{base}/v1/stats", headers={"Authorization": f"Bearer {revoked}"})
        # after the others: past its budget a client's refusals are 429s, counted in one line
        size = audit.stat().st_size
        started, sent = time.monotonic(), 0
        with httpx.Client() as http:
            while time.monotonic() - started < 10:
                http.get(f"{base}/v1/sessions/" + "a" * 8000)
                sent += 1
    finally:
        proc.terminate()
        proc.wait(30)
    # measured once the server stopped: it writes the count of a minute's refusals then at last
    grown = audit.stat().st_size - size
    found["10 s of 401s flood the audit log"] = (
        grown < 10_000, f"{sent} requests, +{grown:,} bytes")
    shown = recall.run("audit").stdout
    found["a %0a in a path forges a line in `recall audit`"] = (
        not any(line.startswith("2026-12-01 00:00") for line in shown.splitlines()), "")
    found["a %1b in a path reaches the operator's terminal"] = ("\x1b" not in shown, "")
    found["a revoked token's 401 is logged as '-'"] = (any(
        "  t-gone  " in line and "  401" in line for line in shown.splitlines()), "")
    mode = stat.S_IMODE((recall.home / "tokens.sqlite3").stat().st_mode)
    home_mode = stat.S_IMODE(recall.home.stat().st_mode)
    found["tokens.sqlite3 and the data directory are open to other users"] = (
        not (mode & 0o077 and home_mode & 0o077), f"home {home_mode:o}, tokens {mode:o}")
    return found


def run(checkout: Path) -> dict[str, tuple[bool, str]]:
    results: dict[str, tuple[bool, str]] = {}
    for attacks in (local_attacks, team_attacks):
        home = Path(tempfile.mkdtemp(prefix="recall-attacks-"))
        try:
            recall = Recall(checkout, home / "home")
            done = recall.run("index", str(ROOT / "examples"))
            if done.returncode:
                raise SystemExit(done.stderr)
            results |= attacks(recall)
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = run(args.checkout.resolve())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=args.checkout,
                            capture_output=True, text=True, check=False).stdout.strip()
    width = max(len(name) for name in results)
    for name, (held, detail) in results.items():
        print(f"{'held  ' if held else 'BROKEN'}  {name:<{width}}  {detail}")
    if args.out:
        args.out.write_text(json.dumps({"commit": commit, "attacks": {
            name: {"held": held, "detail": detail} for name, (held, detail) in results.items()}},
            indent=1) + "\n")

if __name__ == "__main__":
    main()
