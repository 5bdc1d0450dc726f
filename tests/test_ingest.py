from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
import tantivy

from api import RecallService, Settings
from indexer import HashEmbedder
from indexer.stores import layout
from indexer.stores.layout import atomic_write_many
from indexer.stores.lock import WriterLock
from indexer.stores.memories import MemoryStore
from indexer.stores.state import State
from models import IndexMismatch, NotFound, SearchFilters, SearchRequest, WriterBusy

from .helpers import BAD, JSONL, SESSIONS, agreement, make_service

ROOT = Path(__file__).resolve().parents[1]


def test_index_report_and_incremental_skip(tmp_path: Path) -> None:
    service = make_service(tmp_path / "home")
    first = service.index([SESSIONS, JSONL, BAD])
    assert (first.indexed, first.unchanged, len(first.rejected)) == (7, 0, 4)
    assert first.redacted["openai_key"] == 1 and first.redacted["password"] >= 2
    second = service.index([SESSIONS, JSONL, BAD])
    assert (second.indexed, second.unchanged, len(second.rejected)) == (0, 7, 4)
    assert set(msgspec.to_builtins(first)) >= {"indexed", "unchanged", "rejected", "seconds"}
    agreement(service)


def test_rejected_files_are_quarantined_with_reason_and_redacted(tmp_path: Path) -> None:
    bad = tmp_path / "in"
    bad.mkdir()
    (bad / "broken.json").write_text('{"sessionId": "x", "messages": [ {"content": "sk-proj-' + "Xk29fLq8Zt4W" * 4 + '"')
    service = make_service(tmp_path / "home")
    report = service.index([bad, SESSIONS])
    assert report.indexed == 6
    assert [r.path for r in report.rejected] == [str(bad / "broken.json")]
    assert "invalid JSON" in report.rejected[0].reason
    copies = [p for p in service.data.quarantine.iterdir() if not p.name.endswith(".reason.txt")]
    assert len(copies) == 1
    assert "sk-proj-" not in copies[0].read_text() and "[REDACTED:openai_key]" in copies[0].read_text()
    reasons = list(service.data.quarantine.glob("*.reason.txt"))
    assert "invalid JSON" in reasons[0].read_text()


@pytest.mark.parametrize("name,payload,reason", [
    ("big.json", b'{"messages": []}' + b" " * 2_000_000, "over the"),
    ("utf.json", bytes(range(128, 256)), "not valid UTF-8"),  # not text (one bad byte is repaired)
    ("nul.json", b'{"sessionId": "n", "date": "2026-01-01", "messages": [{"content": "\\u0000 ok"}]}\x00', "NUL"),
    ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nested"),
])
def test_hostile_files_rejected(tmp_path: Path, name: str, payload: bytes, reason: str) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / name).write_bytes(payload)
    service = RecallService(Settings(home=tmp_path / "home", embedder="hash", max_file_mb=1),
                            embedder=HashEmbedder())
    report = service.index([folder])
    assert report.indexed == 0 and reason in report.rejected[0].reason


def test_bom_is_accepted(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    record = {"sessionId": "bom", "date": "2026-01-01", "messages": [{"role": "user", "content": "hello"}]}
    (folder / "bom.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(record).encode())
    assert make_service(tmp_path / "home").index([folder]).indexed == 1


def test_changed_session_replaces_old_documents(writable: RecallService, tmp_path: Path) -> None:
    record = json.loads((SESSIONS / "2026-03" / "t-zh-upgrade.json").read_text())
    record["messages"][1]["content"] = "这次改成讨论向量检索和重排序。"
    record["date"] = "2026-04-01"  # moves to another archive month
    changed = tmp_path / "t-zh-upgrade.json"
    changed.write_text(json.dumps(record, ensure_ascii=False))
    report = writable.index([changed])
    assert report.indexed == 1
    assert [r.session_id for r in writable.search(SearchRequest(query="重排序")).results] == ["t-zh-upgrade"]
    assert "t-zh-upgrade" not in [r.session_id for r in writable.search(
        SearchRequest(query="记忆系统", mode="keyword")).results if r.date == "2026-03-29"]
    assert not (writable.data.archive / "2026-03" / "t-zh-upgrade.json").exists()
    assert writable.session("t-zh-upgrade").date == "2026-04-01"
    agreement(writable)


def test_same_session_from_two_files_in_one_run(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    base = {"sessionId": "twin", "date": "2026-01-01", "messages": [{"role": "user", "content": "one"}]}
    (folder / "a.json").write_text(json.dumps(base))
    (folder / "b.json").write_text(json.dumps(base | {"messages": [{"role": "user", "content": "two"}]}))
    (folder / "c.json").write_text(json.dumps(base))  # identical content: not a conflict
    service = make_service(tmp_path / "home")
    report = service.index([folder])
    assert report.indexed == 1
    assert [r.path for r in report.rejected] == [str(folder / "b.json")]
    assert "already read from" in report.rejected[0].reason
    agreement(service)


def test_a_clash_in_a_file_of_many_sessions_leaves_out_that_session_only(tmp_path: Path) -> None:
    """A database or an export holds many sessions: one id read before with other content
    does not cost the others."""
    folder = tmp_path / "in"
    folder.mkdir()
    twin = {"sessionId": "twin", "date": "2026-01-01", "messages": [{"role": "user", "content": "one"}]}
    other = {"sessionId": "other", "date": "2026-01-02",
             "messages": [{"role": "user", "content": "the other one"}]}
    (folder / "a.json").write_text(json.dumps(twin))
    (folder / "b.json").write_text(json.dumps([
        twin | {"messages": [{"role": "user", "content": "two"}]}, other]))
    service = make_service(tmp_path / "home")
    report = service.index([folder])
    assert report.indexed == 2
    assert service.session("other").messages[0].content == "the other one"
    assert [r.path for r in report.rejected] == [str(folder / "b.json")]
    assert "'twin' was already read from" in report.rejected[0].reason
    assert service.session("twin").messages[0].content == "one"
    agreement(service)


def test_delete_removes_everywhere(writable: RecallService) -> None:
    writable.delete("t-en-errors")
    assert writable.search(SearchRequest(query="ERR_CONNECTION_REFUSED")).results == ()
    with pytest.raises(NotFound):
        writable.session("t-en-errors")
    with pytest.raises(NotFound):
        writable.delete("t-en-errors")
    with pytest.raises(NotFound):
        writable.delete("../etc")
    assert "t-en-errors" not in agreement(writable)


def test_reindex_indexes_a_session_archived_twice_once(writable: RecallService) -> None:
    """A crash between writing a moved session and removing its old file leaves two copies;
    the reindex must still index one set of documents for it."""
    original = next(writable.data.archive.rglob("t-en-errors.json"))
    copy = writable.data.archive / "1999-01" / original.name
    copy.parent.mkdir()
    copy.write_bytes(original.read_bytes())
    writable.maintenance.reindex()
    copy.unlink()  # agreement() reads the archive: leave the copy the state adopted
    state = State(writable.data.state_db)
    adopted = writable.data.archive / state.session("t-en-errors").archive_path
    state.close()
    if adopted == copy:
        original.rename(copy)
    agreement(writable)


def test_reindex_switches_generation_and_keeps_results(writable: RecallService) -> None:
    before = writable.search(SearchRequest(query="升级")).results[0].session_id
    old = writable.data.current_generation()
    report = writable.maintenance.reindex()
    assert report.indexed == 7
    assert writable.data.current_generation() != old
    assert writable.search(SearchRequest(query="升级")).results[0].session_id == before
    agreement(writable)
    writable.maintenance.reindex()
    generations = [p.name for p in writable.data.index_root.iterdir() if p.is_dir()]
    assert len(generations) == 2  # the live one and the one before it


def test_writers_go_on_while_a_reindex_builds_and_it_takes_in_what_they_did(
        writable: RecallService) -> None:
    """A reindex holds the writer lock only to start and to finish: meanwhile another writer
    appends to a live session, ingests a session and deletes one (with lock_wait 2 s, each
    would fail with WriterBusy if the lock were held), and the new generation has all three."""
    other = make_service(writable.data.root)
    live = other.live.start({"sessionId": "live-during"}).session_id
    new_session = {"sessionId": "t-during", "date": "2026-04-02", "messages": [
        {"role": "user", "content": "the ferry to Naoshima leaves at 9:12"}]}
    wrote: list[str] = []

    class DuringTheBuild:  # the reindex's progress bar: the other writer works on its first step
        def update(self, n: int = 1) -> None:
            if not wrote:
                other.live.append(live, {"role": "user", "content": "the lighthouse opens at ten"})
                other.ingest_record(new_session)
                other.delete("t-en-errors")
                wrote.append("done")

        def close(self) -> None:
            pass

    ingestor = writable.ingestor()
    ingestor.progress = lambda total, desc, unit="file": DuringTheBuild()
    old = writable.data.current_generation()
    ingestor.reindex()
    assert wrote and writable.data.current_generation() != old
    fresh = make_service(writable.data.root)  # reads the new generation
    hits = fresh.search(SearchRequest(query="lighthouse opens", mode="keyword")).results
    assert any(h.session_id == live for h in hits)
    assert fresh.search(SearchRequest(query="Naoshima ferry")).results[0].session_id == "t-during"
    with pytest.raises(NotFound):
        fresh.session("t-en-errors")
    assert MemoryStore(fresh.data).load("t-en-errors") is None  # the build had written them back
    assert "t-en-errors" not in agreement(fresh)
    assert fresh.maintenance.check().ok


def test_other_embedder_must_reindex(writable: RecallService) -> None:
    other = RecallService(Settings(home=writable.data.root, embedder="hash-128"), embedder=HashEmbedder(128))
    with pytest.raises(IndexMismatch, match="recall reindex"):
        other.search(SearchRequest(query="升级", mode="vector"))
    with pytest.raises(IndexMismatch, match="recall reindex"):
        other.index([SESSIONS])
    assert other.search(SearchRequest(query="升级", mode="keyword")).results  # keywords still serve
    other.maintenance.reindex()
    assert other.search(SearchRequest(query="升级", mode="hybrid")).results[0].session_id == "t-zh-upgrade"


def test_second_writer_fails_clearly(writable: RecallService) -> None:
    with WriterLock(writable.data.lock_file), \
            pytest.raises(WriterBusy, match="another recall writer"):
        writable.index([SESSIONS])


def test_interrupted_batch_is_finished_by_next_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    service = make_service(tmp_path / "home")
    from indexer.stores.vector import VectorIndex

    def crash(self, rows):  # Tantivy has committed, LanceDB never gets the batch
        raise KeyboardInterrupt

    monkeypatch.setattr(VectorIndex, "add_rows", crash)
    with pytest.raises(KeyboardInterrupt):
        service.index([SESSIONS])
    monkeypatch.undo()
    state = State(service.data.state_db)
    assert {r.status for r in state.sessions()} == {"pending"}
    state.close()
    service.index([SESSIONS])
    assert len(agreement(service)) == 6


def test_atomic_write_many_replaces_files_and_leaves_no_temporary_ones(tmp_path: Path) -> None:
    old = tmp_path / "a" / "x.json"
    old.parent.mkdir()
    old.write_bytes(b"old")
    files = [(old, b"new"), (tmp_path / "b" / "y.json", b"y"), (tmp_path / "a" / "z.json", b"z")]
    atomic_write_many(files)
    assert [path.read_bytes() for path, _ in files] == [b"new", b"y", b"z"]
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "x.json", "y.json", "z.json"]
    atomic_write_many([(old, b"1"), (old, b"2")])  # the same file twice: the last one wins
    assert old.read_bytes() == b"2"
    atomic_write_many([])


def test_atomic_write_many_flushes_each_file_before_its_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The crash-safety order: contents on disk, then the new names, then the folders."""
    events: list[tuple[str, Path]] = []
    real_fsync, real_replace = layout._fsync, os.replace
    monkeypatch.setattr(layout, "_fsync", lambda p: (events.append(("fsync", p)), real_fsync(p)))
    monkeypatch.setattr(layout.os, "replace",
                        lambda a, b: (events.append(("replace", Path(a))), real_replace(a, b)))
    targets = [tmp_path / f"m{i}" / "s.json" for i in range(5)]
    atomic_write_many([(t, b"x") for t in targets])
    kinds = [kind for kind, _ in events]
    assert kinds == ["fsync"] * 5 + ["replace"] * 5 + ["fsync"] * 5
    assert {p for _, p in events[:5]} == {p for _, p in events[5:10]}  # the staged files
    assert {p for _, p in events[10:]} == {t.parent for t in targets}


def _write_sessions(folder: Path, count: int) -> None:
    for i in range(count):
        record = {"sessionId": f"s{i:04d}", "date": f"2026-0{1 + i % 9}-1{i % 10}",
                  "messages": [{"role": "user" if j % 2 == 0 else "assistant",
                                "content": f"message {j} of session {i} about topic{i % 17} 会话{i}"}
                               for j in range(8)]}
        (folder / f"s{i:04d}.json").write_text(json.dumps(record, ensure_ascii=False))


@pytest.mark.parametrize("seed", range(3))
def test_kill_9_during_index_then_rerun_is_consistent(tmp_path: Path, seed: int) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    _write_sessions(folder, 300)
    home = tmp_path / "home"
    env = {**os.environ, "RECALL_HOME": str(home), "RECALL_EMBEDDER": "hash", "RECALL_BATCH_SESSIONS": "8"}
    proc = subprocess.Popen([sys.executable, "-m", "api.cli", "index", str(folder)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(random.Random(seed).uniform(1.0, 3.0))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    service = make_service(home)
    report = service.index([folder])
    assert report.indexed + report.unchanged == 300
    assert len(agreement(service)) == 300


def test_index_rebuilds_an_index_an_older_version_wrote(tmp_path: Path) -> None:
    service = make_service(tmp_path / "home")
    service.index([SESSIONS])
    old = service.data.current_generation()
    meta_path = service.data.generation(old) / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps(meta | {"schema": 2}))  # another vector layout
    fresh = make_service(tmp_path / "home")
    with pytest.raises(IndexMismatch, match="reindex"):  # a reader says what to do
        fresh.search(SearchRequest(query="升级"))
    report = fresh.index([SESSIONS])  # a writer rebuilds from the archive, then goes on
    assert report.unchanged == report.files and not report.rejected
    assert fresh.data.current_generation() != old
    assert fresh.search(SearchRequest(query="升级")).results


def _legacy_schema() -> tantivy.Schema:
    """The Tantivy schema of schemas 3 and 4: no key and session numbers."""
    sb = tantivy.SchemaBuilder()
    for name in ("key", "session_id", "message_id", "role", "channel", "participant"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_integer_field("day", stored=True, indexed=True, fast=True)
    sb.add_text_field("body", tokenizer_name="whitespace", index_option="position")
    for name in ("parts", "chars", "names"):
        sb.add_text_field(name, tokenizer_name="whitespace", index_option="freq")
    sb.add_bytes_field("stored", stored=True, indexed=False)
    return sb.build()


@pytest.mark.parametrize("schema", [3, 4])
def test_index_copies_an_index_of_an_older_layout_without_embedding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, schema: int) -> None:
    """Schema 3 kept memory documents in the messages' Tantivy index, and schemas 3 and 4 had no
    number columns: an upgrade copies the documents into the new layout and reuses every
    vector."""
    from indexer.stores.generation import COPYABLE_SCHEMAS
    from indexer.stores.keyword import keyword_fields

    service = make_service(tmp_path / "home")
    service.index([SESSIONS])
    gen = service.searcher.generation()
    docs = list(gen.keyword.documents())
    memories = [doc for doc in docs if doc.role.startswith("memory:")]
    keys = sorted(doc.key for doc in docs)
    rows = gen.vectors.count()
    assert memories and schema in COPYABLE_SCHEMAS
    gen.close()
    # lay the generation out as that schema did
    path = service.data.generation(service.data.current_generation())
    shards = {"keyword": docs} if schema == 3 else {
        "keyword": [d for d in docs if d not in memories], "keyword-memories": memories}
    for name, held in [("keyword", []), ("keyword-memories", []), *shards.items()]:
        shutil.rmtree(path / name, ignore_errors=True)
        (path / name).mkdir()
        legacy = tantivy.Index(_legacy_schema(), path=str(path / name))
        writer = legacy.writer(15_000_000, 1)
        for doc in held:
            fields = dict(keyword_fields(doc)[1])
            del fields["key_no"], fields["session_no"]
            writer.add_document(tantivy.Document(**fields))
        writer.commit()
        writer.wait_merging_threads()
    meta = json.loads((path / "meta.json").read_text())
    (path / "meta.json").write_text(json.dumps(meta | {"schema": schema}))

    fresh = make_service(tmp_path / "home")
    with pytest.raises(IndexMismatch, match="recall index"):
        fresh.search(SearchRequest(query="升级"))
    embedded: list[int] = []
    original = HashEmbedder.embed_passages
    monkeypatch.setattr(HashEmbedder, "embed_passages",
                        lambda self, texts: embedded.append(len(texts)) or original(self, texts))
    report = fresh.index([SESSIONS])
    assert report.unchanged == report.files and embedded == []
    gen = fresh.searcher.generation()
    assert sorted(doc.key for doc in gen.keyword.documents()) == keys
    assert gen.vectors.count() == rows
    assert gen.keyword.memories.index.searcher().num_docs == len(memories)
    messages = fresh.search(SearchRequest(query="升级", mode="keyword")).results
    assert messages and all(m.memory_type is None for r in messages for m in r.messages)
    found = fresh.search(SearchRequest(query=memories[0].text[:40], mode="keyword",
                                       filters=SearchFilters(scope="memories"))).results
    assert found and all(m.memory_type for r in found for m in r.messages)


def test_progress_counts_what_it_walks(writable: RecallService, monkeypatch: pytest.MonkeyPatch,
                                       caplog: pytest.LogCaptureFixture) -> None:
    """A reindex walks sessions, a purge documents and vectors: the progress says so."""
    from indexer.ingest import progress

    made: list[tuple[str, str]] = []

    def recording(total: int, desc: str, unit: str = "file") -> progress.Progress:
        made.append((desc, unit))
        return progress.silent_progress(total, desc, unit)

    writable.progress = recording
    writable.maintenance.reindex()
    writable.maintenance.purge()
    assert ("reindexing", "session") in made
    assert {"document", "vector"} <= {unit for _, unit in made}
    caplog.set_level("INFO", logger="recall.progress")
    lines = progress.make_progress(3, "reindexing", "session")
    monkeypatch.setattr(lines, "every", 0.0, raising=False)
    lines.update()
    assert "reindexing: 1/3 sessions" in caplog.text


def _export(session_id: str, last_day: str, words: str) -> str:
    """One account's export: the same conversation, its last message on `last_day`."""
    return json.dumps({"sessionId": session_id, "date": "2026-01-05", "messages": [
        {"role": "user", "content": "plan the Lisbon trip", "time": "2026-01-05T09:00:00Z"},
        {"role": "assistant", "content": words, "time": f"{last_day}T09:00:00Z"}]})


def test_an_older_export_read_later_does_not_replace_the_newer_copy(tmp_path: Path) -> None:
    newer, older = tmp_path / "export-march", tmp_path / "export-january"
    newer.mkdir()
    older.mkdir()
    (newer / "conversations.json").write_text(_export("trip", "2026-03-02", "we booked Porto too"))
    (older / "conversations.json").write_text(_export("trip", "2026-01-06", "Lisbon only"))
    service = make_service(tmp_path / "home")
    assert service.index([newer]).indexed == 1
    report = service.index([older])  # another file, read later, with an older copy
    assert report.indexed == 0 and report.older_copies == 1 and not report.rejected
    assert service.session("trip").messages[-1].content == "we booked Porto too"


@pytest.mark.parametrize("order", [["a-older", "b-newer"], ["a-newer", "b-older"]])
def test_of_two_copies_in_one_run_the_newer_one_is_kept(tmp_path: Path, order: list[str]) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in order:
        words = "we booked Porto too" if name.endswith("newer") else "Lisbon only"
        day = "2026-03-02" if name.endswith("newer") else "2026-01-06"
        (folder / f"{name}.json").write_text(_export("trip", day, words))
    service = make_service(tmp_path / "home")
    report = service.index([folder])
    assert not report.rejected
    assert service.session("trip").messages[-1].content == "we booked Porto too"
    agreement(service)


def test_a_file_read_before_and_trimmed_since_replaces_its_session(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "s.json").write_text(_export("trip", "2026-03-02", "we booked Porto too"))
    service = make_service(tmp_path / "home")
    service.index([folder])
    (folder / "s.json").write_text(_export("trip", "2026-01-06", "Lisbon only"))  # edited
    assert service.index([folder]).indexed == 1
    assert service.session("trip").messages[-1].content == "Lisbon only"
