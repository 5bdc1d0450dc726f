"""Retrieval on the project's own held-out evaluation set (eval/): both halves, every kind.

    python benchmarks/eval_set.py --home /tmp/recall-eval [--embedder e5] [--rankers learned,strict,fused]
                                  [--without-dictionary] [--json out.json]

Indexes examples/sessions and eval/sessions into --home (skipped when already indexed), runs
every question of eval/queries.jsonl through recall's hybrid search (`RecallService.search`,
as with RECALL_RANKER set to each ranking), and prints for the tune and test halves (by kind
and language too): session R@1/R@5, MRR, message R@10, precision@5 (the share of the top five
sessions that are relevant, over answerable questions) and no-answer accuracy (questions of
kind no_answer answered with nothing). Only the tune half may guide a change; the test half
says whether it held. --without-dictionary runs each ranking again without the dictionary's
translated ranking (search/translation.py), in the same process: an ablation no setting
offers, so it goes through a variant of the service's searcher (`Searcher.variant`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api import RecallService, Settings
from models import SearchRequest, SearchResponse

METRICS = ("R@1", "R@5", "MRR", "msgR@10", "P@5")


def score(question: dict, sessions: list[str], messages: list[str]) -> dict[str, float]:
    gold, gold_messages = set(question["relevant_sessions"]), set(question["relevant_messages"])
    first = next((rank for rank, s in enumerate(sessions, start=1) if s in gold), None)
    return {"R@1": len(set(sessions[:1]) & gold) / len(gold),
            "R@5": len(set(sessions[:5]) & gold) / len(gold),
            "MRR": 1 / first if first else 0.0,
            "msgR@10": len(set(messages[:10]) & gold_messages) / len(gold_messages) if gold_messages else 0.0,
            "P@5": len([s for s in sessions[:5] if s in gold]) / min(5, max(1, len(sessions)))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--model-cache", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--rankers", default="learned,strict,fused",
                        help="RECALL_RANKER modes to compare in this process")
    parser.add_argument("--without-dictionary", action="store_true",
                        help="also run each ranking without the dictionary's ranking")
    args = parser.parse_args()
    service = RecallService(Settings(home=args.home, embedder=args.embedder,
                                     model_cache=args.model_cache or args.home / "models"))
    if not service.data.current_generation():
        report = service.index([ROOT / "examples" / "sessions", ROOT / "eval" / "sessions"])
        print(f"indexed {report.indexed} sessions ({report.messages} messages)", file=sys.stderr)
    questions = [json.loads(line) for line in (ROOT / "eval" / "queries.jsonl").read_text().splitlines()]
    tables = {}
    for mode in args.rankers.split(","):
        for translates in (True, False) if args.without_dictionary else (True,):
            # as RECALL_RANKER=mode answers (the service's own search); without the dictionary's
            # ranking, an ablation no setting offers, through a variant of its searcher
            ranked = RecallService(dataclasses.replace(service.settings, ranker=mode),
                                   embedder=service.embedder)
            search = (ranked.search if translates
                      else ranked.searcher.variant(ranked.searcher.ranker, translates=False).search)
            name = mode if translates else f"{mode}, no dictionary"
            tables[name] = evaluate(search, questions)
            print(f"\nranking: {name}")
            print_table(tables[name])
    if args.json:
        args.json.write_text(json.dumps({"embedder": args.embedder, "rankers": tables}, indent=1) + "\n")
    return 0


def evaluate(search: Callable[[SearchRequest], SearchResponse],
             questions: list[dict]) -> dict[str, dict]:
    rows: dict[str, list[dict[str, float]]] = defaultdict(list)
    no_answer: dict[str, list[bool]] = defaultdict(list)
    for q in questions:
        response = search(SearchRequest(query=q["query"], limit=10, messages_per_session=10))
        sessions = [r.session_id for r in response.results]
        messages = [m.id for r in response.results for m in r.messages if m.id]
        groups = [q["split"], f"{q['split']} / {q['kind']}", f"{q['split']} / {q['lang']}"]
        if q["kind"] == "no_answer":
            for group in groups:
                no_answer[group].append(not sessions)
            continue
        for group in groups:
            rows[group].append(score(q, sessions, messages))
    table = {group: {m: round(statistics.mean(r[m] for r in found), 3) for m in METRICS} | {"n": len(found)}
             for group, found in rows.items()}
    for group, answered in no_answer.items():
        table.setdefault(group, {"n": 0})["no-answer acc"] = round(statistics.mean(answered), 3)
        table[group]["no-answer n"] = len(answered)
    return table


def print_table(table: dict[str, dict]) -> None:
    print(f"{'group':<30}{'n':>4}" + "".join(f"{m:>9}" for m in METRICS) + f"{'no-ans':>9}")
    for group in sorted(table, key=lambda g: (g.split(" / ")[0], " / " in g, g)):
        r = table[group]
        cells = "".join(f"{r[m]:>9.3f}" if m in r else f"{'':>9}" for m in METRICS)
        extra = f"{r['no-answer acc']:>9.3f}" if "no-answer acc" in r else ""
        print(f"{group:<30}{r['n']:>4}{cells}{extra}")


if __name__ == "__main__":
    raise SystemExit(main())
