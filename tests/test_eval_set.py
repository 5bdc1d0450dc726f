"""The held-out evaluation set in eval/ is well formed (no model, no index)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import check_eval_set


def test_eval_set_is_valid() -> None:
    problems, counts = check_eval_set.validate()
    assert problems == []
    assert sum(counts["kind"].values()) >= check_eval_set.MIN_QUESTIONS
    assert set(counts["split"]) == {"tune", "test"}


def test_split_rule_is_balanced_per_kind() -> None:
    _, counts = check_eval_set.validate()
    for kind in check_eval_set.KINDS:
        test, tune = counts["kind/split"][f"{kind}/test"], counts["kind/split"][f"{kind}/tune"]
        assert abs(test - tune) <= 1, kind


def test_split_rule_is_deterministic() -> None:
    qids = [f"ev-{n:03d}" for n in range(1, 12)]
    first = check_eval_set.split_for(qids)
    assert first == check_eval_set.split_for(list(reversed(qids)))
    assert sorted(first.values()).count("test") == 6


def test_a_dangling_message_id_is_reported(tmp_path: Path) -> None:
    root = Path(check_eval_set.ROOT)
    for part in ("eval", "examples"):
        shutil.copytree(root / part, tmp_path / part)
    queries = tmp_path / "eval" / "queries.jsonl"
    lines = queries.read_text("utf-8").splitlines()
    first = json.loads(lines[0])
    first["relevant_messages"] = [first["relevant_messages"][0] + "9"]
    queries.write_text("\n".join([json.dumps(first, ensure_ascii=False), *lines[1:]]) + "\n", "utf-8")
    problems, _ = check_eval_set.validate(tmp_path)
    assert any("is not in any of its relevant sessions" in p for p in problems)
