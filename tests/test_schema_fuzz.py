"""`schemathesis run` against the OpenAPI document of `recall serve` over real HTTP, with a
bearer token set: every operation, every check (the exceptions and their reasons are in
tests/schemathesis.toml), a fixed seed and a bounded number of cases per operation.
Zero server errors and zero schema violations are required."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from api import RecallService

from .helpers import serve

CONFIG = Path(__file__).with_name("schemathesis.toml")
TOKEN = "fuzz-token"


def test_schemathesis_finds_nothing(writable: RecallService, tmp_path: Path) -> None:
    for summary in writable.list_sessions(limit=500).sessions:
        writable.snapshots.create(summary.session_id)  # so recovery and changes have work to do
    report, log_path = tmp_path / "report.json", tmp_path / "server.log"
    with log_path.open("w") as log:
        # the fuzzer sends hundreds of requests without a token on purpose: each must get its
        # 401, not the 429 that a client with that many refusals a minute gets
        server, base = serve(writable.settings.home, env={
            "RECALL_API_TOKEN": TOKEN, "RECALL_REFUSALS_PER_MINUTE": "100000"}, log=log)
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "--no-color",
                 "run", f"{base}/schema/openapi.json", "--report", "json",
                 "--report-json-path", str(report)],
                env={**os.environ, "RECALL_API_TOKEN": TOKEN}, cwd=tmp_path, capture_output=True,
                text=True, timeout=600, check=False)
        finally:
            server.terminate()
            server.wait(timeout=10)
    server_log = log_path.read_text()
    result = json.loads(report.read_text())
    assert result["complete"] and not result["errors"], proc.stdout[-5000:]
    assert result["failures"] == [], proc.stdout[-5000:]
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
    assert "unexpected error" not in server_log, server_log[-5000:]
    operations, cases = result["operations"], result["test_cases"]
    assert operations["tested"] == operations["total"] == 35
    assert all(phase["status"] == "success" for name, phase in result["phases"].items()
               if name != "examples")  # the schema carries no examples
    assert cases["generated"] > 1000
    print("\n" + "\n".join(line for line in proc.stdout.splitlines() if " (in " in line))
    print(f"schemathesis: {operations['tested']} operations, {cases['generated']} cases, "
          f"0 failures, {result['running_time']:.0f} s")
