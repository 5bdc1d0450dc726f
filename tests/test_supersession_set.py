"""The supersession set in eval/supersession/ is well formed (no model, no index)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import check_supersession_set as check

BASE = Path(check.ROOT) / "eval" / "supersession"


def _lines(name: str) -> list[dict]:
    return [json.loads(line) for line in (BASE / name).read_text("utf-8").splitlines()]


def _copy(tmp_path: Path) -> Path:
    for part in ("eval", "examples"):
        shutil.copytree(Path(check.ROOT) / part, tmp_path / part)
    return tmp_path / "eval" / "supersession"


def _rewrite(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


def test_supersession_set_is_valid() -> None:
    problems, counts = check.validate()
    assert problems == []
    assert counts["chains"]["all"] >= check.MIN_CHAINS
    assert counts["link kind"]["not_linked"] >= check.MIN_NOT_LINKED
    assert counts["link kind"]["same"] >= check.MIN_SAME
    assert set(counts["chain split"]) == {"tune", "test"}


def test_split_depends_on_the_id_alone() -> None:
    for key in ("ch-marlin-budget", "sl-001", "anything"):
        digit = hashlib.sha256(key.encode()).hexdigest()[0]
        assert check.split_for(key) == ("test" if digit in "01234567" else "tune")


def test_a_chain_and_its_questions_stay_in_one_half() -> None:
    halves: dict[str, set[str]] = defaultdict(set)
    for row in [*_lines("links.jsonl"), *_lines("queries.jsonl")]:
        if row["chain"] is not None:
            halves[row["chain"]].add(row["split"])
    assert halves and all(len(splits) == 1 for splits in halves.values())


def test_a_dangling_message_id_is_reported(tmp_path: Path) -> None:
    base = _copy(tmp_path)
    links = _lines("links.jsonl")
    links[0]["later"] += "9"
    _rewrite(base / "links.jsonl", links)
    problems, _ = check.validate(tmp_path)
    assert any("unknown message" in p for p in problems)


def test_a_backwards_supersession_is_reported(tmp_path: Path) -> None:
    base = _copy(tmp_path)
    links = _lines("links.jsonl")
    first = next(x for x in links if x["kind"] == "supersedes")
    first["later"], first["earlier"] = first["earlier"], first["later"]
    _rewrite(base / "links.jsonl", links)
    problems, _ = check.validate(tmp_path)
    assert any("later is not dated after earlier" in p for p in problems)


def test_a_wrong_split_is_reported(tmp_path: Path) -> None:
    base = _copy(tmp_path)
    queries = _lines("queries.jsonl")
    queries[0]["split"] = "test" if queries[0]["split"] == "tune" else "tune"
    _rewrite(base / "queries.jsonl", queries)
    problems, _ = check.validate(tmp_path)
    assert any(p.startswith(f"{queries[0]['qid']}: split is") for p in problems)
