"""pytest plugin: a real S3 server for the session, Ceph's radosgw on a one-node Ceph that
scripts/s3_server.py starts (about 2 s, ~120 MB RSS, objects in RAM) and stops at the end.

A test asks for the `s3_server` fixture and marks itself `@pytest.mark.xdist_group("s3")` (or
`pytestmark = pytest.mark.xdist_group("s3")`): under `pytest -n auto --dist loadgroup` all such
tests then run on one worker, which starts one server (any other worker that runs one of them
starts its own: slower, still correct). Each test takes a bucket of its own with
`s3_server.new_bucket(...)`, so tests never see each other's objects.

Without radosgw (`make s3` installs it) these tests skip, unless RECALL_REQUIRE_S3 is set (CI sets
it), in which case they fail. conftest.py registers this module (`pytest_plugins`)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from botocore.client import BaseClient

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "s3_server.py"
# read at import: conftest clears RECALL_* variables around each test
REQUIRED = bool(os.environ.get("RECALL_REQUIRE_S3"))
START_TIMEOUT = 180  # seconds; the script gives up on radosgw after 90


@dataclass(frozen=True)
class S3Server:
    endpoint: str
    region: str
    access_key: str
    secret_key: str

    def client(self) -> BaseClient:
        """A boto3 S3 client for this server: path-style URLs (no bucket.host names to resolve)
        and signature v4."""
        import boto3  # here, not at the top: every test session loads this plugin
        from botocore.config import Config

        return boto3.client(
            "s3", endpoint_url=self.endpoint, region_name=self.region,
            aws_access_key_id=self.access_key, aws_secret_access_key=self.secret_key,
            config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))

    def new_bucket(self, name_prefix: str) -> str:
        """Create a bucket no other test uses; its name starts with `name_prefix`."""
        name = f"{name_prefix}-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name

    def storage_options(self) -> dict[str, str]:
        """What Lance and LanceDB take to reach this server (plain http on 127.0.0.1)."""
        return {"aws_access_key_id": self.access_key, "aws_secret_access_key": self.secret_key,
                "aws_endpoint": self.endpoint, "aws_region": self.region, "allow_http": "true"}


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist registers this marker; under `-p no:xdist`, --strict-markers would reject it
    config.addinivalue_line("markers", "xdist_group(name): run the group's tests on one worker")


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"RECALL_REQUIRE_S3 is set but {reason}")
    pytest.skip(f"{reason} (run `make s3`; set RECALL_REQUIRE_S3=1 to fail instead)")


def _script(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True, check=False, timeout=START_TIMEOUT)


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    if shutil.which("radosgw") is None:
        _unavailable("radosgw is not installed")
    if importlib.util.find_spec("boto3") is None:
        _unavailable("boto3 is not installed")
    root = tmp_path_factory.mktemp("s3-server")
    started = _script("start", "--dir", root)
    if started.returncode == 2:  # another Ceph tool is missing
        _unavailable(started.stderr.strip())
    if started.returncode != 0:
        pytest.fail(f"the S3 server did not start: {started.stderr.strip()}")
    info = json.loads(started.stdout)
    try:
        yield S3Server(info["endpoint"], info["region"], info["access_key"], info["secret_key"])
    finally:
        # the logs stay with pytest's other temporary files (it keeps the last few runs)
        _script("stop", "--dir", root, "--keep")
