"""Crash safety: `recall index` and `recall reindex` killed with SIGKILL at random points, then
`recall index` again and `recall check`: no inconsistency, no lost session, no duplicate.

Kill delays are drawn (seeded) from the measured length of each run's writing phase, which
starts when the process first touches the data dir, so the kills land on writes rather than
on Python's start-up. Trials run a few at a time: start-up dominates and is mostly waiting.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .helpers import agreement, make_service

ROOT = Path(__file__).resolve().parents[1]
SESSIONS = 24
TRIALS_INDEX = 14
TRIALS_REINDEX = 8
AT_ONCE = 4


def _corpus(folder: Path, version: int) -> set[str]:
    folder.mkdir(parents=True)
    count = SESSIONS + (6 if version == 2 else 0)
    for i in range(count):
        changed = version == 2 and i % 3 == 0
        record = {"sessionId": f"s{i:03d}", "date": f"2026-0{1 + i % 9}-1{i % 10}",
                  "title": f"session {i}",
                  "messages": [{"role": "user" if j % 2 == 0 else "assistant",
                                "content": f"{'changed ' if changed else ''}message {j} of session "
                                           f"{i} about topic{i % 7} 会话{i}. I prefer green tea. "
                                           "We decided to use Postgres 16."}
                               for j in range(6 + i % 4)]}
        (folder / f"s{i:03d}.json").write_text(json.dumps(record, ensure_ascii=False))
    return {f"s{i:03d}" for i in range(count)}


@dataclass
class Trial:
    home: Path
    args: list[str]
    started: Callable[[], bool]  # the writing phase has begun
    delay: float = 0.0
    killed: bool = False


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "RECALL_HOME": str(home), "RECALL_EMBEDDER": "hash",
            "RECALL_BATCH_SESSIONS": "2"}


def _run(trial: Trial, timings: list[float] | None = None) -> None:
    errors = trial.home.with_name(trial.home.name + ".stderr")
    with open(errors, "wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "api.cli", *trial.args], cwd=ROOT,
                                env=_env(trial.home), stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 60
    while not trial.started() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    began = time.monotonic()
    if timings is not None:  # a measuring run: let it finish
        assert proc.wait(60) == 0, errors.read_text()
        timings.append(time.monotonic() - began)
        return
    try:
        proc.wait(trial.delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        trial.killed = True
    proc.wait(60)


def _new_generation(home: Path) -> Callable[[], bool]:
    before = {p.name for p in (home / "index").iterdir()}
    return lambda: any(p.name not in before for p in (home / "index").iterdir())


def test_sigkill_during_index_and_reindex_leaves_nothing_inconsistent(tmp_path: Path) -> None:
    rng = random.Random(20260409)
    v1, v2 = tmp_path / "v1", tmp_path / "v2"
    ids_v1, ids_v2 = _corpus(v1, 1), _corpus(v2, 2)
    base = tmp_path / "base"
    assert make_service(base).index([v1]).indexed == SESSIONS

    def copy_of_base(name: str) -> Path:
        home = tmp_path / name
        shutil.copytree(base, home, ignore=shutil.ignore_patterns("writer.lock"))
        return home

    # measure the writing phase of a full index and a full reindex
    index_times: list[float] = []
    reindex_times: list[float] = []
    fresh = tmp_path / "measure-index"
    measured = copy_of_base("measure-reindex")
    runs = [threading.Thread(target=_run, args=(Trial(fresh, ["index", str(v2)],
                                                      (fresh / "state.sqlite3").exists), index_times)),
            threading.Thread(target=_run, args=(Trial(measured, ["reindex"],
                                                      _new_generation(measured)), reindex_times))]
    for run in runs:
        run.start()
    for run in runs:
        run.join()

    trials: list[tuple[Trial, Path, set[str]]] = []
    for n in range(TRIALS_INDEX):
        # even trials start empty; odd ones change a third of the sessions and add six
        home = tmp_path / f"index-{n}" if n % 2 == 0 else copy_of_base(f"index-{n}")
        trial = Trial(home, ["index", str(v2)], lambda h=home: (h / "state.sqlite3").exists())
        trial.delay = rng.uniform(0, index_times[0] * 1.1)
        trials.append((trial, v2, ids_v2))
    for n in range(TRIALS_REINDEX):
        home = copy_of_base(f"reindex-{n}")
        trial = Trial(home, ["reindex"], _new_generation(home))
        trial.delay = rng.uniform(0, reindex_times[0] * 1.1)
        trials.append((trial, v1, ids_v1))

    for start in range(0, len(trials), AT_ONCE):
        group = [threading.Thread(target=_run, args=(t,)) for t, _, _ in trials[start:start + AT_ONCE]]
        for thread in group:
            thread.start()
        for thread in group:
            thread.join()

    killed = 0
    for trial, folder, ids in trials:
        killed += trial.killed
        service = make_service(trial.home)
        report = service.index([folder])
        assert not report.rejected
        check = service.maintenance.check()
        assert check.ok, (trial.args, trial.delay, check.differences)
        assert set(agreement(service)) == ids  # nothing lost, nothing extra
    assert killed >= 16, f"only {killed} of {len(trials)} runs were killed before they finished"


def test_a_commit_after_a_writer_killed_mid_commit_succeeds(tmp_path: Path) -> None:
    """A writer killed after writing a delete bitset but before replacing meta.json leaves
    `<segment>.<opstamp>.del` behind; the next commit reuses that opstamp and once failed with
    FileAlreadyExists (seen once in the SIGKILL trials above)."""
    from indexer.stores.documents import Doc
    from indexer.stores.keyword import KeywordIndex

    path = tmp_path / "keyword"
    docs = [Doc(key=f"s{i}:m", session_id=f"s{i}", message_id="m", role="user", time=None,
                day=20260101, channel="cli", participants=(), speaker=None, text=f"tea {i}")
            for i in range(4)]
    index = KeywordIndex(path, create=True)
    index.add(docs)
    index.close()
    meta_before = (path / "meta.json").read_bytes()

    index = KeywordIndex(path)
    index.delete_sessions(["s1"])
    index.close()
    assert any(p.suffix == ".del" for p in path.iterdir())
    (path / "meta.json").write_bytes(meta_before)  # as if killed before meta.json was replaced

    index = KeywordIndex(path)
    index.delete_sessions(["s1"])
    index.close()  # the commit that failed
    index.refresh()
    assert sorted(index.session_ids()) == ["s0", "s2", "s3"]
