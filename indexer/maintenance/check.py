"""Consistency check: do the archive, the state DB, both indexes and the stored memories agree?

The archive is the record of truth. For every session the check derives what the indexes
should hold (its message, summary and memory documents, and their passages) and compares it
with what they hold, key by key, so a missing, stray or duplicated document is reported with
its session. `plan_repair` turns the differences into the sessions to re-index from the
archive and the ones to drop (index entries with no archive record).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from indexer.maintenance.permissions import open_to_others
from indexer.stores.documents import memory_documents, session_documents, split_passages
from indexer.stores.facts import FactStore, is_linked
from indexer.stores.generation import Generation
from indexer.stores.layout import DataDir
from indexer.stores.memories import MemoryStore
from indexer.stores.state import State
from models import IndexDamaged, IndexUnavailable, Session
from models.files import decode_session

__all__ = ["CheckReport", "Difference", "check"]

# kinds of difference; a session-less one (embedder, generation) is about the whole index
KINDS = ("archive_unreadable", "not_in_state", "missing_archive", "half_written", "state_count",
         "missing_memories", "stray_memories", "facts", "stray_facts", "keyword_missing",
         "keyword_stray",
         "keyword_duplicate", "vector_missing", "vector_stray", "vector_duplicate",
         "stray_session", "embedder", "generation", "permissions")


@dataclass(frozen=True, slots=True)
class Difference:
    session_id: str | None
    kind: str
    detail: str


@dataclass
class CheckReport:
    sessions: int = 0  # in the archive
    keyword_documents: int = 0
    vector_passages: int = 0
    generation: str | None = None
    differences: list[Difference] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences

    def add(self, session_id: str | None, kind: str, detail: str) -> None:
        self.differences.append(Difference(session_id, kind, detail))

    def affected(self) -> set[str]:
        return {d.session_id for d in self.differences if d.session_id}


@dataclass(frozen=True, slots=True)
class _Archived:
    path: Path
    session: Session


def check(data: DataDir, embedder_name: str) -> CheckReport:
    report = CheckReport()
    opened = open_to_others(data)
    if opened:
        report.add(None, "permissions", f"other users of this machine can open the data "
                   f"directory: {len(opened)} paths are not owner-only (first: {opened[0]}); "
                   "`recall check --repair` makes them so")
    archived = _read_archive(data, report)
    report.sessions = len(archived)
    _check_state(data, archived, report)
    memories = _check_memories(data, archived, report)
    _check_facts(data, archived, memories, report)
    report.generation = data.current_generation()
    if report.generation is None:
        if archived:
            report.add(None, "generation", "no index generation; run `recall reindex`")
        return report
    try:
        gen = Generation.open(data.generation(report.generation))
    except IndexUnavailable as exc:
        report.add(None, "generation", exc.detail)
        return report
    try:
        if gen.embedder_name != embedder_name:
            report.add(None, "embedder", f"the index was built with {gen.embedder_name!r}, the "
                       f"configured embedder is {embedder_name!r}")
        keys, passages = _expected(archived, memories)
        found_keys = _keyword_keys(gen)
        found_passages = _vector_passages(gen)
        report.keyword_documents = sum(sum(c.values()) for c in found_keys.values())
        report.vector_passages = sum(sum(c.values()) for c in found_passages.values())
        _compare("keyword", keys, found_keys, set(archived), report)
        _compare("vector", passages, found_passages, set(archived), report)
    except IndexDamaged as exc:  # a file found damaged while reading it all
        report.add(None, "generation", exc.detail)
    finally:
        gen.close()
    return report


def _read_archive(data: DataDir, report: CheckReport) -> dict[str, _Archived]:
    out: dict[str, _Archived] = {}
    for path in sorted(data.archive.rglob("*.json")):
        try:
            session = decode_session(path.read_bytes())
        except (OSError, msgspec.DecodeError) as exc:
            report.add(path.stem, "archive_unreadable", f"{path}: {exc}")
            continue
        if session.session_id != path.stem:
            report.add(path.stem, "archive_unreadable",
                       f"{path} holds session {session.session_id!r}")
            continue
        if session.session_id in out:
            report.add(session.session_id, "archive_unreadable",
                       f"archived twice: {out[session.session_id].path} and {path}")
            continue
        out[session.session_id] = _Archived(path, session)
    return out


def _check_state(data: DataDir, archived: dict[str, _Archived], report: CheckReport) -> None:
    state = State(data.state_db)
    try:
        rows = {r.session_id: r for r in state.sessions()}
    finally:
        state.close()
    for sid, row in rows.items():
        if row.status != "indexed":
            report.add(sid, "half_written", f"state row is {row.status!r}")
        found = archived.get(sid)
        if found is None:
            if not (data.archive / row.archive_path).exists():
                report.add(sid, "missing_archive", f"state lists {row.archive_path}, not in the archive")
            continue
        if found.path != data.archive / row.archive_path:
            report.add(sid, "missing_archive", f"state lists {row.archive_path}, archived at "
                       f"{found.path.relative_to(data.archive)}")
        if row.message_count != len(found.session.messages):
            report.add(sid, "state_count", f"state says {row.message_count} messages, archive "
                       f"has {len(found.session.messages)}")
    for sid in archived.keys() - rows.keys():
        report.add(sid, "not_in_state", "archived but not in the state DB")


def _check_memories(data: DataDir, archived: dict[str, _Archived],
                    report: CheckReport) -> dict[str, list]:
    store = MemoryStore(data)
    out = {}
    for sid in archived:
        loaded = store.load(sid)
        if loaded is None:
            report.add(sid, "missing_memories", "no stored memories (or the file is damaged)")
        out[sid] = loaded or []
    if store.root.exists():
        for path in sorted(store.root.glob("*.json")):
            if path.stem not in archived:
                report.add(path.stem, "stray_memories", f"{path.name} has no archived session")
    return out


def _check_facts(data: DataDir, archived: dict[str, _Archived], memories: dict[str, list],
                 report: CheckReport) -> None:
    """The statements kept for linking are those of the stored memories that can be superseded
    (checked once they were filled in: a data directory from before fills them on its next
    write)."""
    with FactStore(data) as facts:
        if not facts.complete:
            return
        kept = facts.statement_ids()
    for sid in archived:
        expected = {m.id for m in memories.get(sid, []) if is_linked(m)}
        if kept.get(sid, set()) != expected:
            report.add(sid, "facts", f"{len(kept.get(sid, ()))} statements kept for linking, "
                       f"{len(expected)} in its memories")
    for sid in sorted(kept.keys() - archived.keys()):
        report.add(sid, "stray_facts", "statements kept for a session that is not archived")


def _expected(archived: dict[str, _Archived],
              memories: dict[str, list]) -> tuple[dict[str, Counter[str]], dict[str, Counter[str]]]:
    keys: dict[str, Counter[str]] = {}
    passages: dict[str, Counter[str]] = {}
    for sid, item in archived.items():
        docs = session_documents(item.session) + memory_documents(item.session, memories[sid])
        keys[sid] = Counter(d.key for d in docs)
        passages[sid] = Counter(p.passage_id for d in docs for p in split_passages(d))
    return keys, passages


def _keyword_keys(gen: Generation) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for doc in gen.keyword.documents():
        out.setdefault(doc.session_id, Counter())[doc.key] += 1
    return out


def _vector_passages(gen: Generation) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for data in gen.vectors.rows(["session_id", "passage_id"]):
        for sid, pid in zip(data["session_id"].to_pylist(), data["passage_id"].to_pylist(),
                            strict=True):
            out.setdefault(sid, Counter())[pid] += 1
    return out


def _compare(store: str, expected: dict[str, Counter[str]], found: dict[str, Counter[str]],
             archived: set[str], report: CheckReport) -> None:
    for sid in sorted(found.keys() - archived):
        report.add(sid, "stray_session",
                   f"{sum(found[sid].values())} {store} entries for a session not in the archive")
    for sid in sorted(archived):
        want, have = expected[sid], found.get(sid, Counter())
        missing = sorted(want.keys() - have.keys())
        stray = sorted(have.keys() - want.keys())
        twice = sorted(k for k, n in have.items() if n > want.get(k, 0) and k in want)
        if missing:
            report.add(sid, f"{store}_missing", f"{len(missing)} of {len(want)} {store} entries "
                       f"missing, e.g. {_show(missing)}")
        if stray:
            report.add(sid, f"{store}_stray", f"{len(stray)} {store} entries the archive does not "
                       f"have, e.g. {_show(stray)}")
        if twice:
            report.add(sid, f"{store}_duplicate", f"{len(twice)} {store} entries indexed more than "
                       f"once, e.g. {_show(twice)}")


def _show(keys: Iterable[str]) -> str:
    return ", ".join(repr(k.replace("\x1f", "/")) for k in list(keys)[:3])
