"""Retrieval on coding-agent transcripts (eval/agents/): recall against BM25, vectors and FTS5.

    python benchmarks/agents_eval.py --home /tmp/agents-eval [--model-cache DIR] [--json OUT]

Imports tests/data/real into --home (skipped when it already holds an index), then runs every
question of eval/agents/queries.jsonl, in one process, through:

- recall hybrid: recall's default search (keyword + e5 vectors fused, the learned ranker);
- recall keyword: recall's BM25 leg alone (`mode=keyword`);
- recall vector: recall's vector leg alone (`mode=vector`);
- FTS5 BM25: SQLite FTS5 over the same imported messages (benchmarks/baselines.py).

For the test half and the tune half (marked as such), it prints session R@1, R@5, MRR and
message R@10, overall, same-language, cross-lingual, by question language and by kind; the
share of no-answer questions answered with nothing; the median in-process latency; and the
sessions that come first most often for questions they do not answer, with their size. Only
the tune half may guide a change.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api import RecallService, Settings
from benchmarks.baselines import BenchMessage, Fts5Bm25, Ranking
from models import SearchRequest, Session
from models.hits import SearchMode

METRICS = ("R@1", "R@5", "MRR", "msgR@10")
SPLITS = ("test", "tune")
# a question text -> sessions and "<session id>/<message id>" messages, best first
System = Callable[[str], Ranking]


def recall_system(service: RecallService, mode: SearchMode) -> System:
    def search(query: str) -> Ranking:
        response = service.search(SearchRequest(query=query, mode=mode, limit=10,
                                                 messages_per_session=10))
        return Ranking([r.session_id for r in response.results],
                       [f"{r.session_id}/{m.id}" for r in response.results for m in r.messages
                        if m.id])
    return search


def fts5_system(sessions: dict[str, Session]) -> System:
    """FTS5 over every non-empty message of the imported sessions, as recall stored them."""
    messages = [BenchMessage(sid, f"{sid}/{m.id}", "||", m.content)
                for sid, session in sessions.items() for m in session.messages if m.content.strip()]
    fts5 = Fts5Bm25(messages)
    return lambda query: fts5.search(query)


def score(q: dict, found: Ranking) -> dict[str, float]:
    gold, gold_messages = set(q["relevant_sessions"]), set(q["relevant_messages"])
    first = next((rank for rank, s in enumerate(found.sessions, 1) if s in gold), None)
    return {"R@1": len(set(found.sessions[:1]) & gold) / len(gold),
            "R@5": len(set(found.sessions[:5]) & gold) / len(gold),
            "MRR": 1 / first if first else 0.0,
            "msgR@10": len(set(found.messages[:10]) & gold_messages) / len(gold_messages)}


def groups(q: dict) -> list[str]:
    return ["all", "cross-lingual" if q["cross_lingual"] else "same-language",
            f"{q['lang']} questions", f"kind: {q['kind']}"]


def evaluate(system: System, questions: list[dict]) -> dict:
    """Per split: mean metrics per group, no-answer accuracy, and the sessions ranked first for
    questions they do not answer (no-answer questions included)."""
    rows: dict[str, dict[str, list[dict[str, float]]]] = {s: defaultdict(list) for s in SPLITS}
    empty: dict[str, list[bool]] = defaultdict(list)
    wrong_first: dict[str, Counter[str]] = {s: Counter() for s in SPLITS}
    latencies = []
    for q in questions:
        started = time.perf_counter()
        found = system(q["query"])
        latencies.append((time.perf_counter() - started) * 1000)
        split = q["split"]
        if found.sessions and found.sessions[0] not in q["relevant_sessions"]:
            wrong_first[split][found.sessions[0]] += 1
        if q["kind"] == "no_answer":
            empty[split].append(not found.sessions)
            continue
        for group in groups(q):
            rows[split][group].append(score(q, found))
    return {"median_ms": round(statistics.median(latencies), 1),
            "splits": {split: {
                "groups": {g: {m: round(statistics.mean(r[m] for r in found), 3) for m in METRICS}
                           | {"n": len(found)} for g, found in rows[split].items()},
                "no_answer_empty": round(statistics.mean(empty[split]), 3) if empty[split] else None,
                "no_answer_n": len(empty[split]),
                "wrong_first": wrong_first[split].most_common()} for split in SPLITS}}


def group_order(names: list[str]) -> list[str]:
    fixed = ["all", "same-language", "cross-lingual", "zh questions", "en questions", "mixed questions"]
    return [g for g in fixed if g in names] + sorted(g for g in names if g not in fixed)


def print_split(split: str, results: dict[str, dict]) -> None:
    systems = list(results)
    label = "test half" if split == "test" else "tune half (tuning data: not a result)"
    print(f"\n### {label}\n")
    print("| group | n | " + " | ".join(f"{s} R@1 | R@5 | MRR" for s in systems) + " |")
    print("|---|---:|" + "---:|---:|---:|" * len(systems))
    tables = {s: results[s]["splits"][split]["groups"] for s in systems}
    for group in group_order(list(tables[systems[0]])):
        cells = " | ".join(f"{tables[s][group]['R@1']:.3f} | {tables[s][group]['R@5']:.3f} | "
                           f"{tables[s][group]['MRR']:.3f}" for s in systems)
        print(f"| {group} | {tables[systems[0]][group]['n']} | {cells} |")
    print("\n| system | message R@10 (all) | no-answer questions answered with nothing | median ms |")
    print("|---|---:|---:|---:|")
    for s in systems:
        r = results[s]["splits"][split]
        print(f"| {s} | {r['groups']['all']['msgR@10']:.3f} | "
              f"{r['no_answer_empty']:.3f} of {r['no_answer_n']} | {results[s]['median_ms']} |")


def print_wrong_first(split: str, system: str, results: dict[str, dict],
                      sizes: dict[str, tuple[int, int]], top: int) -> None:
    counts = results[system]["splits"][split]["wrong_first"]
    print(f"\n{system}, {split} half: sessions ranked first for questions they do not answer\n")
    print("| session | messages | characters | times first |")
    print("|---|---:|---:|---:|")
    for sid, n in counts[:top]:
        messages, chars = sizes[sid]
        print(f"| `{sid}` | {messages} | {chars:,} | {n} |")


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=False).stdout.strip()
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return git("rev-parse", "--short", "HEAD") + (" (with uncommitted changes)" if dirty else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True, help="data directory (fresh or reused)")
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "data" / "real")
    parser.add_argument("--questions", type=Path, default=ROOT / "eval" / "agents" / "queries.jsonl")
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--model-cache", type=Path)
    parser.add_argument("--top", type=int, default=10, help="rows of the wrong-first list")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    service = RecallService(Settings.from_env(home=str(args.home), embedder=args.embedder,
                                              model_cache=args.model_cache))
    if not service.data.current_generation():
        report = service.index([args.corpus])
        print(f"indexed {report.indexed} sessions ({report.messages} messages), "
              f"{len(report.rejected)} files refused", file=sys.stderr)
    listed = service.list_sessions(limit=500).sessions
    sessions = {s.session_id: service.archive.session(s.session_id) for s in listed}
    sizes = {sid: (len(s.messages), sum(len(m.content) for m in s.messages))
             for sid, s in sessions.items()}
    questions = [json.loads(line) for line in args.questions.read_text("utf-8").splitlines()]
    modes: tuple[SearchMode, ...] = ("hybrid", "keyword", "vector")
    systems: dict[str, System] = {f"recall {mode}": recall_system(service, mode) for mode in modes}
    systems["FTS5 BM25"] = fts5_system(sessions)
    results = {name: evaluate(system, questions) for name, system in systems.items()}
    print(f"commit {commit()}; {len(sessions)} sessions, "
          f"{sum(n for n, _ in sizes.values())} messages; embedder {service.embedder.name}; "
          f"ranker {service.settings.ranker}; {len(questions)} questions")
    for split in SPLITS:
        print_split(split, results)
    for split in SPLITS:
        print_wrong_first(split, "recall hybrid", results, sizes, args.top)
    if args.json:
        args.json.write_text(json.dumps({"commit": commit(), "sizes": sizes, "systems": results},
                                        indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
