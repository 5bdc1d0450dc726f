"""Retrieval quality on the LoCoMo and bilingual benchmarks: recall side by side with baselines.

    python benchmarks/retrieval.py --bench ../shared/bench --home /tmp/recall-bench [--embedder e5]

Indexes each benchmark's sessions into its own data dir under --home (skipped when already
indexed, unless --reindex), then runs every answerable query through each system and prints
session R@1/R@5/R@10, MRR and message R@10, plus the median in-process query latency:

- recall hybrid, keyword and vector: recall's own search code (`RecallService.search`);
- FTS5 BM25 and LanceDB hybrid: the baselines of benchmarks/baselines.py, built on the same
  messages with the same embedder.

LoCoMo runs pooled (no filter) and per conversation (filtered to its first speaker). A final
summary puts all systems side by side, with recall hybrid's ratio to the best baseline;
--json OUT writes every table.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api import RecallService, Settings
from benchmarks.baselines import Fts5Bm25, LanceHybrid, Ranking, load_messages
from models import SearchFilters, SearchRequest

MODES = ("hybrid", "strict", "fused", "keyword", "vector")
BASELINES = ("fts5", "lance")
METRICS = ("R@1", "R@5", "R@10", "MRR", "msgR@10")
LATENCY = "median ms"  # the one summary row where lower is better
DEFAULT = "recall hybrid"  # the system whose ratio to the best baseline the summary shows

# (query text, participant or None) -> sessions and messages, best first
System = Callable[[str, "str | None"], Ranking]


def _split(conversation: str) -> str:
    # settings were tuned on conversations 26-44; 47-50 were held out
    return "split: tuned 26-44" if int(conversation) <= 44 else "split: held-out 47-50"


def adversarial_no_match(service: RecallService, bench: Path, speakers: dict[str, list[str]]) -> dict:
    """How often recall hybrid answers LoCoMo's adversarial (unanswerable) questions with
    nothing, pooled and per conversation."""
    questions = [q for q in map(json.loads, (bench / "locomo" / "queries.jsonl").read_text().splitlines())
                 if q.get("unanswerable")]
    out = {"n": len(questions)}
    for setting in ("pooled", "per conversation"):
        empty = 0
        for q in questions:
            participant = speakers[q["conversation"]][0] if setting != "pooled" else None
            filters = SearchFilters(participant=participant) if participant else SearchFilters()
            empty += not service.search(SearchRequest(query=q["question"], filters=filters)).results
        out[setting] = empty
    print(f"\nLoCoMo adversarial questions answered with nothing by recall hybrid: "
          f"pooled {out['pooled']}/{out['n']}, per conversation {out['per conversation']}/{out['n']}")
    return out


def elsewhere_no_match(systems: dict[str, System], queries: list[dict],
                       speakers: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """How often each recall system answers nothing when a LoCoMo question is asked within the
    next conversation of its split, where it has no answer; per split."""
    by_split: dict[str, list[str]] = defaultdict(list)
    for c in sorted(speakers, key=int):
        by_split[_split(c)].append(c)
    out: dict[str, dict[str, float]] = {}
    for system_name, system in systems.items():
        if not system_name.startswith("recall"):
            continue
        empty: dict[str, list[bool]] = defaultdict(list)
        for q in queries:
            split = _split(q["conversation"])
            convs = by_split[split]
            other = convs[(convs.index(q["conversation"]) + 1) % len(convs)]
            empty[split].append(not system(q["query"], speakers[other][0]).sessions)
        out[system_name] = {split: statistics.mean(found) for split, found in empty.items()}
        print(f"LoCoMo questions asked in another conversation, answered with nothing by "
              f"{system_name}: " + ", ".join(f"{k[7:]} {v:.3f}" for k, v in out[system_name].items()))
    return out


def load_queries(bench: Path, name: str) -> list[dict]:
    queries = []
    for line in (bench / name / "queries.jsonl").read_text().splitlines():
        q = json.loads(line)
        if name == "locomo":
            if q.get("unanswerable") or not q.get("evidence_sessions"):
                continue
            queries.append({"qid": q["qid"], "query": q["question"], "sessions": q["evidence_sessions"],
                            "messages": q["evidence_turns"],
                            "groups": [q["category_name"], _split(q["conversation"])],
                            "conversation": q["conversation"]})
        else:
            queries.append({"qid": q["qid"], "query": q["query"], "sessions": q["relevant_sessions"],
                            "messages": q["relevant_messages"],
                            "groups": [q["kind"], f"{q['kind']}/{q['lang']}"]})
    return queries


def recall_at(ranked: list[str], gold: list[str], k: int) -> float:
    return len(set(ranked[:k]) & set(gold)) / len(set(gold)) if gold else 0.0


def mrr(ranked: list[str], gold: list[str]) -> float:
    for rank, item in enumerate(ranked, start=1):
        if item in gold:
            return 1 / rank
    return 0.0


def _ranked(service: RecallService, ranker: str) -> RecallService:
    """The service as RECALL_RANKER=ranker makes it, over the same index and model."""
    return RecallService(dataclasses.replace(service.settings, ranker=ranker),
                         embedder=service.embedder)


def recall_system(service: RecallService, mode: str) -> System:
    """recall in one mode; "fused" and "strict" are hybrid with RECALL_RANKER=fused or strict,
    "unlinked" is hybrid without supersession links (no session moved above the one whose
    statement it replaced: search/current.py), "nodict" hybrid without the dictionary's
    translated ranking (search/translation.py), in the same process and index as the default
    they are compared with. All but the last two go through `RecallService.search`, as
    `recall serve` answers (fused and strict: a service with that RECALL_RANKER, sharing the
    model); "unlinked" and "nodict" are ablations no setting offers, so they go through a
    variant of the service's searcher (`Searcher.variant`)."""
    searcher = service.searcher
    search_mode = "hybrid" if mode in ("fused", "strict", "unlinked", "nodict") else mode
    run = {"fused": lambda: _ranked(service, "fused").search,
           "strict": lambda: _ranked(service, "strict").search,
           "unlinked": lambda: searcher.variant(searcher.ranker, marks_current=False).search,
           "nodict": lambda: searcher.variant(searcher.ranker, translates=False).search,
           }.get(mode, lambda: service.search)()

    def search(query: str, participant: str | None) -> Ranking:
        filters = SearchFilters(participant=participant) if participant else SearchFilters()
        response = run(SearchRequest(query=query, mode=search_mode,
                                     filters=filters, limit=10, messages_per_session=10))
        return Ranking([r.session_id for r in response.results],
                       [m.id for r in response.results for m in r.messages if m.id])
    return search


def evaluate(system: System, queries: list[dict],
             participant_for: Callable[[dict], str | None] = lambda q: None) -> dict:
    """Mean of each metric per group ("all" plus the query's groups) and the median latency."""
    scores: dict[str, list[dict]] = defaultdict(list)
    latencies = []
    for q in queries:
        started = time.perf_counter()
        found = system(q["query"], participant_for(q))
        latencies.append((time.perf_counter() - started) * 1000)
        row = {"R@1": recall_at(found.sessions, q["sessions"], 1),
               "R@5": recall_at(found.sessions, q["sessions"], 5),
               "R@10": recall_at(found.sessions, q["sessions"], 10),
               "MRR": mrr(found.sessions, q["sessions"]),
               "msgR@10": recall_at(found.messages, q["messages"], 10)}
        for group in ["all", *q["groups"]]:
            scores[group].append(row)
    groups = {g: {m: statistics.mean(r[m] for r in rows) for m in METRICS} | {"n": len(rows)}
              for g, rows in scores.items()}
    return {"groups": groups, "median_ms": statistics.median(latencies)}


def print_table(title: str, result: dict) -> None:
    table = result["groups"]
    print(f"\n{title} (median latency {result['median_ms']:.1f} ms)")
    print(f"{'group':<24}{'n':>5}{'R@1':>8}{'R@5':>8}{'R@10':>8}{'MRR':>8}{'msgR@10':>9}")
    for group in ["all", *sorted(g for g in table if g != "all")]:
        r = table[group]
        print(f"{group:<24}{r['n']:>5}" + "".join(f"{r[m]:>8.3f}" for m in METRICS[:-1])
              + f"{r['msgR@10']:>9.3f}")


def build_systems(service: RecallService, bench: Path, name: str, home: Path,
                  modes: list[str], baselines: list[str]) -> dict[str, System]:
    systems: dict[str, System] = {f"recall {mode}": recall_system(service, mode) for mode in modes}
    if baselines:
        messages = load_messages(bench / name / "sessions")
    if "fts5" in baselines:
        systems[Fts5Bm25.name] = Fts5Bm25(messages).search
    if "lance" in baselines:
        started = time.perf_counter()
        lance = LanceHybrid(messages, service.embedder, home / "baselines")
        print(f"[{name}] LanceDB baseline: {len(messages)} messages, table and FTS index "
              f"in {time.perf_counter() - started:.1f}s")
        systems[LanceHybrid.name] = lance.search
    return systems


def run_set(args: argparse.Namespace, name: str) -> dict[str, dict[str, dict]]:
    """{setting: {system: result}} for one benchmark set."""
    home = args.home / f"{name}-{args.embedder.replace('/', '_')}"
    service = RecallService(Settings.from_env(home=str(home), embedder=args.embedder))
    report = service.index([args.bench / name / "sessions"])
    print(f"[{name}] indexed {report.indexed} sessions ({report.messages} messages), "
          f"{report.unchanged} unchanged, in {report.seconds:.1f}s with {service.embedder.name}")
    if args.reindex:  # the code may have changed since the index was built
        report = service.maintenance.reindex()
        print(f"[{name}] rebuilt recall's indexes from its archive: {report.indexed} sessions "
              f"in {report.seconds:.1f}s")
    systems = build_systems(service, args.bench, name, home, args.modes.split(","),
                            [b for b in args.baselines.split(",") if b])
    queries = load_queries(args.bench, name)
    settings: dict[str, Callable[[dict], str | None]] = {"pooled": lambda q: None}
    if name == "locomo":
        manifest = json.loads((args.bench / name / "manifest.json").read_text())
        speakers = {c: v["speakers"] for c, v in manifest["per_conversation"].items()}
        settings["per conversation"] = lambda q: speakers[q["conversation"]][0]
    results: dict[str, dict[str, dict]] = {}
    if name == "locomo" and "hybrid" in args.modes.split(","):
        results["adversarial"] = adversarial_no_match(service, args.bench, speakers)
        results["elsewhere"] = elsewhere_no_match(systems, queries, speakers)
    for setting, participant_for in settings.items():
        for system_name, system in systems.items():
            result = evaluate(system, queries, participant_for)
            results.setdefault(setting, {})[system_name] = result
            print_table(f"{name} {setting}, {system_name}", result)
    return results


def summary_rows(results: dict) -> list[tuple[str, dict[str, float]]]:
    """(label, {system: value}) for the compact side-by-side table."""
    rows = []
    for setting, per_system in results.get("locomo", {}).items():
        if setting in ("adversarial", "elsewhere"):
            continue
        for metric in ("R@5", "R@10", "MRR", "msgR@10"):
            rows.append((f"LoCoMo {setting} {metric}",
                         {s: r["groups"]["all"][metric] for s, r in per_system.items()}))
        for split in sorted(g for g in next(iter(per_system.values()))["groups"] if g.startswith("split")):
            rows.append((f"LoCoMo {setting} R@5 {split[7:]}",
                         {s: r["groups"][split]["R@5"] for s, r in per_system.items()}))
    for split in ("split: tuned 26-44", "split: held-out 47-50"):
        elsewhere = results.get("locomo", {}).get("elsewhere", {})
        if elsewhere:
            rows.append((f"LoCoMo asked elsewhere, empty, {split[7:]}",
                         {s: v[split] for s, v in elsewhere.items()}))
    if "pooled" in results.get("locomo", {}):
        rows.append((f"LoCoMo pooled {LATENCY}",
                     {s: r["median_ms"] for s, r in results["locomo"]["pooled"].items()}))
    bilingual = results.get("bilingual", {}).get("pooled", {})
    if bilingual:
        for metric in ("R@5", "R@10", "MRR", "msgR@10"):
            rows.append((f"bilingual all {metric}",
                         {s: r["groups"]["all"][metric] for s, r in bilingual.items()}))
        any_system = next(iter(bilingual.values()))["groups"]
        for kind in sorted(g for g in any_system if g != "all" and "/" not in g):
            rows.append((f"bilingual {kind} R@5 (n={any_system[kind]['n']})",
                         {s: r["groups"][kind]["R@5"] for s, r in bilingual.items()}))
    return rows


def print_summary(results: dict, baselines: list[str]) -> list[dict]:
    rows = summary_rows(results)
    if not rows:
        return []
    systems = list(rows[0][1])
    with_ratio = DEFAULT in systems and any(b in systems for b in baselines)
    header = f"{'':<34}" + "".join(f"{s:>16}" for s in systems)
    print("\nSummary, side by side" + (f" ({DEFAULT} ÷ best baseline; ms: lower is better)"
                                       if with_ratio else ""))
    print(header + (f"{'ratio':>8}" if with_ratio else ""))
    out = []
    for label, values in rows:
        latency = label.endswith(LATENCY)
        line = f"{label:<34}" + "".join(f"{values[s]:>16.1f}" if latency else f"{values[s]:>16.3f}"
                                         for s in systems)
        entry = {"row": label, **values}
        if with_ratio:
            best = (min if latency else max)(values[b] for b in baselines if b in values)
            entry["ratio"] = values[DEFAULT] / best if best else None
            line += f"{entry['ratio']:>8.2f}" if best else f"{'—':>8}"
        print(line)
        out.append(entry)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True, help="path to shared/bench")
    parser.add_argument("--home", type=Path, required=True, help="where to build the bench indexes")
    parser.add_argument("--embedder", default="e5", help="e5 (the product default), minilm, ...")
    parser.add_argument("--sets", default="locomo,bilingual")
    parser.add_argument("--modes", default=",".join(MODES), help="recall modes to run")
    parser.add_argument("--baselines", default=",".join(BASELINES), help="fts5,lance or empty")
    parser.add_argument("--reindex", action="store_true", help="rebuild recall's indexes first")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write all results as JSON")
    args = parser.parse_args()
    results = {name: run_set(args, name) for name in args.sets.split(",")}
    baseline_names = [{"fts5": Fts5Bm25.name, "lance": LanceHybrid.name}[b]
                      for b in args.baselines.split(",") if b]
    summary = print_summary(results, baseline_names)
    if args.json:
        args.json.write_text(json.dumps({"embedder": args.embedder, "results": results,
                                         "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
