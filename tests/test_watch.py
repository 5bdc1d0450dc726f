"""`recall watch`: polling, debounce, growing files, bad files, deleted sources, clean exit."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from api import RecallService
from indexer.formats.sources import discover
from indexer.ingest.watch import Watcher
from indexer.stores.lock import WriterLock
from models import SearchRequest

from .helpers import CC, FORMATS, make_service

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    """Wall and monotonic time the test moves by hand."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def line(role: str, content: str, ts: int) -> str:
    return json.dumps({"role": role, "content": content, "ts": ts}) + "\n"


def make_watcher(service: RecallService, root: Path, clock: Clock, **kwargs: object) -> Watcher:
    ingestor = service.ingestor()
    return Watcher(lambda: list(discover([root])), kwargs.pop("ingest", ingestor.index_paths),
                   quiet=2.0, interval=0.1, wall_clock=clock, monotonic=clock, **kwargs)  # type: ignore[arg-type]


def found(service: RecallService, query: str) -> list[str]:
    return [h.session_id for h in service.search(SearchRequest(query=query, mode="keyword")).results]


@pytest.fixture
def setup(tmp_path: Path) -> tuple[RecallService, Path, Clock]:
    root = tmp_path / "transcripts"
    root.mkdir()
    return make_service(tmp_path / "home"), root, Clock()


def test_a_file_is_read_only_once_quiet(setup) -> None:
    service, root, clock = setup
    path = root / "chat-1.jsonl"
    path.write_text(line("user", "the zeppelin hangar needs repainting", 1770775333000))
    os.utime(path, (clock.now, clock.now))  # file times follow the test's clock
    watcher = make_watcher(service, root, clock)
    first = watcher.poll()  # just written: still being written as far as we know
    assert (first.seen, first.waiting, first.ingested) == (1, 1, [])
    assert first.report is None  # nothing handed to the ingestor
    clock.now += 1
    with path.open("a") as handle:  # written again within the quiet time: wait again
        handle.write(line("assistant", "blue paint for the zeppelin", 1770775334000))
    os.utime(path, (clock.now, clock.now))
    clock.now += 1.5
    assert watcher.poll().waiting == 1
    clock.now += 2.5
    second = watcher.poll()
    assert second.ingested == [path] and second.report and second.report.indexed == 1
    assert found(service, "zeppelin") == ["chat-1"]
    clock.now += 5
    third = watcher.poll()  # nothing changed: nothing read
    assert (third.ingested, third.waiting, third.report) == ([], 0, None)


def test_a_growing_jsonl_file_is_read_again(setup) -> None:
    service, root, clock = setup
    path = root / "grow.jsonl"
    path.write_text(line("user", "plan the orchard irrigation", 1770775333000)
                    + '{"role": "assistant", "content": "drip li')  # torn: still being written
    watcher = make_watcher(service, root, clock)
    clock.now += 10
    assert watcher.poll().report.indexed == 1  # type: ignore[union-attr]
    assert len(service.session("grow").messages) == 1
    with path.open("a") as handle:
        handle.write('nes under the mulch"}\n' + line("user", "and the persimmon trees", 1770775399000))
    clock.now += 10
    again = watcher.poll()
    assert again.ingested == [path] and again.report and again.report.indexed == 1
    assert [m.content for m in service.session("grow").messages][1:] == [
        "drip lines under the mulch", "and the persimmon trees"]
    assert found(service, "persimmon") == ["grow"]


def test_a_restarted_watcher_reads_nothing_twice(setup) -> None:
    service, root, clock = setup
    shutil.copytree(CC, root / "cc")
    clock.now += 10
    first = make_watcher(service, root, clock).poll()
    assert first.report and first.report.indexed >= 2
    restarted = make_watcher(service, root, clock).poll()  # a new process: state DB remembers
    assert restarted.report and restarted.report.indexed == 0
    # every file, the sub-agent file with nothing to import included
    assert restarted.report.unchanged == first.report.files


def test_a_bad_file_is_reported_and_the_watcher_goes_on(setup) -> None:
    service, root, clock = setup
    (root / "broken.json").write_text("{not json")
    (root / "good.jsonl").write_text(line("user", "the walrus migration schedule", 1770775333000))
    watcher = make_watcher(service, root, clock)
    clock.now += 10
    first = watcher.poll()
    assert first.report and first.report.indexed == 1
    assert [Path(r.path).name for r in first.report.rejected] == ["broken.json"]
    assert "invalid JSON" in first.report.rejected[0].reason
    clock.now += 10
    assert watcher.poll().report is None  # the bad file is not retried until it changes
    (root / "later.jsonl").write_text(line("user", "narwhal tusks", 1770775399000))
    clock.now += 10
    assert watcher.poll().report.indexed == 1  # type: ignore[union-attr]
    assert found(service, "narwhal") == ["later"]


def test_a_file_that_breaks_the_ingestor_is_isolated(setup) -> None:
    service, root, clock = setup
    for name in ("a", "b", "c"):
        (root / f"{name}.jsonl").write_text(line("user", f"topic {name} okapi", 1770775333000))
    real = service.ingestor().index_paths

    def ingest(paths):
        if any(p.name == "b.jsonl" for p in paths):
            raise RuntimeError("parser blew up")
        return real(paths)

    watcher = make_watcher(service, root, clock, ingest=ingest)
    clock.now += 10
    result = watcher.poll()
    assert [(Path(f.path).name, f.reason) for f in result.failed] == [
        ("b.jsonl", "RuntimeError: parser blew up")]
    assert sorted(p.name for p in result.ingested) == ["a.jsonl", "c.jsonl"]
    assert sorted(found(service, "okapi")) == ["a", "c"]


def test_writer_lock_is_held_only_while_ingesting(setup) -> None:
    service, root, clock = setup
    (root / "x.jsonl").write_text(line("user", "lighthouse keeper rota", 1770775333000))
    ingestor = service.ingestor()
    ingestor.lock_wait = 0
    watcher = Watcher(lambda: list(discover([root])), ingestor.index_paths, quiet=2.0,
                      wall_clock=clock, monotonic=clock)
    clock.now += 10
    with WriterLock(service.data.lock_file, 0):  # another writer is busy: retried next pass
        busy = watcher.poll()
    assert busy.busy and busy.ingested == []
    done = watcher.poll()
    assert done.report and done.report.indexed == 1
    with WriterLock(service.data.lock_file, 0):  # free again between passes
        pass


def test_a_source_deleted_after_ingest_stays_searchable(setup) -> None:
    service, root, clock = setup
    path = root / "ephemeral.jsonl"
    path.write_text(line("user", "the quokka enclosure budget", 1770775333000))
    watcher = make_watcher(service, root, clock)
    clock.now += 10
    assert watcher.poll().report.indexed == 1  # type: ignore[union-attr]
    path.unlink()  # the host tool cleans up its transcripts
    clock.now += 10
    after = watcher.poll()
    assert (after.seen, after.report) == (0, None)
    assert found(service, "quokka") == ["ephemeral"]
    assert service.session("ephemeral").messages[0].content == "the quokka enclosure budget"


def _cli_env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "RECALL_HOME": str(tmp_path / "data"), "RECALL_EMBEDDER": "hash",
           "HOME": str(tmp_path)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    return env


def test_cli_once_reads_a_format_default_location(recall, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(CC, tmp_path / ".claude" / "projects")
    old = time.time() - 60
    for path in (tmp_path / ".claude").rglob("*.jsonl"):
        os.utime(path, (old, old))
    monkeypatch.setenv("RECALL_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    proc = recall("watch", "--format", "claude-code", "--once", ok=False)
    assert proc.returncode == 0, proc.stderr
    assert "indexed 2 sessions" in proc.stderr, proc.stderr
    again = recall("watch", "--format", "claude-code", "--once", ok=False)
    assert again.returncode == 0 and "indexed" not in again.stderr


def test_cli_watch_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    (root / "s.jsonl").write_text(line("user", "capybara", 1770775333000))
    with subprocess.Popen([sys.executable, "-m", "api.cli", "watch", str(root), "--interval",
                           "0.2", "--quiet", "0"], cwd=ROOT, env=_cli_env(tmp_path),
                          stderr=subprocess.PIPE, text=True) as proc:
        assert proc.stderr is not None
        lines = []
        for text in proc.stderr:  # wait until it has read the file
            lines.append(text)
            if "indexed 1 sessions" in text:
                break
        proc.send_signal(signal.SIGTERM)
        rest = proc.stderr.read()
        assert proc.wait(timeout=60) == 0, "".join(lines) + rest
    assert "recall watch: stopped" in rest


def test_a_database_is_read_again_when_its_write_ahead_log_grows(setup) -> None:
    """opencode and Cursor keep their newest writes in the database's `-wal` file until they
    checkpoint; the database file itself does not change, and the watcher must notice anyway."""
    service, root, clock = setup
    db = root / "opencode.db"
    shutil.copyfile(FORMATS / "opencode" / "opencode.db", db)
    writer = sqlite3.connect(db)  # the agent, running: its writes stay in the log
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        watcher = make_watcher(service, root, clock)
        clock.now += 10
        first = watcher.poll()
        assert first.ingested == [db] and first.report and first.report.indexed >= 2
        assert not found(service, "persimmon")

        before = db.stat().st_mtime_ns, db.stat().st_size
        session_id, = writer.execute(
            "SELECT id FROM session ORDER BY time_created LIMIT 1").fetchone()
        at = writer.execute("SELECT max(time_created) FROM message").fetchone()[0] + 1000
        writer.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (
            "msg_zzzzzzzzzzzzWatchTest0001", session_id, at, at,
            json.dumps({"role": "user", "time": {"created": at}})))
        writer.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (
            "prt_zzzzzzzzzzzzWatchTest0001", "msg_zzzzzzzzzzzzWatchTest0001", session_id, at, at,
            json.dumps({"type": "text", "text": "plant the persimmon trees by the wall"})))
        writer.execute("UPDATE session SET time_updated = ? WHERE id = ?", (at, session_id))
        writer.commit()
        assert (db.stat().st_mtime_ns, db.stat().st_size) == before  # only the log grew
        clock.now += 10
        again = watcher.poll()
        assert again.ingested == [db] and again.report and again.report.indexed == 1
        assert found(service, "persimmon") == [f"opencode-{session_id}"]
    finally:
        writer.close()
