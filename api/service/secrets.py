"""Secrets in data already stored: find what the current redaction rules would redact in the
archive, the versions writes replaced, the snapshots, the quarantine, todos and pruned
memories' tombstones (rules grow;
older data was redacted by older ones), and with `apply`, re-redact it through the normal
crash-safe path, then purge, so that no index generation, database page or log keeps the text
(`recall audit-secrets`)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from indexer.stores.layout import DataDir, atomic_write
from indexer.stores.lock import WriterLock
from indexer.stores.sqlite import connect, transaction
from indexer.text.redact import redact_text, redact_value
from models import Memory, Session

if TYPE_CHECKING:
    from indexer.ingest.ingestor import Ingestor

__all__ = ["AuditReport", "audit_secrets", "check_file"]


class AuditedFile(msgspec.Struct):
    """A stored file holding text the current rules redact: where, and how many of each kind
    (never the text itself)."""

    path: str  # relative to the data directory
    secrets: dict[str, int]
    session_id: str | None = None
    row: str | None = None  # in a database: "<table>/<key>"


class AuditReport(msgspec.Struct):
    dry_run: bool
    files_scanned: int
    found: list[AuditedFile]
    by_kind: dict[str, int]
    sessions_rewritten: int = 0  # with apply: archived sessions re-redacted and re-indexed
    files_rewritten: int = 0  # with apply: snapshots, quarantined files and rows re-redacted
    purged: bool = False  # with apply: older index generations and free pages gone


def audit_secrets(data: DataDir, ingestor: Callable[[], Ingestor], *,
                  apply: bool = False) -> AuditReport:
    found: list[AuditedFile] = []
    scanned = 0
    for kind, path in _stored_files(data):
        scanned += 1
        counts = _counts(path, kind)
        if counts:
            session_id = path.stem if kind == "archive" else None
            found.append(AuditedFile(str(path.relative_to(data.root)), dict(counts), session_id))
    for db, table, key_column, text_column in _TEXT_ROWS:
        for key, text in _rows(data.root / db, table, key_column, text_column):
            scanned += 1
            counts = redact_text(text)[1]
            if counts:
                found.append(AuditedFile(db, dict(counts), row=f"{table}/{key}"))
    by_kind: Counter[str] = Counter()
    for item in found:
        by_kind.update(item.secrets)
    report = AuditReport(not apply, scanned, found, dict(by_kind))
    if not apply or not found:
        return report
    sessions = [f.session_id for f in found if f.session_id]
    rewritten = ingestor().rewrite(sessions, _redacted_session).indexed if sessions else 0
    others = 0
    for item in found:
        if item.session_id is None and item.row is None:
            _redact_file(data.root / item.path)
            others += 1
    rows = [item for item in found if item.row is not None]
    if rows:
        with WriterLock(data.lock_file):
            _redact_rows(data, rows)
        others += len(rows)
    ingestor().purge()  # rewrites both databases too: the old row text leaves no free page
    return msgspec.structs.replace(report, sessions_rewritten=rewritten, files_rewritten=others,
                                   purged=True)


def _stored_files(data: DataDir) -> Iterator[tuple[str, Path]]:
    """Every stored file that keeps conversation text in the open: (kind, path)."""
    for kind, root, pattern in (("archive", data.archive, "*.json"),
                                ("snapshot", data.root / "snapshots", "*.json"),
                                ("replaced", data.root / "replaced", "*.json"),
                                ("quarantine", data.quarantine, "*")):
        if root.exists():
            yield from ((kind, p) for p in sorted(root.rglob(pattern)) if p.is_file())


# Database rows that keep text in the open: (database, table, key column, text column).
_TEXT_ROWS = (("state.sqlite3", "todos", "id", "content"),
              ("relevance.sqlite3", "pruned", "memory_id", "text"))


def _rows(db: Path, table: str, key_column: str, text_column: str) -> list[tuple[str, str]]:
    if not db.exists():
        return []
    conn = connect(db)
    try:
        exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                              (table,)).fetchone()
        if not exists:
            return []
        return conn.execute(f"SELECT {key_column}, {text_column} FROM {table}").fetchall()
    finally:
        conn.close()


def _redact_rows(data: DataDir, rows: list[AuditedFile]) -> None:
    for db, table, key_column, text_column in _TEXT_ROWS:
        keys = [item.row.split("/", 1)[1] for item in rows
                if item.path == db and item.row and item.row.startswith(f"{table}/")]
        if not keys:
            continue
        conn = connect(data.root / db)
        try:
            with transaction(conn):
                for key in keys:
                    row = conn.execute(f"SELECT {text_column} FROM {table} WHERE "
                                       f"{key_column} = ?", (key,)).fetchone()
                    if row is not None:  # (gone since the scan)
                        conn.execute(f"UPDATE {table} SET {text_column} = ? WHERE "
                                     f"{key_column} = ?", (redact_text(row[0])[0], key))
        finally:
            conn.close()


def _counts(path: Path, kind: str) -> Counter[str]:
    text = path.read_text("utf-8", errors="replace")
    if kind != "quarantine":
        try:
            return redact_value(json.loads(text))[1]
        except json.JSONDecodeError:
            pass  # a damaged file: read as text (`recall check` reports it)
    return redact_text(text)[1]


def _redacted_session(session: Session, memories: list[Memory]) -> Session | None:
    redacted, counts = redact_value(msgspec.to_builtins(session))
    return msgspec.convert(redacted, Session) if counts else None


def _redact_file(path: Path) -> None:
    text = path.read_text("utf-8", errors="replace")
    try:
        value: Any = json.loads(text)
    except json.JSONDecodeError:
        atomic_write(path, redact_text(text)[0].encode())
        return
    atomic_write(path, json.dumps(redact_value(value)[0], ensure_ascii=False, indent=1).encode())


class FileCheck(msgspec.Struct):
    """What redaction would do to one file: each line that changes, redacted."""

    path: str
    secrets: int
    by_kind: dict[str, int]
    lines: list[CheckedLine]


class CheckedLine(msgspec.Struct):
    line: int
    kinds: list[str]
    redacted: str  # the line with each secret replaced by its marker


def check_file(path: Path, max_bytes: int) -> FileCheck:
    """`recall redact --check FILE`: what the current rules find, line by line, without the
    secrets themselves."""
    if path.stat().st_size > max_bytes:
        from models import PayloadTooLarge

        raise PayloadTooLarge(f"{path} is over {max_bytes // 1_000_000} MB (RECALL_MAX_FILE_MB)")
    lines = []
    total: Counter[str] = Counter()
    for number, line in enumerate(path.read_text("utf-8", errors="replace").splitlines(), 1):
        redacted, counts = redact_text(line)
        if counts:
            total.update(counts)
            lines.append(CheckedLine(number, sorted(counts), redacted))
    return FileCheck(str(path), sum(total.values()), dict(total), lines)
