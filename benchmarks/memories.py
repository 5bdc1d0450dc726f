"""Memory extraction quality on the bilingual and LoCoMo benchmarks.

    python benchmarks/memories.py --bench ../shared/bench [--embedder e5|minilm|hash] [--threshold 0.93]
        [--locomo-threshold 0.87] [--dedupe-threshold 0.95 | --jaccard-dedupe] [--show]

bilingual/memories.jsonl: each session is read like `recall index` reads it (redacted, then
parsed), its memories are extracted (near-duplicates removed with the same embedder), and an
expected memory counts as recalled when an extracted memory of the same type has a passage
cosine >= --threshold with it. "Unmatched" extracted memories match no expected memory of their
type in their session: not necessarily wrong (the expected list is not exhaustive), but the
price paid for recall. "Chance" is the share of expected memories that would be "recalled" by
the memories of the *other* sessions: what the threshold lets through by accident.

locomo/observations.jsonl: the share of observation facts that some memory of their session
(any type) covers at the same threshold, split by the role the fact's speaker has there.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from indexer import load_embedder
from indexer.formats.sources import normalize
from indexer.memories.extract import extract_memories
from models import Session
from models.memory import MEMORY_TYPES, Memory


def load_session(folder: Path, session_id: str) -> Session:
    path = next(folder.glob(f"*/{session_id}.json"))
    session, _, _ = normalize(json.loads(path.read_text()), path.stem)
    return session


def bilingual(
    bench: Path, embedder, threshold: float, dedupe: float, show: bool, dedupe_embedder
) -> None:
    expected: dict[str, list[dict]] = defaultdict(list)
    for line in (bench / "bilingual" / "memories.jsonl").read_text().splitlines():
        row = json.loads(line)
        expected[row["sessionId"]].append(row)
    extracted: dict[str, list[Memory]] = {}
    started = time.perf_counter()
    for session_id in expected:
        session = load_session(bench / "bilingual" / "sessions", session_id)
        extracted[session_id] = extract_memories(
            session, embedder=dedupe_embedder, dedupe_threshold=dedupe
        )
    seconds = time.perf_counter() - started

    gold = [(sid, row) for sid, rows in expected.items() for row in rows]
    ours = [(sid, m) for sid, ms in extracted.items() for m in ms]
    g_vec = embedder.embed_passages([row["text"] for _, row in gold])
    o_vec = embedder.embed_passages([m.text for _, m in ours])
    sims = g_vec @ o_vec.T if len(ours) else np.zeros((len(gold), 0))

    recalled, chance, any_type = Counter(), Counter(), Counter()
    matched_ours: set[int] = set()
    for gi, (sid, row) in enumerate(gold):
        same = [oi for oi, (osid, m) in enumerate(ours) if osid == sid and m.type == row["type"]]
        other = [oi for oi, (osid, m) in enumerate(ours) if osid != sid and m.type == row["type"]]
        anyt = [oi for oi, (osid, _) in enumerate(ours) if osid == sid]
        hits = [oi for oi in same if sims[gi, oi] >= threshold]
        matched_ours.update(hits)
        recalled[row["type"]] += bool(hits)
        chance[row["type"]] += any(sims[gi, oi] >= threshold for oi in other)
        any_type[row["type"]] += any(sims[gi, oi] >= threshold for oi in anyt)
        if show:
            best = max(same, key=lambda oi: sims[gi, oi], default=None)
            text = f"{sims[gi, best]:.3f} {ours[best][1].text[:70]!r}" if best is not None else "-"
            print(
                f"{'HIT ' if hits else 'MISS'} {row['type']:9} {row['text'][:50]!r:55} best: {text}"
            )
    if show:
        for oi, (sid, m) in enumerate(ours):
            if oi not in matched_ours:
                print(
                    f"UNMATCHED {sid[:8]} {m.type:9} {m.kind or '':10} {m.confidence:.2f} {m.text[:90]!r}"
                )

    print("\nthreshold sweep, all types: recall / chance")
    for step in (-0.05, -0.03, -0.02, -0.01, 0.0, 0.01, 0.02, 0.03):
        rec = chn = 0
        for gi, (sid, row) in enumerate(gold):
            rec += any(
                sims[gi, oi] >= threshold + step
                for oi, (osid, m) in enumerate(ours)
                if osid == sid and m.type == row["type"]
            )
            chn += any(
                sims[gi, oi] >= threshold + step
                for oi, (osid, m) in enumerate(ours)
                if osid != sid and m.type == row["type"]
            )
        print(f"  {threshold + step:.2f}: {rec / len(gold):6.1%} / {chn / len(gold):6.1%}")
    print(
        f"\nbilingual memories: {len(gold)} expected in {len(expected)} sessions, {len(ours)} extracted "
        f"in {seconds:.1f} s; match = same type and cosine >= {threshold} ({embedder.name} passages)"
    )
    print(
        f"{'type':<11}{'expected':>9}{'recalled':>9}{'recall':>8}{'any type':>9}{'chance':>8}"
        f"{'extracted':>10}{'unmatched':>10}"
    )
    for t in (*MEMORY_TYPES, "all"):
        n_gold = sum(1 for _, r in gold if t in (r["type"], "all"))
        rec = sum(recalled.values()) if t == "all" else recalled[t]
        anyt = sum(any_type.values()) if t == "all" else any_type[t]
        chn = sum(chance.values()) if t == "all" else chance[t]
        n_ours = [oi for oi, (_, m) in enumerate(ours) if t in (m.type, "all")]
        unmatched = sum(1 for oi in n_ours if oi not in matched_ours)
        print(
            f"{t:<11}{n_gold:>9}{rec:>9}{rec / max(1, n_gold):>8.1%}{anyt / max(1, n_gold):>9.1%}"
            f"{chn / max(1, n_gold):>8.1%}{len(n_ours):>10}{unmatched:>10}"
        )


def locomo(bench: Path, embedder, threshold: float, dedupe: float, dedupe_embedder) -> None:
    facts: dict[str, list[dict]] = defaultdict(list)
    for line in (bench / "locomo" / "observations.jsonl").read_text().splitlines():
        row = json.loads(line)
        facts[row["sessionId"]].append(row)
    started = time.perf_counter()
    sessions = {sid: load_session(bench / "locomo" / "sessions", sid) for sid in facts}
    memories = {
        sid: extract_memories(s, embedder=dedupe_embedder, dedupe_threshold=dedupe)
        for sid, s in sessions.items()
    }
    seconds = time.perf_counter() - started
    vectors = {
        sid: embedder.embed_passages([m.text for m in ms]) if ms else None
        for sid, ms in memories.items()
    }
    order = sorted(facts)
    covered, total, upper, chance, unmatched = Counter(), Counter(), 0, 0, 0
    for i, sid in enumerate(order):
        rows, session = facts[sid], sessions[sid]
        f_vec = embedder.embed_passages([r["fact"] for r in rows])
        # the baseline: every message of the session, whole, taken as a memory
        upper += int(
            (
                (f_vec @ embedder.embed_passages([m.content for m in session.messages]).T).max(1)
                >= threshold
            ).sum()
        )
        # the floor: the memories of another session of the same conversation
        other = next(
            (o for o in order[i + 1 :] + order[:i] if o.split("-s")[0] == sid.split("-s")[0]), None
        )
        if other is not None and vectors[other] is not None:
            chance += int(((f_vec @ vectors[other].T).max(1) >= threshold).sum())
        if vectors[sid] is not None:
            unmatched += int(((vectors[sid] @ f_vec.T).max(1) < threshold).sum())
        roles = {m.speaker: m.role for m in session.messages}
        for j, row in enumerate(rows):
            role = roles.get(row["speaker"], "?")
            total[role] += 1
            covered[role] += (
                vectors[sid] is not None and float((vectors[sid] @ f_vec[j]).max()) >= threshold
            )
    n, n_memories = sum(total.values()), sum(map(len, memories.values()))
    print(
        f"\nlocomo observations: {n} facts in {len(facts)} sessions, {n_memories} "
        f"memories from {sum(len(s.messages) for s in sessions.values())} messages ({seconds:.0f} s); "
        f"covered = some memory of the session at cosine >= {threshold}"
    )
    print(
        f"  covered: {sum(covered.values()) / n:.1%}   baseline (every message whole as a memory): "
        f"{upper / n:.1%}   chance (another session's memories): {chance / n:.1%}"
    )
    print(
        f"  memories matching no fact of their session: {unmatched}/{n_memories} = "
        f"{unmatched / max(1, n_memories):.1%}"
    )
    for role in sorted(total):
        print(
            f"  facts about the speaker in role {role!r}: {covered[role]}/{total[role]} = "
            f"{covered[role] / max(1, total[role]):.1%}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--embedder", default="e5", help="e5 (default), minilm, hash")
    parser.add_argument("--model-cache", type=Path, default=Path("/tmp/e5home/models"))
    parser.add_argument(
        "--threshold", type=float, default=0.93, help="cosine that counts as a match"
    )
    parser.add_argument(
        "--locomo-threshold",
        type=float,
        default=0.87,
        help="match cosine for LoCoMo (English only: unrelated pairs score lower there)",
    )
    parser.add_argument(
        "--dedupe-threshold", type=float, default=0.95, help="extract_memories dedupe_threshold"
    )
    parser.add_argument(
        "--jaccard-dedupe",
        action="store_true",
        help="dedupe without the embedder (character-bigram Jaccard), as offline callers do",
    )
    parser.add_argument(
        "--show", action="store_true", help="print every hit, miss and unmatched memory"
    )
    parser.add_argument("--skip-locomo", action="store_true")
    args = parser.parse_args()
    embedder = load_embedder(args.embedder, model_cache=args.model_cache)
    dedupe_embedder = None if args.jaccard_dedupe else embedder
    bilingual(
        args.bench, embedder, args.threshold, args.dedupe_threshold, args.show, dedupe_embedder
    )
    if not args.skip_locomo:
        locomo(args.bench, embedder, args.locomo_threshold, args.dedupe_threshold, dedupe_embedder)


if __name__ == "__main__":
    main()
