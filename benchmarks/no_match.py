"""Honest "no match": how many nonsense queries return nothing, per mode, on built indexes.

    python benchmarks/no_match.py HOME [HOME ...] [--embedder e5] [--model-cache DIR]

Each HOME is a recall data dir built by `recall index` (e.g. the ones benchmarks/retrieval.py
builds under its --home). A query about something the archive does not hold should get an
empty answer, not the least bad sessions.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api import RecallService, Settings
from models import SearchRequest

NONSENSE = (
    "xylophone quasar zebra", "量子纠缠望远镜", "asdf qwer zxcv", "purple elephants dancing on mars",
    "如何饲养企鹅", "recipe for banana bread", "the", "火星上的紫色大象",
    "quantum chromodynamics lattice simulation", "what is the capital of France", "我昨天吃了什么",
    "how to train a parrot to sing", "北极熊的寿命有多长", "lorem ipsum dolor sit amet",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("homes", nargs="+", type=Path)
    parser.add_argument("--embedder", default="e5")
    parser.add_argument("--model-cache", type=Path)
    args = parser.parse_args()
    print(f"{'archive':<40}{'mode':<9}returns nothing  answered")
    for home in args.homes:
        service = RecallService(Settings.from_env(home=str(home), embedder=args.embedder,
                                                  model_cache=args.model_cache))
        for mode in ("keyword", "vector", "hybrid"):
            answered = [q for q in NONSENSE if service.search(SearchRequest(query=q, mode=mode)).results]
            print(f"{home!s:<40}{mode:<9}{len(NONSENSE) - len(answered):>2}/{len(NONSENSE)}"
                  f"            {', '.join(answered)}")


if __name__ == "__main__":
    main()
