"""Supersession links against the hand labels of eval/supersession: link precision and recall.

    python benchmarks/supersession.py [--split tune|test|all] [--embedder e5] [--show N] [--json]
    python benchmarks/supersession.py --queries /tmp/recall-ss [--split ...]

Reads the sessions of examples/, eval/sessions and eval/supersession/sessions, extracts their
memories as an import does, embeds them with the embedder, links them
(indexer/memories/supersession.py) and scores the links as eval/supersession/README.md says:
a link matches a labeled pair through the memories' source messages; a match with a
`supersedes` line is right; one with a `not_linked` or `same` line, a link across two chains,
or a chain linked backwards is wrong; a link that skips a statement of its chain, or that no
line names, is not scored. Only the tune half may be looked at while changing the linker.
By default only the links shown are scored (at least SHOWN sure); --floors scores the links at
several floors in one run. With the e5 embedder the shown links score precision 0.88 / recall
0.37 on the tune half (15 of 41 lines, 2 wrong) and 0.64 / 0.33 on the test half (9 of 27, 5
wrong).

With --queries HOME it indexes the three folders into HOME instead (once) and asks the set's
latest and history questions through recall's search: R@1 (the top session holds the answer)
and, for latest questions, how often the session with the current value ranks above every
session holding a superseded one; with near-top sessions ordered by date for such questions
(the ranker as shipped) and without, in one process. "dated + links" is recall's own answer
(`RecallService.search`); the two others are ablations through `Searcher.variant`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api import RecallService, Settings
from indexer.embedding.embedders import load_embedder
from indexer.memories.extract import extract_memories
from indexer.memories.linking import link_memories
from indexer.memories.supersession import SHOWN
from models import Memory, SearchRequest, SearchResponse, Session, parse_session

FOLDERS = ("examples/sessions", "eval/sessions", "eval/supersession/sessions")


def load_sessions(root: Path) -> list[Session]:
    return [parse_session(json.loads(p.read_text("utf-8")))
            for folder in FOLDERS for p in sorted((root / folder).glob("*/*.json"))]


def memories_of(sessions: list[Session], embedder: Any) -> tuple[list[Memory], dict[str, int]]:
    memories, position = [], {}
    for session in sessions:
        index = {m.id: n for n, m in enumerate(session.messages)}
        for memory in extract_memories(session, embedder=embedder):
            memories.append(memory)
            sources = [index[s] for s in memory.source_message_ids if s in index]
            position[memory.id] = min(sources) if sources else -1
    return memories, position


def score(links: list[Any], memories: dict[str, Memory], labels: list[dict[str, Any]],
          split: str) -> dict[str, Any]:
    wanted = [line for line in labels if split in ("all", line["split"])]
    chain_of: dict[str, set[str]] = {}
    for line in labels:
        if line["kind"] == "supersedes" and line.get("chain"):
            for message in [line["later"], line["earlier"], *line.get("later_also", []),
                            *line.get("earlier_also", [])]:
                chain_of.setdefault(message, set()).add(line["chain"])
    found: set[str] = set()
    wrong: list[tuple[str, str, str]] = []
    for link in links:
        later, earlier = memories[link.later], memories[link.earlier]
        a, b = set(later.source_message_ids), set(earlier.source_message_ids)
        verdict = _judge(a, b, wanted, chain_of)
        if verdict is None:
            continue
        kind, line_id = verdict
        if kind == "tp":
            found.add(line_id)
        else:
            wrong.append((line_id, later.text, earlier.text))
    positives = [line for line in wanted if line["kind"] == "supersedes"]
    tp = len(found)
    return {"split": split, "supersedes_lines": len(positives), "true_positives": tp,
            "false_positives": len(wrong),
            "precision": round(tp / (tp + len(wrong)), 3) if tp + len(wrong) else None,
            "recall": round(tp / len(positives), 3) if positives else None,
            "missed": [line["id"] for line in positives if line["id"] not in found],
            "wrong": wrong}


def _judge(later: set[str], earlier: set[str], lines: list[dict[str, Any]],
           chain_of: dict[str, set[str]]) -> tuple[str, str] | None:
    for line in lines:
        new = {line["later"], *line.get("later_also", [])}
        old = {line["earlier"], *line.get("earlier_also", [])}
        if line["kind"] == "supersedes":
            if later & new and earlier & old:
                return "tp", line["id"]
            if later & old and earlier & new:
                return "fp", line["id"] + " (backwards)"
        elif ({line["later"]} & later and {line["earlier"]} & earlier) or \
                ({line["later"]} & earlier and {line["earlier"]} & later):
            return "fp", f"{line['id']} ({line['kind']})"
    chains_a = set().union(*(chain_of.get(m, set()) for m in later))
    chains_b = set().union(*(chain_of.get(m, set()) for m in earlier))
    if chains_a and chains_b and not chains_a & chains_b:
        return "fp", "across two chains"
    return None  # a skip within a chain, or messages no line names


def ask(home: Path, root: Path, embedder: str, model_cache: Path | None,
        split: str) -> dict[str, dict[str, dict[str, float | None]]]:
    """R@1 and current-above-superseded of the set's questions, by half and kind, with the
    ranker as it is ("dated") and without ordering near-top sessions by date ("undated"), in
    one process."""
    service = RecallService(Settings(home=home, embedder=embedder,
                                     model_cache=model_cache or home / "models"))
    if not service.data.current_generation():
        report = service.index([root / folder for folder in FOLDERS])
        print(f"indexed {report.indexed} sessions ({report.messages} messages)", file=sys.stderr)
    questions = [json.loads(line) for line in
                 (root / "eval" / "supersession" / "queries.jsonl").read_text().splitlines()]
    questions = [q for q in questions if split in ("all", q["split"])]
    dated = service.searcher.ranker
    if dated is None:
        raise SystemExit(f"no learned ranker for the {embedder} embedder: nothing to compare")
    undated = replace(dated, latest_near_top=1.0, history_near_top=1.0)
    # the first two are ablations no setting offers (another ranker, no supersession links),
    # through variants of the service's searcher; the last is recall's own answer
    return {"undated": _ask(service.searcher.variant(undated, marks_current=False).search,
                            questions),
            "dated": _ask(service.searcher.variant(dated, marks_current=False).search, questions),
            "dated + links": _ask(service.search, questions)}


def _ask(run: Callable[[SearchRequest], SearchResponse],
         questions: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """R@1 and current-above-superseded of `questions` asked through `run`."""
    rows: dict[str, list[tuple[float, float | None]]] = {}
    for q in questions:
        ranked = [r.session_id for r in run(SearchRequest(query=q["query"])).results]
        top = float(bool(ranked[:1]) and ranked[0] in q["relevant_sessions"])
        above = None
        if q["kind"] == "latest" and q.get("superseded_sessions"):
            first = next((n for n, s in enumerate(ranked) if s in q["relevant_sessions"]), None)
            stale = [n for n, s in enumerate(ranked) if s in q["superseded_sessions"]]
            above = float(first is not None and all(first < n for n in stale))
        rows.setdefault(f"{q['split']} / {q['kind']}", []).append((top, above))
    table: dict[str, dict[str, float | None]] = {}
    for group, found in sorted(rows.items()):
        aboves = [a for _, a in found if a is not None]
        table[group] = {"n": len(found), "R@1": round(sum(t for t, _ in found) / len(found), 3),
                        "current above superseded": round(sum(aboves) / len(aboves), 3)
                        if aboves else None}
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--split", choices=("tune", "test", "all"), default="tune")
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--model-cache", type=Path, default=None)
    parser.add_argument("--show", type=int, default=0, help="print N missed and wrong pairs")
    parser.add_argument("--min-confidence", type=float, default=SHOWN,
                        help=f"score only the links at least this sure (default {SHOWN}: the "
                             "ones shown; 0: every link, the history's too)")
    parser.add_argument("--floors", type=lambda s: [float(x) for x in s.split(",")],
                        help="also score the links at each of these floors, e.g. 0,0.7,0.85,0.9")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--queries", type=Path, metavar="HOME",
                        help="ask the set's questions through search, indexed into HOME")
    args = parser.parse_args()
    if args.queries:
        tables = ask(args.queries, args.root, args.embedder, args.model_cache, args.split)
        if args.json:
            print(json.dumps(tables, indent=1))
            return 0
        for name, table in tables.items():
            for group, row in table.items():
                print(f"{name:<8} {group:<16} n={row['n']:<3} R@1 {row['R@1']:.3f}  "
                      f"current above superseded {row['current above superseded']}")
        return 0
    embedder = load_embedder(args.embedder, args.model_cache)
    sessions = load_sessions(args.root)
    memories, position = memories_of(sessions, embedder)
    vectors = embedder.embed_passages([m.text for m in memories])
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    every = link_memories(memories, vectors, position)
    links = [link for link in every if link.confidence >= args.min_confidence]
    labels = [json.loads(line) for line in
              (args.root / "eval" / "supersession" / "links.jsonl").read_text().splitlines()]
    result = score(links, {m.id: m for m in memories}, labels, args.split)
    result["floors"] = {floor: {k: v for k, v in score(
        [x for x in every if x.confidence >= floor], {m.id: m for m in memories}, labels,
        args.split).items() if k in ("precision", "recall", "true_positives", "false_positives")}
        for floor in args.floors or ()}
    result.update(memories=len(memories), links=len(links), all_links=len(every),
                  embedder=embedder.name,
                  kinds=dict(Counter(m.kind for m in memories)))
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return 0
    print(f"{args.split}: precision {result['precision']}  recall {result['recall']}  "
          f"({result['true_positives']} of {result['supersedes_lines']} supersedes lines, "
          f"{result['false_positives']} wrong; {len(links)} of {len(every)} links at least "
          f"{args.min_confidence} sure, among {len(memories)} memories, "
          f"{embedder.name})")
    for floor, row in result["floors"].items():
        print(f"  floor {floor:<5} precision {row['precision']}  recall {row['recall']}  "
              f"({row['true_positives']} found, {row['false_positives']} wrong)")
    if args.show:
        by_id = {line["id"]: line for line in labels}
        for line_id in result["missed"][:args.show]:
            line = by_id[line_id]
            print(f"  missed {line_id}: {line['subject']} ({line['change']})")
        for line_id, later, earlier in result["wrong"][:args.show]:
            print(f"  wrong {line_id}: {later[:70]!r} ⟵ {earlier[:70]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
