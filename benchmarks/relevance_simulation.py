"""Memory relevance over a simulated 90 days: decay, boosts on use, and what pruning would take.

    python -m benchmarks.relevance_simulation [--out docs/relevance]

Deterministic: a fixed start time and a moved clock, no randomness. It drives the service's own
relevance code (api/service/relevance.py over the SQLite store of indexer/stores/relevance.py, with the math of
search/relevance.py) on a scratch data directory: each use is a real boost written to the store,
and each point of the plot a real lazy read. Writes relevance-simulation.png and .json to --out.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
from pathlib import Path

from api.service.relevance import MemoryRelevance
from api.settings import Settings
from benchmarks.plot_scale import COLORS, Canvas
from indexer import DataDir
from indexer.stores.relevance import RelevanceStore
from models import Memory
from search.relevance import DAY_SECONDS, Scored, to_prune

START = 1_767_225_600.0  # 2026-01-01T00:00:00Z
DAYS = 90
SAMPLES_PER_DAY = 4
KEEP = 3  # the pruning limit shown at the end

# name -> (confidence at extraction, days on which a search or recovery used the memory)
PATTERNS: dict[str, tuple[float, list[float]]] = {
    "never used": (0.9, []),
    "used daily in week 1": (0.9, [float(d) for d in range(1, 8)]),
    "used weekly": (0.6, [float(d) for d in range(7, DAYS + 1, 7)]),
    "used every 30 days": (0.6, [30.0, 60.0, 90.0]),
    "used once on day 45": (0.9, [45.0]),
}


def simulate(settings: Settings) -> dict[str, list[tuple[float, float]]]:
    """Relevance of each pattern's memory, sampled SAMPLES_PER_DAY times a day (after that
    moment's uses)."""
    data = DataDir(settings.home).ensure()
    clock = [START]
    relevance = MemoryRelevance(data, settings, ingestor=lambda: None,  # type: ignore[arg-type,return-value]
                                clock=lambda: clock[0])
    ids = {name: f"sim:mem:{n:012d}" for n, name in enumerate(PATTERNS)}
    with RelevanceStore(data) as store:
        store.register([Memory(id=ids[name], session_id="sim", type="user", text=name,
                               confidence=confidence)
                        for name, (confidence, _) in PATTERNS.items()], START)
    uses = sorted((day, name) for name, (_, days) in PATTERNS.items() for day in days)
    series: dict[str, list[tuple[float, float]]] = {name: [] for name in PATTERNS}
    steps = DAYS * SAMPLES_PER_DAY
    for step in range(steps + 1):
        day = step / SAMPLES_PER_DAY
        clock[0] = START + day * DAY_SECONDS
        while uses and uses[0][0] <= day:
            _, name = uses.pop(0)
            relevance.boost([ids[name]])
        now = relevance.current(list(ids.values()))
        for name in PATTERNS:
            series[name].append((day, now[ids[name]]))
    return series


def plot(series: dict[str, list[tuple[float, float]]], settings: Settings, out: Path) -> None:
    canvas = Canvas(900, 420)
    left, top, right, bottom = 60, 40, 640, 360

    def at(day: float, value: float) -> tuple[float, float]:
        return left + day / DAYS * (right - left), bottom - value * (bottom - top)

    canvas.text(left, 12, f"memory relevance over {DAYS} simulated days (decay "
                f"{settings.relevance_decay_rate}/day toward floor {settings.relevance_floor}, "
                f"boost {settings.relevance_boost})")
    canvas.line(left, bottom, right, bottom, (0, 0, 0))
    canvas.line(left, top, left, bottom, (0, 0, 0))
    for tenth in range(0, 11, 2):
        _, y = at(0, tenth / 10)
        canvas.line(left - 3, y, right, y, (225, 225, 225))
        canvas.text(left - 30, round(y) - 3, f"{tenth / 10:.1f}")
    _, floor_y = at(0, settings.relevance_floor)
    for x in range(left, right, 6):  # the floor, dashed
        canvas.line(x, floor_y, x + 2, floor_y, (120, 120, 120))
    for day in range(0, DAYS + 1, 15):
        x, _ = at(day, 0)
        canvas.line(x, bottom, x, bottom + 4, (0, 0, 0))
        canvas.text(round(x) - 6, bottom + 8, str(day))
    canvas.text(left, bottom + 24, "x days, y relevance, dashed line the floor")
    for n, (name, points) in enumerate(series.items()):
        color = COLORS[n % len(COLORS)]
        for (xa, ya), (xb, yb) in itertools.pairwise(points):
            canvas.line(*at(xa, ya), *at(xb, yb), color, 2)
        canvas.line(right + 20, top + 8 + n * 16, right + 36, top + 8 + n * 16, color, 2)
        canvas.text(right + 42, top + 5 + n * 16, name)
    out.write_bytes(canvas.png())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("docs/relevance"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        settings = Settings.from_env({"RECALL_HOME": home})  # the default policy
        series = simulate(settings)
    final = {name: points[-1][1] for name, points in series.items()}
    pruned = to_prune([Scored(name, value, None) for name, value in final.items()], KEEP)
    result = {
        "days": DAYS, "samples_per_day": SAMPLES_PER_DAY,
        "policy": {"decay_rate": settings.relevance_decay_rate, "floor": settings.relevance_floor,
                   "boost": settings.relevance_boost},
        "patterns": {name: {"confidence": c, "used_on_days": days}
                     for name, (c, days) in PATTERNS.items()},
        "relevance": {name: {f"day {d}": round(dict(points)[float(d)], 4)
                             for d in (0, 7, 14, 30, 45, 60, 90)}
                      for name, points in series.items()},
        "peak": {name: round(max(v for _, v in points), 4) for name, points in series.items()},
        f"pruned_at_day_{DAYS}_keeping_{KEEP}": [s.memory_id for s in pruned],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    plot(series, settings, args.out / "relevance-simulation.png")
    (args.out / "relevance-simulation.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
