"""Supersession links against the hand labels of eval/supersession: link precision and recall.

    python benchmarks/supersession.py [--split tune|test|all] [--embedder e5] [--show N] [--json]

Reads the sessions of examples/, eval/sessions and eval/supersession/sessions, extracts their
memories as an import does, embeds them with the embedder, links them
(indexer/memories/supersession.py) and scores the links as eval/supersession/README.md says:
a link matches a labeled pair through the memories' source messages; a match with a
`supersedes` line is right; one with a `not_linked` or `same` line, a link across two chains,
or a chain linked backwards is wrong; a link that skips a statement of its chain, or that no
line names, is not scored. Only the tune half may be looked at while changing the linker.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexer.embedding.embedders import load_embedder
from indexer.memories.extract import extract_memories
from indexer.memories.supersession import link_memories
from models import Memory, Session, parse_session

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--split", choices=("tune", "test", "all"), default="tune")
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--model-cache", type=Path, default=None)
    parser.add_argument("--show", type=int, default=0, help="print N missed and wrong pairs")
    parser.add_argument("--min-confidence", type=float, default=0.0,
                        help="score only the links at least this sure")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    embedder = load_embedder(args.embedder, args.model_cache)
    sessions = load_sessions(args.root)
    memories, position = memories_of(sessions, embedder)
    vectors = embedder.embed_passages([m.text for m in memories])
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    links = [link for link in link_memories(memories, vectors, position)
             if link.confidence >= args.min_confidence]
    labels = [json.loads(line) for line in
              (args.root / "eval" / "supersession" / "links.jsonl").read_text().splitlines()]
    result = score(links, {m.id: m for m in memories}, labels, args.split)
    result.update(memories=len(memories), links=len(links), embedder=embedder.name,
                  kinds=dict(Counter(m.kind for m in memories)))
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
        return 0
    print(f"{args.split}: precision {result['precision']}  recall {result['recall']}  "
          f"({result['true_positives']} of {result['supersedes_lines']} supersedes lines, "
          f"{result['false_positives']} wrong; {len(links)} links among {len(memories)} memories, "
          f"{embedder.name})")
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
