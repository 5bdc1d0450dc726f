"""The coding-agent retrieval set in eval/agents/ is well formed (no model, no index)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import check_agents_eval


def test_agents_eval_set_is_valid() -> None:
    problems, counts = check_agents_eval.validate()
    assert problems == []
    assert sum(counts["kind"].values()) - counts["kind"]["no_answer"] >= check_agents_eval.MIN_ANSWERABLE
    assert set(counts["split"]) == {"tune", "test"}


def test_split_is_balanced_within_each_group() -> None:
    _, counts = check_agents_eval.validate()
    groups = {key.rsplit("/", 1)[0] for key in counts["group/split"]}
    for group in groups:
        test, tune = counts["group/split"][f"{group}/test"], counts["group/split"][f"{group}/tune"]
        assert 0 <= test - tune <= 1, group


def _copy(tmp_path: Path) -> Path:
    root = Path(check_agents_eval.ROOT)
    shutil.copytree(root / "eval" / "agents", tmp_path / "eval" / "agents")
    shutil.copytree(root / "tests" / "data" / "real", tmp_path / "tests" / "data" / "real")
    return tmp_path / "eval" / "agents" / "queries.jsonl"


def _rewrite_first(queries: Path, change) -> None:
    lines = queries.read_text("utf-8").splitlines()
    first = json.loads(lines[0])
    change(first)
    queries.write_text("\n".join([json.dumps(first, ensure_ascii=False), *lines[1:]]) + "\n", "utf-8")


def test_a_message_of_another_session_is_reported(tmp_path: Path) -> None:
    queries = _copy(tmp_path)
    _rewrite_first(queries, lambda q: q.update(relevant_messages=["aider-aider-2024-08-05T19-33-32/m2"]))
    problems, _ = check_agents_eval.validate(tmp_path)
    assert any("is not in any of its relevant sessions" in p for p in problems)


def test_a_split_against_the_rule_is_reported(tmp_path: Path) -> None:
    queries = _copy(tmp_path)
    _rewrite_first(queries, lambda q: q.update(split="tune" if q["split"] == "test" else "test"))
    problems, _ = check_agents_eval.validate(tmp_path)
    assert any("the rule gives" in p for p in problems)
