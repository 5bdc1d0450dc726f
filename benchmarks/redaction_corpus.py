"""Recall and false positives of the redactor on the labelled corpus in tests/data/secrets/.

    python benchmarks/redaction_corpus.py [--data DIR] [--json]

credentials.jsonl holds one made-up credential per line ({"kind", "lang", "context", "text",
"secret", "batch"}): a case is redacted when `secret` no longer occurs in the redacted text.
non_secrets.jsonl holds text that must come through unchanged ({"kind", "lang", "text",
"batch"}). "batch" names the round a case was written in (none: the first two).
Prints the redaction rate overall, by kind, by language, by context and by batch; the false-positive rate
with every changed non-secret; and how many corpus cases each rule fired on. Secrets are never
printed: a missed case is shown by its kind and line number only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from indexer.text.redact import redact_text
from indexer.text.redact_rules import RULES

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "secrets"
EARLIER = "1-2"  # cases without a batch: the first two rounds


def load(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _rate(hits: int, total: int) -> dict[str, Any]:
    return {"redacted": hits, "total": total, "rate": round(hits / total, 4) if total else 0.0}


def secrets_report(cases: list[dict[str, str]]) -> dict[str, Any]:
    """Redaction rates; a case counts when its secret is gone from the redacted text."""
    groups: dict[str, dict[str, list[bool]]] = {
        "kind": defaultdict(list), "lang": defaultdict(list), "context": defaultdict(list),
        "batch": defaultdict(list)}
    missed: list[dict[str, Any]] = []
    outcomes = []
    for line, case in enumerate(cases, 1):
        out, _ = redact_text(case["text"])
        gone = case["secret"] not in out
        outcomes.append(gone)
        for field, by in groups.items():
            by[case.get(field, EARLIER)].append(gone)
        if not gone:
            missed.append({"line": line, "kind": case["kind"], "lang": case["lang"]})
    return {
        "overall": _rate(sum(outcomes), len(outcomes)),
        **{f"by_{field}": {k: _rate(sum(v), len(v)) for k, v in sorted(by.items())}
           for field, by in groups.items()},
        "missed": missed,
    }


def non_secrets_report(cases: list[dict[str, str]]) -> dict[str, Any]:
    """False positives: non-secret texts the redactor changed, with what it changed them to."""
    changed = []
    for line, case in enumerate(cases, 1):
        out, counts = redact_text(case["text"])
        if out != case["text"]:
            changed.append({"line": line, "kind": case.get("kind", ""), "after": out,
                            "rules": dict(counts)})
    n = len(cases)
    by_batch: dict[str, dict[str, int]] = {}
    for line, case in enumerate(cases, 1):
        row = by_batch.setdefault(case.get("batch", EARLIER), {"changed": 0, "total": 0})
        row["total"] += 1
        row["changed"] += any(c["line"] == line for c in changed)
    return {"changed": len(changed), "total": n,
            "rate": round(len(changed) / n, 4) if n else 0.0, "cases": changed,
            "by_batch": dict(sorted(by_batch.items()))}


def rule_counts(cases: list[dict[str, str]]) -> list[dict[str, Any]]:
    """For each rule of the catalogue, on how many cases its regexes found a candidate that
    passed its checks (before overlaps with other rules are resolved)."""
    from indexer.text.redact import _RULES  # the compiled finders, in catalogue order

    counts = []
    for spec, rule in zip(RULES, _RULES, strict=True):
        fired = sum(1 for case in cases if next(iter(rule.find(case["text"])), None) is not None)
        counts.append({"rule": spec.kind, "cases": fired})
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="folder of the two .jsonl files")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    secrets = load(args.data / "credentials.jsonl")
    non_secrets = load(args.data / "non_secrets.jsonl")
    report = {"secrets": secrets_report(secrets), "non_secrets": non_secrets_report(non_secrets),
              "rules_on_secrets": rule_counts(secrets),
              "rules_on_non_secrets": rule_counts(non_secrets)}
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
        return 0
    _print(report)
    return 0


def _print(report: dict[str, Any]) -> None:
    s = report["secrets"]
    o = s["overall"]
    kinds = len(s["by_kind"])
    print(f"secrets redacted: {o['redacted']}/{o['total']} ({100 * o['rate']:.1f}%), "
          f"{kinds} kinds")
    for field in ("lang", "context", "batch"):
        parts = [f"{k} {v['redacted']}/{v['total']} ({100 * v['rate']:.1f}%)"
                 for k, v in s[f"by_{field}"].items()]
        print(f"  by {field}: " + ", ".join(parts))
    weak = {k: v for k, v in s["by_kind"].items() if v["rate"] < 1}
    print(f"  kinds not fully redacted: {len(weak)}")
    for k, v in weak.items():
        print(f"    {k}: {v['redacted']}/{v['total']}")
    for miss in s["missed"]:
        print(f"    missed line {miss['line']}: {miss['kind']} ({miss['lang']})")
    n = report["non_secrets"]
    print(f"non-secrets changed: {n['changed']}/{n['total']} ({100 * n['rate']:.2f}%)")
    for batch, total in n["by_batch"].items():
        print(f"  batch {batch}: {total['changed']}/{total['total']}")
    for case in n["cases"]:
        print(f"  line {case['line']} [{case['kind']}] {case['rules']}: {case['after']!r}")
    print("rule: cases fired on (secrets / non-secrets)")
    merged: Counter[str] = Counter()
    merged_fp: Counter[str] = Counter()
    for row in report["rules_on_secrets"]:
        merged[row["rule"]] += row["cases"]
    for row in report["rules_on_non_secrets"]:
        merged_fp[row["rule"]] += row["cases"]
    for rule in merged:
        print(f"  {rule}: {merged[rule]} / {merged_fp[rule]}")


if __name__ == "__main__":
    raise SystemExit(main())
