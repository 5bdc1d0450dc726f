"""docs/scale-out.md's "Step by step" runs as written: its shell blocks are read from the doc
and run by bash, one after the other, against a real S3 server (radosgw, tests/s3.py), with
only the placeholders the doc names replaced (the endpoint, the two keys, the port, ID). HOME is
a folder of the test's, so `~/exports` and `~/recall-replica` are too; the embedder is the
hash one, set in the environment as a reader would set any other."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from .helpers import EXAMPLES, ROOT, free_port
from .s3 import S3Server

pytestmark = pytest.mark.xdist_group("s3")

DOC = ROOT / "docs" / "scale-out.md"
SECTION = "### Step by step: a writer, a replica, a purge"
BUCKET = "team-recall"  # the doc's; the test creates no bucket: the first publish does
MARKER = "Quixotrombone"
GONE = "purge-me-session"


def doc_blocks() -> list[str]:
    """The section's ```sh blocks, in order: writer, replica, curl, purge."""
    text = DOC.read_text()
    assert SECTION in text, f"{DOC.name} lost its section {SECTION!r}"
    section = re.split(r"\n##+ ", text.split(SECTION, 1)[1], maxsplit=1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.DOTALL)


def literal(block: str, values: dict[str, str]) -> str:
    """The block with each placeholder (every one must be in it) replaced by its value."""
    for placeholder, value in values.items():
        assert re.search(rf"\b{re.escape(placeholder)}\b", block), placeholder
        block = re.sub(rf"\b{re.escape(placeholder)}\b", value, block)
    return block


def bash(block: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-euo", "pipefail", "-c", block], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=600, check=False)


def test_the_documented_steps_run_as_written(tmp_path: Path, s3_server: S3Server) -> None:
    writer_block, replica_block, curl_block, purge_block = doc_blocks()
    home = tmp_path / "home"
    (home / "exports").mkdir(parents=True)
    shutil.copytree(EXAMPLES, home / "exports", dirs_exist_ok=True)
    (home / "exports" / f"{GONE}.json").write_text(json.dumps({
        "session_id": GONE, "date": "2026-03-29", "channel": "cli",
        "messages": [{"id": "m1", "role": "user", "content": f"the {MARKER} plan, deploy it"}]}))
    keys = {"https://s3.example.com": s3_server.endpoint,
            "YOUR_ACCESS_KEY": s3_server.access_key, "YOUR_SECRET_KEY": s3_server.secret_key}
    port = str(free_port())
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("RECALL_", "XDG_", "AWS_"))}
    env |= {"HOME": str(home), "PATH": f"{Path(sys.executable).parent}:{env['PATH']}",
            "RECALL_EMBEDDER": "hash", "RECALL_FOLLOW_INTERVAL": "0.2"}

    wrote = bash(literal(writer_block, keys), env, home)
    assert wrote.returncode == 0, wrote.stderr
    assert f"created the bucket {BUCKET}" in wrote.stderr
    assert f"recall: published #1 to s3://{BUCKET}/prod" in wrote.stderr

    replica = subprocess.Popen(["bash", "-euo", "pipefail", "-c",
                                literal(replica_block, keys | {"8766": port})],
                               env=env, cwd=home, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _wait_ready(f"http://127.0.0.1:{port}", replica)
        asked = bash(literal(curl_block, {"8766": port}), env, home)
        assert asked.returncode == 0, asked.stderr
        assert GONE in {hit["session_id"] for hit in json.loads(asked.stdout)["results"]}

        # in the writer's shell, where the first block's exports hold (`recall index` again
        # finds nothing changed)
        purged = bash(literal(writer_block, keys) + literal(purge_block, {"ID": GONE}), env, home)
        assert purged.returncode == 0, purged.stderr
        assert f"deleted {GONE}" in purged.stdout
        asked = bash(literal(curl_block, {"8766": port}), env, home)
        assert asked.returncode == 0, asked.stderr
        assert GONE not in {hit["session_id"] for hit in json.loads(asked.stdout)["results"]}
        replica_home = home / "recall-replica"
        assert not [p for p in replica_home.rglob("*") if p.is_file() and not p.is_symlink()
                    and MARKER.encode() in p.read_bytes()]
    finally:
        os.killpg(replica.pid, signal.SIGTERM)
        replica.communicate(timeout=60)


def _wait_ready(base: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if proc.poll() is not None:
            raise AssertionError(proc.communicate()[1])
        time.sleep(0.1)
    raise AssertionError("the replica did not start")
