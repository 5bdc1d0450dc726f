"""The synthetic archive generator: deterministic, and what it writes ingests cleanly."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from .helpers import make_service

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import generate_archive


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.json")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def test_same_seed_same_bytes_and_prefix_stable(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    assert generate_archive.main(["--sessions", "30", "--out", str(a)]) == 0
    generate_archive.main(["--sessions", "30", "--out", str(b)])
    generate_archive.main(["--sessions", "40", "--out", str(c), "--seed", "7"])
    assert _digest(a) == _digest(b)
    assert {p.name for p in a.rglob("*.json")} < {p.name for p in c.rglob("*.json")}
    assert all(p.parent.name[:4].isdigit() and p.parent.name[4] == "-" for p in a.rglob("*.json"))
    text = "".join(p.read_text("utf-8") for p in a.rglob("*.json"))
    assert any("\u4e00" <= ch <= "\u9fff" for ch in text) and "the" in text


def test_output_ingests_and_touch_changes_one_percent(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    written = list(generate_archive.generate(archive, 50))
    service = make_service(tmp_path / "home")
    report = service.index([archive])
    assert report.indexed == 50 and not report.rejected
    assert report.messages == sum(n for _, n in written)
    changed = generate_archive.touch(archive, 50, 0.02)
    assert len(changed) == 1
    again = service.index([archive])
    assert (again.indexed, again.unchanged) == (1, 49)
