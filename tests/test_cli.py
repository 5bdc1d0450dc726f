"""The `recall` command end to end on the hash embedder: in-process through the `recall`
fixture, and once as a real process through the installed entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import BAD, JSONL, ROOT, SESSIONS


def test_the_entry_point_as_a_real_process(tmp_path: Path) -> None:
    """The one test that runs `python -m api.cli` as a separate process (index, search --json,
    show, stats), so the real path stays proven: the module entry point, the exit status and
    the output streams of a fresh interpreter. Every other CLI test runs `main` in-process."""
    env = {**os.environ, "RECALL_HOME": str(tmp_path / "home"), "RECALL_EMBEDDER": "hash"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "api.cli", *args], check=False, cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=120)

    indexed = run("index", str(SESSIONS), str(BAD), "--json")
    assert indexed.returncode == 0, indexed.stderr
    report = json.loads(indexed.stdout)
    assert report["indexed"] == 6 and {r["path"] for r in report["rejected"]} == {
        str(p) for p in BAD.iterdir()}
    found = run("search", "升级", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["session_id"] == "t-zh-upgrade"
    shown = run("show", "t-en-errors")
    assert shown.returncode == 0 and "ERR_CONNECTION_REFUSED" in shown.stdout, shown.stderr
    stats = run("stats", "--json")
    assert stats.returncode == 0 and json.loads(stats.stdout)["sessions"] == 6, stats.stderr
    missing = run("show", "no-such-session")
    assert missing.returncode == 1 and missing.stderr.strip() == "recall: no session 'no-such-session'"


def test_an_empty_folder_is_nothing_to_do_and_a_bad_one_fails(recall, tmp_path: Path) -> None:
    (tmp_path / "inbox").mkdir()
    empty = recall("index", str(tmp_path / "inbox"))
    assert empty.returncode == 0 and "no transcript files found" in empty.stderr
    assert recall("index", str(tmp_path / "inbox"), str(tmp_path / "nope"), ok=False).returncode == 1
    assert recall("index", str(BAD), ok=False).returncode == 1  # every file rejected


def test_cli_end_to_end(recall) -> None:
    report = json.loads(recall("index", str(SESSIONS), str(JSONL), str(BAD), "--json").stdout)
    assert report["indexed"] == 7 and report["unchanged"] == 0
    assert {r["path"] for r in report["rejected"]} == {str(p) for p in BAD.iterdir()}
    assert all(r["reason"] for r in report["rejected"])
    assert recall("index", str(SESSIONS), str(BAD), "--strict", ok=False).returncode == 1

    out = json.loads(recall("search", "升级", "--json").stdout)
    assert out["query"] == "升级"
    top = out["results"][0]
    assert top["session_id"] == "t-zh-upgrade"
    assert set(top) >= {"session_id", "date", "channel", "score", "messages"}
    assert set(top["messages"][0]) >= {"id", "role", "time", "snippet", "score"}

    filtered = json.loads(recall("search", "postgres", "--date", "2026-03", "--channel", "cli", "--json").stdout)
    assert [r["session_id"] for r in filtered["results"]] == ["t-secrets"]

    human = recall("search", "ERR_CONNECTION_REFUSED").stdout
    assert "t-en-errors" in human and "**ERR_CONNECTION_REFUSED**" in human
    assert "no match" in recall("search", "xylophone quasar").stdout

    shown = json.loads(recall("show", "t-en-errors", "--json").stdout)
    assert shown["session_id"] == "t-en-errors" and len(shown["messages"]) == 5
    budget = json.loads(recall("show", "t-en-errors", "--token-budget", "40", "--json").stdout)
    assert 0 < len(budget["messages"]) < 5 and budget["omitted_messages"] == 5 - len(budget["messages"])
    assert budget["messages"][-1]["id"] == "t-en-errors-m5"  # the newest ones are kept
    assert "REDACTED" in recall("show", "t-secrets").stdout

    stats = json.loads(recall("stats", "--json").stdout)
    assert stats["sessions"] == 7 and stats["index"]["embedder"] == "hash-512"

    assert recall("delete", "t-en-errors").returncode == 0
    assert json.loads(recall("search", "ERR_CONNECTION_REFUSED", "--json").stdout)["results"] == []
    gone = recall("show", "t-en-errors", ok=False)
    assert gone.returncode == 1 and "no session 't-en-errors'" in gone.stderr

    assert json.loads(recall("reindex", "--json").stdout)["indexed"] == 6
    assert json.loads(recall("search", "升级", "--json").stdout)["results"][0]["session_id"] == "t-zh-upgrade"


def test_batch_search(recall) -> None:
    recall("index", str(SESSIONS))
    lines = "\n".join(json.dumps(q, ensure_ascii=False) for q in [
        {"qid": "a", "query": "数据库"},
        {"qid": "b", "query": "postgres", "channel": "cli", "mode": "keyword", "limit": 1},
        {"qid": "c", "query": "postgres", "date": "2026-13-01"},
        {"qid": "d", "query": "postgres", "strict": "yes"},
        {"qid": "e", "query": "postgres", "when": "later"},
        {"qid": "f", "query": "postgres", "when": "current"},
    ])
    proc = recall("search", "--batch", "-", "--json", stdin=lines, ok=False)
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o["qid"] for o in out] == ["a", "b", "c", "d", "e", "f"]
    assert out[3]["error"] == "'strict' must be true or false"
    assert out[4]["error"] == "'when' must be one of current, history (got 'later')"
    assert out[5]["results"]
    assert out[0]["results"][0]["session_id"] == "t-zh-upgrade"
    assert [r["session_id"] for r in out[1]["results"]] == ["t-secrets"]
    assert "not a real date" in out[2]["error"]
    assert proc.returncode == 1


@pytest.mark.parametrize("args,message", [
    (["search", "x", "--since", "yesterday"], "cannot read date"),
    (["search", "x", "--limit", "0"], "limit must be between"),
    (["show", "../../etc/passwd"], "no session"),
    (["search", "x"], "nothing is indexed"),
    (["index", "/no/such/folder"], "no such file or folder"),
])
def test_cli_errors_are_clear(recall, args: list[str], message: str) -> None:
    proc = recall(*args, ok=False)
    assert proc.returncode == 1
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_snapshots_and_recover(recall, tmp_path: Path) -> None:
    folder = tmp_path / "snapshots" / "t-zh-upgrade"
    folder.mkdir(parents=True)
    full = {"id": "snap-a", "sessionId": "t-zh-upgrade", "createdAt": "2026-03-29T20:00:00+08:00",
            "description": "升级 OpenClaw 前的状态",
            "intents": [{"id": "i1", "description": "升级 OpenClaw 并整理记忆系统", "confidence": 0.9,
                         "fulfilled": False, "createdAt": "2026-03-29T20:00:00+08:00"}],
            "facts": [{"id": "f1", "statement": "最后决定用Postgres数据库", "category": "decision",
                       "confidence": 0.9, "active": True, "createdAt": "2026-03-29T20:00:00+08:00"}],
            "tasks": [{"id": "t1", "description": "备份配置目录, password: hunter2-blue", "status": "pending",
                       "priority": "high", "relatedIntentIds": ["i1"], "dependencies": [],
                       "createdAt": "2026-03-29T20:00:00+08:00", "updatedAt": "2026-03-29T20:00:00+08:00"}],
            "context": "升级前先备份。", "tokenCount": 0}
    empty = {"id": "snap-b", "sessionId": "t-zh-upgrade", "createdAt": "2026-03-29T22:00:00+08:00",
             "description": "", "intents": [], "facts": [], "tasks": [], "context": ""}
    (folder / "snap-a.json").write_text(json.dumps(full, ensure_ascii=False))
    (folder / "snap-b.json").write_text(json.dumps(empty))
    report = json.loads(recall("index", str(SESSIONS), str(tmp_path / "snapshots"), "--json").stdout)
    assert report["indexed"] == 6 and report["snapshots"] == 2 and report["redacted"]["password"] >= 1

    listed = json.loads(recall("snapshots", "t-zh-upgrade", "--json").stdout)
    assert [s["id"] for s in listed["snapshots"]] == ["snap-a", "snap-b"]
    assert "hunter2" not in json.dumps(listed)

    decision = json.loads(recall("recover", "t-zh-upgrade", "--json").stdout)
    assert decision["selected_snapshot"]["id"] == "snap-a"  # the newest one is empty
    assert set(decision) >= {"selected_snapshot", "confidence", "reasons", "alternatives", "strategy"}
    assert decision["alternatives"][0]["snapshot_id"] == "snap-b"
    assert "resume from snap-a" in recall("recover", "t-zh-upgrade", "--context", "继续升级").stdout

    missing = recall("recover", "t-en-errors", ok=False)
    assert missing.returncode == 1 and "has no snapshots" in missing.stderr
    recall("delete", "t-zh-upgrade")
    assert json.loads(recall("snapshots", "t-zh-upgrade", "--json").stdout)["snapshots"] == []


def test_memories_snapshot_and_digest(recall) -> None:
    recall("index", str(SESSIONS))
    out = json.loads(recall("memories", "t-zh-upgrade", "--json").stdout)
    assert out["session_id"] == "t-zh-upgrade"
    texts = {m["type"]: m["text"] for m in out["memories"]}
    assert any("Postgres" in m["text"] for m in out["memories"] if m["type"] == "project")
    assert all(set(m) >= {"id", "type", "text", "confidence", "source_message_ids", "entities"}
               for m in out["memories"])
    assert texts
    only = json.loads(recall("memories", "t-zh-upgrade", "--types", "project", "--json").stdout)
    assert {m["type"] for m in only["memories"]} == {"project"}
    secrets = json.dumps(json.loads(recall("memories", "t-secrets", "--json").stdout))
    assert "hunter2" not in secrets and "S3cretPassw0rd" not in secrets
    bad = recall("memories", "t-zh-upgrade", "--types", "gossip", ok=False)
    assert bad.returncode == 1 and "gossip" in bad.stderr

    saved = json.loads(recall("snapshot", "t-zh-upgrade", "--json").stdout)
    assert saved["session_id"] == "t-zh-upgrade" and saved["facts"]
    listed = json.loads(recall("snapshots", "t-zh-upgrade", "--json").stdout)
    assert [s["id"] for s in listed["snapshots"]] == [saved["id"]]
    assert json.loads(recall("recover", "t-zh-upgrade", "--json").stdout)["selected_snapshot"]["id"] == saved["id"]

    digest = json.loads(recall("digest", "--period", "month", "--date", "2026-03-15", "--json").stdout)
    assert (digest["start"], digest["end"]) == ("2026-03-01", "2026-03-31")
    assert digest["sessions"] == 2  # t-zh-upgrade and t-secrets
    assert {"OpenClaw", "记忆系统"} <= {t["topic"] for t in digest["topics"]}
    assert [a["date"] for a in digest["activity"]] == ["2026-03-29", "2026-03-05"]
