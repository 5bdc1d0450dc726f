"""Train the learned session ranker (search/ranker.py) and write its model file.

    python scripts/train_ranker.py --bench ../shared/bench --home /tmp/recall-train \
        [--embedder e5] [--out search/models/ranker.json]

Training data, and nothing else: LoCoMo's tuned conversations (26-44, each question searched
within its conversation, as the benchmark's per-conversation setting does) and the tune half of
eval/ (over examples/sessions and eval/sessions). The held-out LoCoMo conversations (47-50), the
bilingual dev set and eval/'s test half stay unseen, for benchmarks/ to judge the result.

For each question the search's candidate sessions (by fused score) become rows of features,
labelled by whether the session is relevant. A logistic model is fitted by Newton's method with
an L2 penalty, each question weighing the same; the same data and code give the same file. A
second one learns from the best session's row whether the archive answers the question at all,
from the answerable questions against the tune half's no-answer questions and LoCoMo's questions
asked within another conversation. Each
RECALL_RANKER mode's two floors (search/ranker.py) are chosen on the same data by
choose_floors.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # import the code of this checkout, whatever the current folder

from api import RecallService, Settings
from models import SearchFilters, SearchRequest
from search.ranker import ANSWER_FEATURES, DEFAULT_MODEL, FEATURES, FORMAT, Ranker, answer_row

TUNED_CONVERSATIONS = range(26, 45)
EVAL_WEIGHT = 5.0  # the tune half has ~80 questions against ~1,300 of LoCoMo, and more kinds
L2 = 1.0
CANDIDATES = 20  # two-fold CV on the tune data: R@5 the same as with 30, a third less work
ANSWER_FLOORS = [round(x, 3) for x in np.arange(0.0, 0.801, 0.05)]
KEEP_FLOORS = [0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2]
# how much more an answer lost counts than a weak session shown or a no-answer question answered,
# for each RECALL_RANKER mode with floors ("learned" has none: floors chosen for it, with a
# weight of 10, cost answers on the held-out test half, docs/benchmarks.md)
RECALL_WEIGHTS = {"strict": 3.0}


def _service(home: Path, embedder: str, model_cache: Path | None, sources: list[Path]) -> RecallService:
    settings = Settings.from_env(home=str(home), embedder=embedder,
                                 model_cache=str(model_cache) if model_cache else None)
    service = RecallService(settings)
    if not service.data.current_generation():
        report = service.index(sources)
        print(f"indexed {report.indexed} sessions from {', '.join(map(str, sources))}",
              file=sys.stderr)
    return service


def locomo_questions(bench: Path) -> list[dict]:
    """The tuned conversations' answerable questions, each asked within its conversation; and
    each asked again within the next tuned conversation, where it has no answer: questions with
    the archive's own kind of words that should find nothing."""
    manifest = json.loads((bench / "locomo" / "manifest.json").read_text())
    speakers = {c: v["speakers"] for c, v in manifest["per_conversation"].items()}
    tuned = sorted((c for c in speakers if int(c) in TUNED_CONVERSATIONS), key=int)
    out, elsewhere = [], []
    for line in (bench / "locomo" / "queries.jsonl").read_text().splitlines():
        q = json.loads(line)
        if q["conversation"] in tuned and not q.get("unanswerable") and q.get("evidence_sessions"):
            out.append({"query": q["question"], "relevant": set(q["evidence_sessions"]),
                        "participant": speakers[q["conversation"]][0], "source": "locomo"})
            other = tuned[(tuned.index(q["conversation"]) + 1) % len(tuned)]
            elsewhere.append({"query": q["question"], "relevant": set(),
                              "participant": speakers[other][0], "source": "locomo elsewhere"})
    return out + elsewhere


def eval_tune_questions() -> list[dict]:
    out = []
    for line in (ROOT / "eval" / "queries.jsonl").read_text().splitlines():
        q = json.loads(line)
        if q["split"] == "tune":
            out.append({"query": q["query"], "relevant": set(q["relevant_sessions"]),
                        "participant": None, "source": "eval", "kind": q["kind"]})
    return out


def collect(service: RecallService, questions: list[dict]) -> list[dict]:
    """Each question with its candidate sessions' ids, feature rows and labels."""
    for q in questions:
        filters = SearchFilters(participant=q["participant"]) if q["participant"] else SearchFilters()
        found = service.searcher.ranking_rows(SearchRequest(query=q["query"], filters=filters),
                                               CANDIDATES)
        q["sessions"] = [session_id for session_id, _ in found]
        q["x"] = np.array([row for _, row in found], dtype=np.float64).reshape(len(found), len(FEATURES))
        q["y"] = np.array([s in q["relevant"] for s in q["sessions"]], dtype=np.float64)
    return questions


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, float]:
    """Weighted L2 logistic regression by Newton's method on standardized features; returns the
    weights and bias on the raw features."""
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / std])
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], L2)
    penalty[0] = 0.0  # the bias is not penalized
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(z @ beta)))
        gradient = z.T @ (w * (y - p)) - penalty * beta
        hessian = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if np.abs(step).max() < 1e-10:
            break
    weights = beta[1:] / std
    return weights, float(beta[0] - (weights * mean).sum())


def _weight(q: dict) -> float:
    return EVAL_WEIGHT if q["source"] == "eval" else 1.0


def fit_sessions(questions: list[dict]) -> tuple[np.ndarray, float]:
    """The session model: is this candidate session relevant? Each question weighs the same;
    LoCoMo's questions asked elsewhere only teach the answerability model."""
    rows = [q for q in questions if len(q["y"]) and q["source"] != "locomo elsewhere"]
    return fit(np.vstack([q["x"] for q in rows]), np.concatenate([q["y"] for q in rows]),
               np.concatenate([np.full(len(q["y"]), _weight(q) / len(q["y"])) for q in rows]))


def fit_answerable(questions: list[dict], ranker: Ranker) -> tuple[np.ndarray, float]:
    """The answerability model: does the archive answer this question at all?"""
    rows = [q for q in questions if len(q["y"])]
    x = np.array([answer_row(ranker.probabilities(q["x"]).tolist(), q["x"].tolist()) for q in rows])
    return fit(x, np.array([float(bool(q["relevant"])) for q in rows]),
               np.array([_weight(q) for q in rows]))


def shown(q: dict, ranker: Ranker) -> list[str]:
    if not len(q["y"]):
        return []
    return [q["sessions"][i] for i in ranker.kept(ranker.probabilities(q["x"]).tolist(),
                                                  q["x"].tolist())]


def floor_table(questions: list[dict], ranker: Ranker) -> list[dict]:
    """Per pair of floors: R@5 on LoCoMo and on the tune half's answerable questions, its
    precision@5, and its no-answer accuracy."""
    table = []
    for answer_floor, keep_floor in itertools.product(ANSWER_FLOORS, KEEP_FLOORS):
        trial = dataclasses.replace(ranker, answer_floor=answer_floor, keep_floor=keep_floor)
        locomo: list[float] = []
        answerable: list[float] = []
        precision: list[float] = []
        no_answer: list[bool] = []
        elsewhere: list[bool] = []
        for q in questions:
            top = shown(q, trial)[:5]
            if not q["relevant"]:
                (elsewhere if q["source"] == "locomo elsewhere" else no_answer).append(not top)
                continue
            recall = len(set(top) & q["relevant"]) / len(q["relevant"])
            if q["source"] == "locomo":
                locomo.append(recall)
            else:
                answerable.append(recall)
                precision.append(len(set(top) & q["relevant"]) / min(5, max(1, len(top))))
        table.append({"answer_floor": answer_floor, "keep_floor": keep_floor,
                      "locomo R@5": float(np.mean(locomo)), "eval R@5": float(np.mean(answerable)),
                      "eval P@5": float(np.mean(precision)), "no-answer": float(np.mean(no_answer)),
                      "locomo elsewhere empty": float(np.mean(elsewhere))})
    return table


def choose_floors(table: list[dict], recall_weight: float) -> dict:
    """The floors that do best by recall_weight x (LoCoMo R@5 + tune R@5) + precision@5 + the
    mean of the two no-answer accuracies. Lower floors win ties."""
    def worth(r: dict) -> tuple[float, float, float]:
        value = (recall_weight * (r["locomo R@5"] + r["eval R@5"]) + r["eval P@5"]
                 + (r["no-answer"] + r["locomo elsewhere empty"]) / 2)
        return round(value, 4), -r["answer_floor"], -r["keep_floor"]
    return max(table, key=worth)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True, help="the benchmark folder (LoCoMo)")
    parser.add_argument("--home", type=Path, required=True, help="where to index the training data")
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--model-cache", type=Path)
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    args = parser.parse_args()
    name = args.embedder.replace("/", "_")
    locomo = _service(args.home / f"locomo-{name}", args.embedder, args.model_cache,
                      [args.bench / "locomo" / "sessions"])
    own = _service(args.home / f"eval-{name}", args.embedder, args.model_cache,
                   [ROOT / "examples" / "sessions", ROOT / "eval" / "sessions"])
    questions = collect(locomo, locomo_questions(args.bench)) + collect(own, eval_tune_questions())
    weights, bias = fit_sessions(questions)
    ranker = Ranker(version=f"{date.today().isoformat()}-{args.embedder}",
                    embedders=(locomo.embedder.name,), weights=tuple(weights.tolist()),
                    bias=bias, answer_weights=(), answer_bias=0.0, candidates=CANDIDATES)
    answer_weights, answer_bias = fit_answerable(questions, ranker)
    ranker = dataclasses.replace(ranker, answer_weights=tuple(answer_weights.tolist()),
                                 answer_bias=answer_bias)
    table = floor_table(questions, ranker)
    chosen = {mode: choose_floors(table, weight) for mode, weight in RECALL_WEIGHTS.items()}
    for mode, row in chosen.items():
        print(f"{mode}, on the training data: " + ", ".join(f"{k} {v:.3f}" for k, v in row.items()))
    model = {
        "format": FORMAT,
        "version": ranker.version,
        "embedders": list(ranker.embedders),
        "features": list(FEATURES),
        "weights": [round(float(v), 6) for v in weights],
        "bias": round(bias, 6),
        "answer_features": [*ANSWER_FEATURES, *FEATURES],
        "answer_weights": [round(float(v), 6) for v in answer_weights],
        "answer_bias": round(answer_bias, 6),
        "floors": {mode: {"answer": row["answer_floor"], "keep": row["keep_floor"]}
                   for mode, row in chosen.items()},
        "candidates": CANDIDATES,
        "trained_on": {"locomo conversations": "26-44", "eval": "tune half",
                       "questions": len(questions), "eval weight": EVAL_WEIGHT, "l2": L2,
                       "recall weights": RECALL_WEIGHTS},
        "on_training_data": {mode: {k: round(v, 4) for k, v in row.items() if "floor" not in k}
                             for mode, row in chosen.items()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(model, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for feature, weight in zip(FEATURES, weights, strict=True):
        print(f"{feature:>22} {weight:+.4f}")
    print(f"{'bias':>22} {bias:+.4f}\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
