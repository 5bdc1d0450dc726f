"""A learned session ranker: a logistic model over what the search already knows of each
session (keyword and vector evidence, ranks, named days, recency), in place of hand-set weights.

The model is a versioned JSON file (search/learned/), trained by scripts/train_ranker.py on
LoCoMo's tuned conversations and the tune half of eval/, and read without any network. It only
applies to the embedders it was trained with, in hybrid mode; otherwise, or when the file is
missing or damaged, the fused score ranks as before.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.text.analysis import QueryTerms, analyze, is_cjk_text
from search.candidates import Candidate, best_keyword, session_score
from search.query_intent import asks_for_latest

if TYPE_CHECKING:
    import numpy as np

    from indexer.stores.keyword import StoredDoc

__all__ = ["ANSWER_FEATURES", "DEFAULT_MODEL", "FEATURES", "QueryContext", "Ranker", "answer_row",
           "coverage", "evidence_features", "learned_ranker", "query_term_list", "session_features"]

log = logging.getLogger(__name__)

DEFAULT_MODEL = Path(__file__).with_name("learned") / "ranker.json"
FORMAT = 2
MARGIN_SCALE = 10.0  # margins above the background are hundredths of cosine
# A question about how things stand now: sessions scoring at least this share of the best one
# are shown newest first; about how things stood at first, oldest first (1.0: neither). Chosen
# on the tune half of eval/supersession (benchmarks/supersession.py --queries).
LATEST_NEAR_TOP = 0.4
HISTORY_NEAR_TOP = 0.2

FEATURES = (
    "score",                 # fused session score / the best one of the query
    "inverse_rank",          # 1 / rank by the fused score
    "keyword",               # best BM25 score in the session / the best of the query
    "keyword_inverse_rank",  # 1 / best keyword rank
    "same_margin",           # best rise above the background, query's language
    "other_margin",          # the same in the other language
    "same_found",
    "other_found",
    "named_day",             # found inside the days the query names
    "hits",                  # log(1 + candidates in the session)
    "recency",               # 1 newest ... 0 oldest of the sessions ranked
    "latest_recency",        # recency, when the query asks how things stand now
    "words_unknown",         # no query word occurs in the archive
    "coverage",              # share of the query's word weight (idf) in its best keyword hit
    "missing",               # share of the query's word weight the archive never holds
    "cjk_other_margin",      # other_margin, for a Chinese query
    "cjk_keyword",           # keyword, for a Chinese query
)


@dataclass(frozen=True, slots=True)
class QueryContext:
    asks_latest: bool
    words_known: bool
    is_cjk: bool = False
    # each query term's weight (inverse document frequency), and the share of that weight in
    # terms no message holds
    term_weights: dict[str, float] = field(default_factory=dict)
    missing: float = 0.0

    @classmethod
    def of(cls, query: str, terms: QueryTerms, frequencies: dict[str, int], documents: int,
           *, words_known: bool) -> QueryContext:
        weights = {t: math.log(1.0 + documents / (df + 1)) for t, df in frequencies.items()}
        total = sum(weights.values()) or 1.0
        missing = sum(w for t, w in weights.items() if frequencies[t] == 0) / total
        return cls(asks_latest=asks_for_latest(query), words_known=words_known,
                   is_cjk=is_cjk_text(query), term_weights=weights, missing=missing)


def query_term_list(terms: QueryTerms) -> list[str]:
    """The query terms whose rarity and coverage the features weigh."""
    return list(dict.fromkeys([*terms.body, *terms.chars]))


def coverage(text: str, weights: dict[str, float]) -> float:
    """The share of the query's term weight that occurs in `text`."""
    total = sum(weights.values())
    if not total or not text:
        return 0.0
    analyzed = analyze(text)
    present = set(analyzed.body) | set(analyzed.chars)
    return sum(w for t, w in weights.items() if t in present) / total


def session_features(groups: list[list[Candidate]], days: list[int], texts: list[str],
                     context: QueryContext) -> list[list[float]]:
    """One row of FEATURES per session group (candidates best first), in the order given, with
    each session's day and the text of its best keyword hit ("" if none)."""
    best_score = max((session_score(g) for g in groups), default=0.0) or 1.0
    best_keyword = max((c.keyword for g in groups for c in g if c.keyword is not None),
                       default=0.0) or 1.0
    newest_first = sorted(set(days), reverse=True)
    span = max(1, len(newest_first) - 1)
    rows = []
    for rank, (group, day, text) in enumerate(zip(groups, days, texts, strict=True), start=1):
        keyword = max((c.keyword for c in group if c.keyword is not None), default=None)
        keyword_rank = min((c.keyword_rank for c in group if c.keyword_rank is not None),
                           default=None)
        same = max((c.same_margin for c in group if c.same_margin is not None), default=None)
        other = max((c.other_margin for c in group if c.other_margin is not None), default=None)
        recency = 1.0 - newest_first.index(day) / span if len(newest_first) > 1 else 1.0
        rows.append([
            session_score(group) / best_score,
            1.0 / rank,
            (keyword or 0.0) / best_keyword,
            1.0 / keyword_rank if keyword_rank else 0.0,
            MARGIN_SCALE * (same or 0.0),
            MARGIN_SCALE * (other or 0.0),
            float(same is not None),
            float(other is not None),
            float(any(c.on_named_day for c in group)),
            math.log1p(len(group)),
            recency,
            recency if context.asks_latest else 0.0,
            0.0 if context.words_known else 1.0,
            coverage(text, context.term_weights),
            context.missing,
            MARGIN_SCALE * (other or 0.0) if context.is_cjk else 0.0,
            (keyword or 0.0) / best_keyword if context.is_cjk else 0.0,
        ])
    return rows


# what the answerability model adds to the best session's FEATURES row
ANSWER_FEATURES = ("top_logit", "top_gap", "sessions")


def evidence_features(groups: list[list[Candidate]], docs: dict[int, StoredDoc],
                      context: QueryContext) -> list[list[float]]:
    """session_features from the stored documents read for each group (by candidate number): its
    best candidate's day, and the text of its best keyword hit (coverage counts words a keyword
    search found; analyzing only those texts keeps the ranker's cost to a few milliseconds)."""
    days = [docs[g[0].number].day for g in groups]
    texts = []
    for g in groups:
        best = best_keyword(g)
        found = best.keyword_rank is not None and best.number in docs
        texts.append(docs[best.number].text if found else "")
    return session_features(groups, days, texts, context)


@dataclass(frozen=True)
class Ranker:
    """p(relevant) = sigmoid(bias + weights . features), per session. A second small model says
    from the best session's row whether the archive answers the query at all: a search under
    `answer_floor` answers nothing, and sessions under `keep_floor` are left out."""

    version: str
    embedders: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    answer_weights: tuple[float, ...]  # over ANSWER_FEATURES + FEATURES
    answer_bias: float
    candidates: int  # how many sessions, by fused score, it ranks
    # (answer floor, keep floor) per RECALL_RANKER mode, and the pair in use
    floors: dict[str, tuple[float, float]] = field(default_factory=dict)
    answer_floor: float = 0.0
    keep_floor: float = 0.0
    latest_near_top: float = LATEST_NEAR_TOP
    history_near_top: float = HISTORY_NEAR_TOP

    @classmethod
    def load(cls, path: Path = DEFAULT_MODEL) -> Ranker | None:
        """The model at `path`, or None (the fused score ranks) when it is missing, damaged or
        made for other features."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data["format"] != FORMAT or tuple(data["features"]) != FEATURES:
                raise ValueError(f"made for format {data['format']} and other features")
            ranker = cls(version=str(data["version"]), embedders=tuple(data["embedders"]),
                         weights=tuple(float(w) for w in data["weights"]),
                         bias=float(data["bias"]),
                         answer_weights=tuple(float(w) for w in data["answer_weights"]),
                         answer_bias=float(data["answer_bias"]),
                         candidates=int(data["candidates"]),
                         floors={mode: (float(f["answer"]), float(f["keep"]))
                                 for mode, f in data["floors"].items()})
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("learned ranker %s not used, the fused score ranks: %s", path, exc)
            return None
        if (len(ranker.weights) != len(FEATURES)
                or len(ranker.answer_weights) != len(ANSWER_FEATURES) + len(FEATURES)):
            log.warning("learned ranker %s not used: %d weights for %d features", path,
                        len(ranker.weights), len(FEATURES))
            return None
        return ranker

    def with_floors(self, mode: str) -> Ranker:
        """The same ranking with the floors of a RECALL_RANKER mode (none if it has none)."""
        answer, keep = self.floors.get(mode, (0.0, 0.0))
        return dataclasses.replace(self, answer_floor=answer, keep_floor=keep)

    def applies_to(self, embedder_name: str) -> bool:
        return embedder_name in self.embedders

    def kept(self, probabilities: list[float], rows: list[list[float]],
             asks: str | None = None) -> list[int]:
        """The indexes of the sessions shown, most probable first (ties: the given order); for
        a question about how things stand now (`asks` "latest") the ones near the top newest
        first, about how they stood at first ("history") oldest first."""
        order = sorted(range(len(probabilities)), key=lambda i: (-probabilities[i], i))
        if not order:
            return []
        if self.answer_floor > 0 and self.answerable(probabilities, rows) < self.answer_floor:
            return []
        if asks == "latest" and self.latest_near_top < 1.0:
            order = self._by_date_near_top(order, probabilities, rows, self.latest_near_top,
                                           newest=True)
        elif asks == "history" and self.history_near_top < 1.0:
            order = self._by_date_near_top(order, probabilities, rows, self.history_near_top,
                                           newest=False)
        return [i for i in order if probabilities[i] >= self.keep_floor]

    @staticmethod
    def _by_date_near_top(order: list[int], probabilities: list[float], rows: list[list[float]],
                          share: float, newest: bool) -> list[int]:
        """Several sessions about one subject answer "what is it now?" (or "what was it at
        first?") about as well; the newest (oldest) of them holds that value."""
        near = probabilities[order[0]] * share
        top = [i for i in order if probabilities[i] >= near]
        sign = -1.0 if newest else 1.0
        top.sort(key=lambda i: sign * rows[i][_RECENCY])  # stable: equal days keep their order
        return top + [i for i in order if probabilities[i] < near]

    def answerable(self, probabilities: list[float], rows: list[list[float]]) -> float:
        """How likely the archive answers the query, from its best session."""
        return float(1.0 / (1.0 + math.exp(-(
            sum(w * x for w, x in zip(self.answer_weights, answer_row(probabilities, rows),
                                      strict=True)) + self.answer_bias))))

    def probabilities(self, rows: list[list[float]]) -> np.ndarray:
        import numpy as np

        x = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
        return 1.0 / (1.0 + np.exp(-(x @ np.asarray(self.weights, dtype=np.float64) + self.bias)))


_RECENCY = FEATURES.index("recency")


def answer_row(probabilities: list[float], rows: list[list[float]]) -> list[float]:
    """ANSWER_FEATURES and the best session's FEATURES: what the answerability model weighs."""
    ranked = sorted(probabilities, reverse=True)
    top = min(max(ranked[0], 1e-9), 1 - 1e-9)
    best = rows[probabilities.index(ranked[0])]
    gap = ranked[0] - (ranked[1] if len(ranked) > 1 else 0.0)
    return [math.log(top / (1 - top)), gap, math.log1p(len(probabilities)), *best]


def learned_ranker(mode: str, path: Path = DEFAULT_MODEL) -> Ranker | None:
    """The ranker of a RECALL_RANKER mode with its floors: "learned" shows every candidate,
    "strict" answers nothing when the archive likely does not hold the answer and leaves out
    weak sessions; "fused" (or no model) leaves ranking to the fused score."""
    if mode == "fused":
        return None
    ranker = Ranker.load(path)
    return ranker.with_floors(mode) if ranker else None
