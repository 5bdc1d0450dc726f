"""Retrieval quality on the LoCoMo and bilingual benchmarks, through recall's own search code.

    python benchmarks/retrieval.py --bench ../shared/bench --home /tmp/recall-bench [--embedder minilm]

Indexes each benchmark's sessions into its own data dir under --home (skipped when already
indexed), then runs every answerable query in keyword, vector and hybrid mode and prints
session R@1/R@5/R@10, MRR and message R@10, plus the median in-process query latency.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api import RecallService, Settings  # noqa: E402
from models import SearchFilters, SearchRequest  # noqa: E402

MODES = ("keyword", "vector", "hybrid")


def load_queries(bench: Path, name: str) -> list[dict]:
    queries = []
    for line in (bench / name / "queries.jsonl").read_text().splitlines():
        q = json.loads(line)
        if name == "locomo":
            if q.get("unanswerable") or not q.get("evidence_sessions"):
                continue
            queries.append({"qid": q["qid"], "query": q["question"], "sessions": q["evidence_sessions"],
                            "messages": q["evidence_turns"], "group": q["category_name"],
                            "conversation": q["conversation"]})
        else:
            queries.append({"qid": q["qid"], "query": q["query"], "sessions": q["relevant_sessions"],
                            "messages": q["relevant_messages"], "group": f"{q['kind']}/{q['lang']}"})
    return queries


def recall_at(ranked: list[str], gold: list[str], k: int) -> float:
    return len(set(ranked[:k]) & set(gold)) / len(set(gold)) if gold else 0.0


def mrr(ranked: list[str], gold: list[str]) -> float:
    for rank, item in enumerate(ranked, start=1):
        if item in gold:
            return 1 / rank
    return 0.0


def evaluate(service: RecallService, queries: list[dict], mode: str,
             filters_for=lambda q: SearchFilters()) -> tuple[dict, list[float]]:
    scores: dict[str, list[dict]] = defaultdict(list)
    latencies = []
    for q in queries:
        request = SearchRequest(query=q["query"], mode=mode, filters=filters_for(q), limit=10,
                                messages_per_session=10)
        started = time.perf_counter()
        response = service.search(request)
        latencies.append((time.perf_counter() - started) * 1000)
        sessions = [r.session_id for r in response.results]
        messages = [m.id for r in response.results for m in r.messages if m.id]
        row = {"R@1": recall_at(sessions, q["sessions"], 1), "R@5": recall_at(sessions, q["sessions"], 5),
               "R@10": recall_at(sessions, q["sessions"], 10), "MRR": mrr(sessions, q["sessions"]),
               "msgR@10": recall_at(messages, q["messages"], 10)}
        scores["all"].append(row)
        scores[q["group"]].append(row)
    table = {g: {m: statistics.mean(r[m] for r in rows) for m in rows[0]} | {"n": len(rows)}
             for g, rows in scores.items()}
    return table, latencies


def print_table(title: str, table: dict) -> None:
    print(f"\n{title}")
    print(f"{'group':<24}{'n':>5}{'R@1':>8}{'R@5':>8}{'R@10':>8}{'MRR':>8}{'msgR@10':>9}")
    for group in ["all"] + sorted(g for g in table if g != "all"):
        r = table[group]
        print(f"{group:<24}{r['n']:>5}{r['R@1']:>8.3f}{r['R@5']:>8.3f}{r['R@10']:>8.3f}"
              f"{r['MRR']:>8.3f}{r['msgR@10']:>9.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True, help="path to shared/bench")
    parser.add_argument("--home", type=Path, required=True, help="where to build the bench indexes")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--sets", default="locomo,bilingual")
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args()
    for name in args.sets.split(","):
        settings = Settings.from_env(home=str(args.home / f"{name}-{args.embedder.replace('/', '_')}"),
                                     embedder=args.embedder)
        service = RecallService(settings)
        report = service.index([args.bench / name / "sessions"])
        print(f"[{name}] indexed {report.indexed} sessions ({report.messages} messages), "
              f"{report.unchanged} unchanged, in {report.seconds:.1f}s with {service.embedder.name}")
        queries = load_queries(args.bench, name)
        speakers = {}
        if name == "locomo":
            manifest = json.loads((args.bench / name / "manifest.json").read_text())
            speakers = {c: v["speakers"] for c, v in manifest["per_conversation"].items()}
        for mode in args.modes.split(","):
            table, latencies = evaluate(service, queries, mode)
            print_table(f"{name} pooled, {mode} (median latency {statistics.median(latencies):.1f} ms)", table)
            if name == "locomo":
                table, _ = evaluate(service, queries, mode, lambda q: SearchFilters(
                    participant=speakers[q["conversation"]][0]))
                print_table(f"{name} per conversation, {mode}", table)


if __name__ == "__main__":
    main()
