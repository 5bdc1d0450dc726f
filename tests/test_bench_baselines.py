"""The retrieval benchmark's baselines and summary on the small test archive (hash embedder)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.baselines import Fts5Bm25, LanceHybrid, fts5_query, load_messages
from benchmarks.retrieval import print_summary
from indexer import HashEmbedder

from .helpers import SESSIONS


def test_fts5_query_quotes_every_word() -> None:
    assert fts5_query('ERR_CONNECTION_REFUSED after "v2.3.1"? NOT AND') == (
        '"err_connection_refused" OR "after" OR "v2" OR "3" OR "1" OR "not" OR "and"')
    assert fts5_query("?!") is None


def test_messages_use_recall_ids_and_lowercased_participants() -> None:
    messages = load_messages(SESSIONS)
    ids = {m.message_id for m in messages if m.session_id == "t-kyoto"}
    assert ids and all(i.startswith("t-kyoto") for i in ids)
    assert {m.participants for m in messages} == {"|simon|muse|", "|alex|atlas|"}


def test_fts5_ranks_sessions_by_best_message_and_filters_by_participant() -> None:
    fts = Fts5Bm25(load_messages(SESSIONS))
    found = fts.search("ERR_CONNECTION_REFUSED httpkit")
    assert found.sessions[0] == "t-en-errors"
    assert len(found.sessions) == len(set(found.sessions))
    assert fts.search("ERR_CONNECTION_REFUSED", participant="Simon").sessions == []


def test_lance_hybrid_finds_and_filters(tmp_path: Path) -> None:
    lance = LanceHybrid(load_messages(SESSIONS), HashEmbedder(), tmp_path)
    assert lance.search("maple leaves ryokan").sessions[0] == "t-kyoto"
    assert "t-kyoto" not in lance.search("maple leaves ryokan", participant="simon").sessions
    assert len(list(tmp_path.glob("vectors-*.npy"))) == 1
    LanceHybrid(load_messages(SESSIONS), HashEmbedder(), tmp_path)  # second build: cached vectors
    assert len(list(tmp_path.glob("vectors-*.npy"))) == 1


def test_summary_ratio_is_against_the_best_baseline(capsys) -> None:
    def result(r5: float, ms: float) -> dict:
        return {"groups": {"all": {"R@5": r5, "R@10": r5, "MRR": r5, "msgR@10": r5, "n": 1}},
                "median_ms": ms}
    results = {"locomo": {"pooled": {"recall hybrid": result(0.9, 50), "FTS5 BM25": result(0.6, 1),
                                     "LanceDB hybrid": result(0.75, 30)}}}
    rows = {r["row"]: r for r in print_summary(results, ["FTS5 BM25", "LanceDB hybrid"])}
    assert abs(rows["LoCoMo pooled R@5"]["ratio"] - 0.9 / 0.75) < 1e-9
    assert rows["LoCoMo pooled median ms"]["ratio"] == 50  # vs the fastest baseline
    assert "Summary" in capsys.readouterr().out
