"""The archive's file formats do not change with the wire: sessions and snapshots are snake_case
records everywhere recall speaks, and camelCase files on disk (models/files.py), read and
written the same way as before."""

from __future__ import annotations

import json

import msgspec

from models import Retention, parse_session
from models.files import decode_session, encode_session, encode_snapshot, from_either
from models.snapshot import parse_snapshot

from .snapshot_data import EN_B

# an archive file as recall wrote it before the wire became snake_case (trimmed, imported, live)
STORED = {
    "sessionId": "t-files", "date": "2026-03-01",
    "messages": [{"id": "t-files-m1", "role": "user", "content": "hello", "time": "2026-03-01"}],
    "archivedAt": "2026-03-02T10:00:00Z",
    "retention": {"tier": "summary", "trimmedAt": "2026-06-01T00:00:00Z", "messageCount": 40,
                  "lastActivity": "2026-03-02"},
    "status": "archived",
    "statusHistory": [{"status": "active", "at": "2026-03-01T09:00:00Z"},
                      {"status": "archived", "at": "2026-03-02T10:00:00Z"}],
    "origin": {"agent": "codex", "id": "abc", "cwd": "/home/lin/code"},
}


def test_an_archive_file_reads_and_writes_back_byte_for_byte_in_its_own_shape() -> None:
    data = msgspec.json.format(msgspec.json.encode(STORED), indent=1)
    session = decode_session(data)
    assert session.session_id == "t-files" and session.retention is not None
    assert session.retention.trimmed_at == "2026-06-01T00:00:00Z"
    assert encode_session(session) == data
    wire = msgspec.to_builtins(session)
    assert {"session_id", "archived_at", "status_history"} <= set(wire)
    assert set(wire["retention"]) == {"tier", "trimmed_at", "message_count", "last_activity"}


def test_records_take_either_casing_as_input() -> None:
    stored = parse_session(STORED)
    answered = parse_session(msgspec.json.decode(msgspec.json.encode(stored)))  # an answer, sent back
    assert stored == answered == decode_session(encode_session(stored))
    assert from_either(STORED["retention"], Retention) == stored.retention


def test_a_snapshot_file_keeps_the_seed_shape() -> None:
    on_disk = json.loads(encode_snapshot(EN_B))
    assert {"sessionId", "createdAt", "tokenCount"} <= set(on_disk)
    assert "relatedIntentIds" in on_disk["tasks"][0]
    assert parse_snapshot(on_disk) == EN_B == parse_snapshot(msgspec.to_builtins(EN_B))
