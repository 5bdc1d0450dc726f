"""An import takes the writer lock per batch: another writer goes through between two batches,
and a session it changed meanwhile is not overwritten by the import's older copy."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from indexer import HashEmbedder
from indexer.ingest.ingestor import Ingestor
from indexer.ingest.progress import Progress
from indexer.stores.facts import FactStore
from indexer.stores.state import State
from models import SearchRequest
from models.files import decode_session

from .helpers import KESTREL_STANDUPS, agreement, make_service

ANIMALS = ["aardvark", "pangolin", "okapi", "narwhal", "axolotl", "quokka"]


def record(session_id: str, words: list[str]) -> dict[str, Any]:
    return {"sessionId": session_id, "date": "2026-03-01", "channel": "webchat",
            "messages": [{"id": f"{session_id}-m{n}", "role": "user" if n % 2 == 0 else "assistant",
                          "content": f"we talked about the {word} at the zoo today",
                          "time": f"2026-03-01T10:{n:02d}:00+00:00"}
                         for n, word in enumerate(words)]}


def write_inputs(folder: Path) -> list[Path]:
    folder.mkdir()
    paths = []
    for animal in ANIMALS:
        path = folder / f"s-{animal}.json"
        path.write_text(json.dumps(record(f"s-{animal}", [animal, "giraffe"])))
        paths.append(path)
    return paths


class WriteAfterFile:
    """A progress bar that, once `after` files are read, runs `write` on another thread (as
    the HTTP API does) and waits for it: the import is then between two of its batches."""

    def __init__(self, after: int, write: Any) -> None:
        self.after, self.write = after, write
        self.files = 0
        self.outcome: object = None

    def __call__(self, total: int, desc: str, unit: str = "file") -> Progress:
        return self

    def update(self, n: int = 1) -> None:
        self.files += n
        if self.files == self.after:
            def run() -> None:
                try:
                    self.outcome = self.write()
                except Exception as exc:  # noqa: BLE001  the test reports what it was
                    self.outcome = exc
            thread = threading.Thread(target=run)
            thread.start()
            thread.join()

    def note(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


def test_an_ingest_goes_through_while_a_multi_batch_import_runs(tmp_path: Path) -> None:
    service = make_service(tmp_path / "home")
    inputs = write_inputs(tmp_path / "in")
    live = Ingestor(service.data, HashEmbedder(), lock_wait=0.5)  # busy: WriterBusy in 0.5 s
    seen: dict[str, str] = {}

    def ingest() -> object:
        state = State(service.data.state_db)
        seen.update({r.session_id: r.status for r in state.sessions()})
        state.close()
        return live.ingest_record(record("s-live", ["capybara", "giraffe"]))

    bar = WriteAfterFile(3, ingest)
    importer = Ingestor(service.data, HashEmbedder(), batch_sessions=2, lock_wait=0.5,
                        progress=bar)
    report = importer.index_paths(inputs)
    assert not isinstance(bar.outcome, Exception), bar.outcome
    first_batch = ANIMALS[:2]  # files are read in the order given
    assert seen == {f"s-{a}": "indexed" for a in first_batch}  # the first batch only
    assert (report.files, report.indexed, report.unchanged, report.older_copies) == (6, 6, 0, 0)
    assert report.messages == 12
    for animal in [*ANIMALS, "capybara"]:
        hits = service.search(SearchRequest(query=animal, mode="keyword")).results
        expected = "s-live" if animal == "capybara" else f"s-{animal}"
        assert [r.session_id for r in hits] == [expected], animal
    assert agreement(service) == {**{f"s-{a}": 2 for a in ANIMALS}, "s-live": 2}


def test_a_session_changed_meanwhile_is_not_overwritten_by_the_import(tmp_path: Path) -> None:
    service = make_service(tmp_path / "home")
    inputs = write_inputs(tmp_path / "in")
    live = Ingestor(service.data, HashEmbedder(), lock_wait=0.5)
    newer = record("s-aardvark", ["aardvark", "giraffe", "flamingo"])  # one message more
    # read (and prepared) from its file, not yet written: the first batch is three files
    bar = WriteAfterFile(1, lambda: live.ingest_record(newer))
    importer = Ingestor(service.data, HashEmbedder(), batch_sessions=3, lock_wait=0.5,
                        progress=bar)
    report = importer.index_paths(inputs)
    assert not isinstance(bar.outcome, Exception), bar.outcome
    assert (report.indexed, report.older_copies) == (5, 1)
    hits = service.search(SearchRequest(query="flamingo", mode="keyword")).results
    assert [r.session_id for r in hits] == ["s-aardvark"]
    archived = decode_session(next(service.data.archive.rglob("s-aardvark.json")).read_bytes())
    assert len(archived.messages) == 3
    assert agreement(service)["s-aardvark"] == 3


def test_a_session_written_meanwhile_as_the_file_holds_it_counts_unchanged(
        tmp_path: Path) -> None:
    service = make_service(tmp_path / "home")
    inputs = write_inputs(tmp_path / "in")
    live = Ingestor(service.data, HashEmbedder(), lock_wait=0.5)
    same = record("s-aardvark", ["aardvark", "giraffe"])
    bar = WriteAfterFile(1, lambda: live.ingest_record(same))
    importer = Ingestor(service.data, HashEmbedder(), batch_sessions=3, lock_wait=0.5,
                        progress=bar)
    report = importer.index_paths(inputs)
    assert not isinstance(bar.outcome, Exception), bar.outcome
    assert (report.indexed, report.unchanged) == (5, 1)
    again = Ingestor(service.data, HashEmbedder()).index_paths(inputs)  # every file recorded
    assert (again.indexed, again.unchanged) == (0, 6)
    assert len(agreement(service)) == 6


def test_the_import_relinks_statements_once_at_its_end(tmp_path: Path) -> None:
    """A live write between two batches leaves the relink to the import (it reads every
    statement); the import's end relinks, and the later standup time supersedes the earlier."""
    service = make_service(tmp_path / "home")
    folder = tmp_path / "in"
    folder.mkdir()
    inputs = []
    for standup in KESTREL_STANDUPS:
        inputs.append(folder / f"{standup['sessionId']}.json")
        inputs[-1].write_text(json.dumps(standup))
    live = Ingestor(service.data, HashEmbedder(), lock_wait=0.5)
    stale_meanwhile: list[bool] = []

    def ingest() -> object:
        outcome = live.ingest_record(record("s-live", ["capybara", "giraffe"]))
        with FactStore(service.data) as facts:
            stale_meanwhile.append(facts.stale)
        return outcome

    bar = WriteAfterFile(1, ingest)  # the first standup is written: its statements are new
    importer = Ingestor(service.data, HashEmbedder(), batch_sessions=1, lock_wait=0.5,
                        progress=bar)
    assert importer.index_paths(inputs).indexed == 2
    assert not isinstance(bar.outcome, Exception), bar.outcome
    assert stale_meanwhile == [True]
    january, february = (r["sessionId"] for r in KESTREL_STANDUPS)
    with FactStore(service.data) as facts:
        assert not facts.stale
        assert [(link.later.split(":")[0], link.earlier.split(":")[0])
                for link in facts.links()] == [(february, january)]
