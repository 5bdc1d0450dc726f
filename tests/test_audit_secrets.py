"""Secrets older rules let through: `recall audit-secrets` finds them in what is stored, and
--apply re-redacts them through the crash-safe path and purges, leaving no file that holds
them; `recall redact --check` shows what the rules find in a file of one's own."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgspec

from api import RecallService
from api.service.secrets import audit_secrets
from models import SearchRequest

from .helpers import SESSIONS, agreement, make_service

# a Hugging Face token of the shape the rules learned late (letters only, no digit)
TOKEN = "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"


def _as_if_stored_by_older_rules(service: RecallService) -> str:
    """Put the token into an archived session, as a redactor that did not know it would have
    stored it, and index that archive as it is."""
    path = next(service.data.archive.rglob("t-en-errors.json"))
    record = json.loads(path.read_text("utf-8"))
    record["messages"][0]["content"] += f" (HF_TOKEN was {TOKEN})"
    path.write_text(json.dumps(record, ensure_ascii=False), "utf-8")
    service.maintenance.reindex()
    return str(path.relative_to(service.data.root))


def _files_holding(root: Path, needle: bytes) -> list[str]:
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
            and needle in p.read_bytes()]


def test_audit_finds_and_apply_re_redacts_and_purges(tmp_path: Path) -> None:
    service = make_service(tmp_path / "home")
    service.index([SESSIONS])
    stored = _as_if_stored_by_older_rules(service)
    assert stored in _files_holding(service.data.root, TOKEN.encode())

    found = audit_secrets(service.data, service.ingestor)
    assert found.dry_run and [f.path for f in found.found] == [stored]
    assert found.found[0].secrets == {"huggingface_token": 1}
    assert TOKEN.encode() not in msgspec.json.encode(found)  # the report never holds it

    applied = audit_secrets(service.data, service.ingestor, apply=True)
    assert applied.sessions_rewritten == 1 and applied.purged
    assert _files_holding(service.data.root, TOKEN.encode()) == []
    assert not audit_secrets(service.data, service.ingestor).found
    assert "[REDACTED:huggingface_token]" in service.session("t-en-errors").messages[0].content
    secret_part = TOKEN.removeprefix("hf_")  # "HF_TOKEN" beside it still matches "hf"
    assert not service.search(SearchRequest(query=secret_part, mode="keyword")).results
    agreement(service)
    assert service.maintenance.check().ok


def test_redact_check_shows_lines_without_the_secrets(recall, tmp_path: Path) -> None:
    config = tmp_path / "app.env"
    config.write_text(f"DEBUG=true\nHF_TOKEN={TOKEN}\n数据库密码：天空Blue2024x\n", "utf-8")
    out = json.loads(recall("redact", str(config), "--check", "--json").stdout)
    assert [line["line"] for line in out["lines"]] == [2, 3]
    assert TOKEN not in json.dumps(out) and "天空Blue2024x" not in json.dumps(out)
    assert out["secrets"] == 2
    shown = recall("redact", str(config), "--check")
    assert "app.env:2: HF_TOKEN=[REDACTED:huggingface_token]" in shown.stdout
    assert "2 secrets in 2 lines" in shown.stderr
    assert config.read_text("utf-8").count(TOKEN) == 1  # the file is left as it was


def test_audit_reaches_todos_and_pruned_memories(tmp_path: Path) -> None:
    """Rows outside the archive keep text too: a todo and a pruned memory's tombstone."""
    service = make_service(tmp_path / "home")
    service.index([SESSIONS])
    todo = service.todos.add(f"rotate the key {TOKEN}")  # stored redacted by today's rules ...
    with sqlite3.connect(service.data.state_db) as db:  # ... older ones let it through
        db.execute("UPDATE todos SET content = ?", (f"rotate the key {TOKEN}",))
    with sqlite3.connect(service.data.root / "relevance.sqlite3") as db:
        db.execute("INSERT INTO pruned VALUES (?, ?, ?, ?, ?, ?)",
                   ("t-en-errors:mem:old", "t-en-errors", "reference", f"token {TOKEN}", 0.1, 0))
    found = audit_secrets(service.data, service.ingestor)
    rows = sorted((f.path, f.row.split("/")[0]) for f in found.found if f.row)
    assert rows == [("relevance.sqlite3", "pruned"), ("state.sqlite3", "todos")]
    applied = audit_secrets(service.data, service.ingestor, apply=True)
    assert applied.files_rewritten == 2 and applied.purged
    assert _files_holding(service.data.root, TOKEN.encode()) == []
    assert "[REDACTED:huggingface_token]" in service.todos.get(todo.id).content
