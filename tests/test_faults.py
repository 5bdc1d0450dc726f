"""Faults of the machine, created for real: a full disk (a small tmpfs filled up), a read-only
data directory (the tmpfs remounted read-only), damaged and missing index files (truncated,
removed), a database another program holds, and a data directory from a newer recall.

Each must end in a clear message (no traceback) that says what happened, what is safe and what
to run; `recall check` must report what it left, and the command it suggests must repair it
with nothing lost. Mounting needs root (as CI has); elsewhere the disk tests are skipped."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from api.http.app import create_app
from indexer.ingest.watch import Watcher
from indexer.stores.generation import SCHEMA_VERSION

from .conftest import Ran
from .helpers import ROOT, SESSIONS, assert_problem, make_service

sys.path.insert(0, str(ROOT / "scripts"))
import generate_archive

EXAMPLES = ROOT / "examples" / "sessions"
NO_TRACEBACK = "Traceback"


class SmallDisk:
    """A tmpfs of its own: filled up, freed, remounted read-only and back."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.filler = root / "filler"

    def fill(self, leave: int = 0) -> None:
        """Take all free space but `leave` bytes."""
        free = shutil.disk_usage(self.root).free
        with open(self.filler, "ab") as out:
            remaining = max(0, free - leave)
            chunk = b"\0" * (1 << 20)
            while remaining > 0:
                try:
                    remaining -= out.write(chunk[:remaining])
                except OSError:  # full: as intended
                    break

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)

    def read_only(self, on: bool) -> None:
        mode = "ro" if on else "rw"
        subprocess.run(["mount", "-o", f"remount,{mode}", str(self.root)], check=True)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[SmallDisk]:
    root = tmp_path / "disk"
    root.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(root)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield SmallDisk(root)
    finally:
        subprocess.run(["umount", "-l", str(root)], check=False)


@pytest.fixture
def on_disk(disk: SmallDisk, recall: Callable[..., Ran],
            monkeypatch: pytest.MonkeyPatch) -> Callable[..., Ran]:
    """`recall` with its home on the small disk, the examples already indexed."""
    monkeypatch.setenv("RECALL_HOME", str(disk.root / "home"))
    recall("index", EXAMPLES)
    return recall


def consistent(recall: Callable[..., Ran]) -> dict:
    report = json.loads(recall("check", "--json", ok=False).stdout)
    assert report["ok"], report["differences"]
    return report


def clear_failure(ran: Ran, *words: str) -> None:
    assert ran.returncode == 1, ran
    assert ran.stderr.startswith("recall: "), ran.stderr
    assert NO_TRACEBACK not in ran.stderr
    for word in words:
        assert word in ran.stderr, ran.stderr


def generated(tmp_path: Path, sessions: int) -> Path:
    out = tmp_path / "generated"
    for _ in generate_archive.generate(out, sessions):
        pass
    return out


# a full disk


def test_a_full_disk_during_index_is_told_and_the_next_run_finishes(
        disk: SmallDisk, on_disk: Callable[..., Ran], tmp_path: Path) -> None:
    new = generated(tmp_path, 60)
    before = consistent(on_disk)["sessions"]
    disk.fill(leave=400_000)  # room to start, not to finish
    failed = on_disk("index", new, ok=False)
    clear_failure(failed, "is full", "Nothing stored before is lost", "Free some space")
    disk.free()
    left = json.loads(on_disk("check", "--json", ok=False).stdout)
    assert not left["ok"]  # check lists what the write left half-done ...
    assert {d["kind"] for d in left["differences"]} <= {"half_written", "missing_archive"}
    on_disk("index", new)  # ... and the same command again finishes it
    assert consistent(on_disk)["sessions"] == before + 60


def test_a_full_disk_at_start_is_told_even_when_sqlite_says_only_disk_io_error(
        disk: SmallDisk, on_disk: Callable[..., Ran]) -> None:
    disk.fill(leave=0)  # SQLite cannot create its journal and says "disk I/O error"
    clear_failure(on_disk("index", SESSIONS, ok=False), "is full")
    disk.free()
    on_disk("index", SESSIONS)
    consistent(on_disk)


def test_a_full_disk_during_reindex_keeps_the_old_index_serving(
        disk: SmallDisk, on_disk: Callable[..., Ran]) -> None:
    disk.fill(leave=300_000)
    clear_failure(on_disk("reindex", ok=False), "is full")
    assert "score" in on_disk("search", "OpenClaw").stdout  # the old generation still answers
    disk.free()
    on_disk("reindex")
    consistent(on_disk)


def test_a_full_disk_during_purge_is_told_and_a_second_purge_finishes(
        disk: SmallDisk, on_disk: Callable[..., Ran]) -> None:
    victim = "063fbb6a-7c1c-4326-b4de-bb73c5b807f8"  # an example session
    on_disk("delete", victim)
    disk.fill(leave=200_000)
    clear_failure(on_disk("delete", "--purge", ok=False), "is full")
    disk.free()
    on_disk("delete", "--purge")
    consistent(on_disk)
    assert on_disk("show", victim, ok=False).returncode == 1


def test_a_full_disk_during_a_live_append_answers_507_and_loses_nothing(
        disk: SmallDisk, tmp_path: Path) -> None:
    service = make_service(disk.root / "home")
    service.index([SESSIONS])
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as client:
        live = client.post("/v1/sessions", json={"sessionId": "live-disk"}).json()["session_id"]
        said = [f"the lighthouse keeper's note number {n}" for n in range(3)]
        for text in said[:2]:
            assert client.post(f"/v1/sessions/{live}/messages",
                               json={"role": "user", "content": text}).status_code == 201
        disk.fill(leave=0)
        full = client.post(f"/v1/sessions/{live}/messages",
                           json={"role": "user", "content": "lost to a full disk?"})
        assert_problem(full, 507, "Disk full", None)
        assert "is full" in full.json()["detail"]
        disk.free()
        assert client.post(f"/v1/sessions/{live}/messages",
                           json={"role": "user", "content": said[2]}).status_code == 201
        kept = client.get(f"/v1/sessions/{live}").json()["messages"]
    texts = [m["content"] for m in kept]
    assert texts[:2] == said[:2] and texts[-1] == said[2]
    assert service.maintenance.check().ok


# a read-only data directory


def test_a_read_only_data_directory_is_told_and_nothing_changes(
        disk: SmallDisk, on_disk: Callable[..., Ran]) -> None:
    disk.read_only(True)
    try:
        clear_failure(on_disk("index", SESSIONS, ok=False), "cannot write to its data directory",
                      "read-only", "Nothing was changed")
        clear_failure(on_disk("search", "OpenClaw", ok=False), "cannot write to its data directory")
    finally:
        disk.read_only(False)
    on_disk("index", SESSIONS)
    consistent(on_disk)


# damaged and missing index files


def _truncate_keyword(home: Path) -> None:
    store = next((_generation(home) / "keyword").glob("*.store"))
    with open(store, "r+b") as f:
        f.truncate(10)


def _remove_keyword_meta(home: Path) -> None:
    (_generation(home) / "keyword" / "meta.json").unlink()


def _truncate_vectors(home: Path) -> None:
    for data in (_generation(home) / "vectors" / "messages_other.lance" / "data").iterdir():
        with open(data, "r+b") as f:
            f.truncate(100)


def _remove_vector_table(home: Path) -> None:
    shutil.rmtree(_generation(home) / "vectors" / "messages_other.lance")


def _generation(home: Path) -> Path:
    return home / "index" / (home / "index" / "CURRENT").read_text().strip()


@pytest.mark.parametrize(("damage", "store"), [
    (_truncate_keyword, "keyword"), (_remove_keyword_meta, "keyword"),
    (_truncate_vectors, "vector"), (_remove_vector_table, "vector")])
def test_a_damaged_index_is_told_checked_and_rebuilt_from_the_archive(
        recall: Callable[..., Ran], tmp_path: Path, damage: Callable[[Path], None],
        store: str) -> None:
    recall("index", EXAMPLES)
    before = consistent(recall)
    damage(tmp_path / "home")
    told = f"the {store} index is damaged"
    clear_failure(recall("search", "OpenClaw", ok=False), told, "The archive is intact",
                  "`recall reindex`")
    checked = json.loads(recall("check", "--json", ok=False).stdout)
    assert not checked["ok"]
    assert any(d["kind"] == "generation" and told in d["detail"] for d in checked["differences"])
    recall("check", "--repair")  # rebuilds the whole index from the archive, as reindex does
    after = consistent(recall)
    assert (after["sessions"], after["keyword_documents"], after["vector_passages"]) == (
        before["sessions"], before["keyword_documents"], before["vector_passages"])
    assert "OpenClaw" in recall("search", "OpenClaw").stdout


def test_a_damaged_index_answers_503_over_http(recall: Callable[..., Ran], tmp_path: Path) -> None:
    recall("index", EXAMPLES)
    _truncate_keyword(tmp_path / "home")
    service = make_service(tmp_path / "home")
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as client:
        answer = client.get("/v1/search", params={"q": "OpenClaw"})
    assert_problem(answer, 503, "Index damaged", None)
    assert "recall reindex" in answer.json()["detail"]


# another program holding a database


def test_a_database_locked_by_another_program_is_told(on_disk: Callable[..., Ran],
                                                      disk: SmallDisk) -> None:
    holder = sqlite3.connect(disk.root / "home" / "state.sqlite3", isolation_level=None,
                             check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")  # what a sqlite3 shell or a backup tool may do
    try:
        clear_failure(on_disk("index", SESSIONS, ok=False), "locked by another program",
                      "Nothing was changed")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    on_disk("index", SESSIONS)
    consistent(on_disk)


def test_a_database_held_for_a_moment_is_waited_for(on_disk: Callable[..., Ran],
                                                    disk: SmallDisk) -> None:
    holder = sqlite3.connect(disk.root / "home" / "state.sqlite3", isolation_level=None,
                             check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(1.0, lambda: holder.execute("ROLLBACK"))
    release.start()
    on_disk("index", SESSIONS)
    release.join()
    holder.close()
    consistent(on_disk)


# a data directory from a newer recall


def test_a_data_directory_from_a_newer_recall_is_left_alone(recall: Callable[..., Ran],
                                                            tmp_path: Path) -> None:
    recall("index", EXAMPLES)
    meta_path = _generation(tmp_path / "home") / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["schema"] = SCHEMA_VERSION + 1
    meta_path.write_text(json.dumps(meta))
    newer = meta_path.read_bytes()
    for command in (("search", "OpenClaw"), ("index", SESSIONS)):
        clear_failure(recall(*command, ok=False), "written by a newer recall",
                      "Nothing was changed", "Upgrade recall")
    assert meta_path.read_bytes() == newer  # not rebuilt behind the user's back
    recall("reindex")  # the way back, when the user chooses it
    consistent(recall)


def test_a_fault_reaches_a_real_process_as_one_line(tmp_path: Path) -> None:
    """The entry point as installed: a damaged index, no traceback, exit status 1."""
    env = {**os.environ, "RECALL_HOME": str(tmp_path / "home"), "RECALL_EMBEDDER": "hash"}
    command = [sys.executable, "-m", "api.cli"]
    subprocess.run([*command, "index", str(SESSIONS)], env=env, cwd=ROOT, check=True,
                   capture_output=True)
    _remove_vector_table(tmp_path / "home")
    ran = subprocess.run([*command, "search", "lighthouse"], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert ran.returncode == 1
    assert ran.stderr.strip().splitlines() == [ran.stderr.strip()], ran.stderr
    assert "the vector index is damaged" in ran.stderr


def test_a_watcher_keeps_files_for_the_next_pass_while_the_disk_is_full(
        disk: SmallDisk, tmp_path: Path) -> None:
    service = make_service(disk.root / "home")
    service.index([EXAMPLES])
    watched = tmp_path / "watched"
    shutil.copytree(SESSIONS, watched)
    files = sorted(watched.rglob("*.json"))
    watcher = Watcher(lambda: files, service.ingestor().index_paths, quiet=0,
                      home=service.data.root)
    disk.fill(leave=0)
    stuck = watcher.poll()
    assert stuck.fault and "is full" in stuck.fault and not stuck.ingested and not stuck.failed
    disk.free()
    done = watcher.poll()  # the same files, not marked done while the disk was full
    assert done.fault is None and done.report is not None and done.report.indexed >= 1
    assert service.maintenance.check().ok
