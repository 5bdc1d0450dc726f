"""Mutated transcripts, per format: every sample of the format (the real ones in tests/data/real
and the fixtures in tests/data/formats) cut short, with lines dropped, shuffled, doubled or
replaced by garbage, keys dropped, values of the wrong type, lone surrogates and bad UTF-8.

Each mutated file must be read or refused with a reason (a RecallError), never end in a
traceback; and when it is read, every record has a fate and the ledger adds up
(indexer/formats/ledger.py). Hypothesis draws the mutations from a seed, derandomized, so a run
is the same run everywhere; 500 per format."""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from indexer.formats.common import FORMAT_NAMES, ImportOptions
from indexer.formats.importer import candidate_files
from indexer.formats.ledger import UNACCOUNTED, Ledger
from indexer.formats.sources import load_database, load_file, normalize
from indexer.formats.zed import messages as zed_messages
from models import RecallError

from .helpers import DAMAGED_FORMAT_FILES, FORMATS, ROOT

REAL = ROOT / "tests" / "data" / "real"
EXAMPLES = 500
MAX_BYTES = 50_000_000
WRONG_VALUES: list[Any] = [None, 0, -1, 1.5, True, "", "x", [], {}, [None], {"x": None},
                           "\ud83d", 10**30]


def _samples(fmt: str) -> list[Path]:
    """The format's fixtures as an import finds them, and every real sample its manifest lists
    (one of them is named as no agent would find it: it is mutated all the same)."""
    damaged = {FORMATS / path for path in DAMAGED_FORMAT_FILES}
    found = [p for p in candidate_files(fmt, [FORMATS / fmt]) if p not in damaged]
    manifest = REAL / fmt / "MANIFEST.json"
    if manifest.exists():
        found += [REAL / fmt / sample["file"]
                  for sample in json.loads(manifest.read_text("utf-8"))["samples"]]
    return sorted(found)


SAMPLES = {fmt: _samples(fmt) for fmt in FORMAT_NAMES}


def test_every_format_has_samples_to_mutate() -> None:
    assert all(SAMPLES.values()), {fmt: len(found) for fmt, found in SAMPLES.items()}


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
# seeds a wider run (2,000 per format) found raising, each on a value of the wrong type: amp's
# `content: true` (two), gemini's `thoughts` true or 0 in a real sample (two), crush's finish
# `reason: {}`
@example(seed=1000237)
@example(seed=7001315)
@example(seed=7001343)
@example(seed=7001057)
@example(seed=7000011)
def test_a_mutated_transcript_is_read_or_refused_never_a_traceback(
        fmt: str, seed: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    rng = random.Random(seed)
    sample = rng.choice(SAMPLES[fmt])
    options = ImportOptions(format=fmt)
    ledger = Ledger()
    try:
        if sample.read_bytes()[:16] == b"SQLite format 3\x00":
            copy = tmp_path_factory.mktemp("db") / sample.name
            shutil.copy(sample, copy)
            _mutate_database(copy, rng)
            raws: list[Any] = load_database(copy, options, ledger)
        else:
            raws = load_file(sample, _mutate_bytes(sample.read_bytes(), rng), MAX_BYTES, options,
                             ledger)
        for raw in raws:
            normalize(raw.record, raw.fallback_id)
    except RecallError:
        return  # refused with its reason: what a bad file should get
    totals = ledger.totals()
    assert UNACCOUNTED not in totals.left_out, (sample, seed)
    assert totals.adds_up(), (sample, seed, totals)


# --- values of the wrong type the fuzz found: each costs at most its record, never the file

def _read_value(sample: Path, value: Any, fmt: str) -> tuple[list[Any], Ledger]:
    ledger = Ledger()
    raws = load_file(sample, json.dumps(value, indent=2).encode(), MAX_BYTES,
                     ImportOptions(format=fmt), ledger)
    assert ledger.totals().adds_up()
    return [normalize(raw.record, raw.fallback_id)[0] for raw in raws], ledger


def test_an_amp_message_whose_content_is_not_a_list_costs_only_that_message() -> None:
    sample = FORMATS / "amp" / "threads" / "T-019cf0a1-2b3c-7d4e-8f50-617283940002.json"
    thread = json.loads(sample.read_text("utf-8"))
    thread["messages"][1]["content"] = True
    (session,), ledger = _read_value(sample, thread, "amp")
    assert [m.role for m in session.messages] == ["user"]
    assert ledger.left_out_reasons() == {"unreadable message (content not a list)": 1}


def test_gemini_thoughts_or_tool_calls_not_a_list_cost_only_themselves() -> None:
    sample = (REAL / "gemini" / "tmp" / "d30f91067027d10192e4aed3e7b03fecf08089dd3370f047f14f38b1845c8042"
              / "chats" / "session-01.json")
    chat = json.loads(sample.read_text("utf-8"))
    answer = chat["messages"][1]
    answer["thoughts"], answer["toolCalls"] = True, {"name": "x"}
    (session,), ledger = _read_value(sample, chat, "gemini")
    assert [m.role for m in session.messages] == ["user", "assistant"]
    assert session.messages[1].content == answer["content"].strip()
    assert ledger.parts_left_out == {"unreadable thoughts (not a list)": 1,
                                     "unreadable toolCalls (not a list)": 1}


def test_a_crush_finish_part_whose_reason_is_not_text_costs_nothing(tmp_path: Path) -> None:
    copy = tmp_path / "crush.db"
    shutil.copy(FORMATS / "crush" / "crush.db", copy)
    with sqlite3.connect(copy) as db:
        (parts,) = db.execute("SELECT parts FROM messages WHERE id = 'm06'").fetchone()
        changed = json.loads(parts)
        changed[-1]["data"]["reason"] = {"x": None}
        db.execute("UPDATE messages SET parts = ? WHERE id = 'm06'", (json.dumps(changed),))
    db.close()
    found, expected = Ledger(), Ledger()
    sessions = load_database(copy, ImportOptions(format="crush"), found)
    unchanged = load_database(FORMATS / "crush" / "crush.db", ImportOptions(format="crush"),
                              expected)
    assert [raw.record["messages"] for raw in sessions] == \
        [raw.record["messages"] for raw in unchanged]
    assert found.totals() == expected.totals()


def test_qwen_and_zed_lists_of_the_wrong_type_cost_only_themselves() -> None:
    """The same shape as gemini's in older Qwen Code chats (`toolCalls`) and Zed's legacy
    threads (`tool_uses`, `tool_results`): not found by the fuzz yet, read the same way."""
    sample = (FORMATS / "qwen" / "tmp" / ("a1" * 32) / "chats"
              / "session-2025-10-02T08-00-c3d5e7f9.json")
    chat = json.loads(sample.read_text("utf-8"))
    chat["messages"][1]["toolCalls"] = True
    (session,), ledger = _read_value(sample, chat, "qwen")
    assert [m.role for m in session.messages] == ["user", "assistant", "user"]
    assert ledger.parts_left_out["unreadable toolCalls (not a list)"] == 1
    ledger = Ledger()
    role, _, turn = zed_messages._legacy(
        {"role": "assistant", "id": 1, "segments": [{"type": "text", "text": "Done."}],
         "tool_uses": True, "tool_results": 7}, {}, ImportOptions(), ledger)
    assert (role, turn) == ("assistant", zed_messages._Turn(lines=["Done."]))
    assert ledger.parts_left_out == {"unreadable tool_uses (not a list)": 1,
                                     "unreadable tool_results (not a list)": 1}


# --- mutations

def _mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    for _ in range(rng.randint(1, 3)):
        data = rng.choice(_BYTE_MUTATIONS)(data, rng)
    return data


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[:rng.randint(0, len(data))]


def _bad_utf8(data: bytes, rng: random.Random) -> bytes:
    at = rng.randint(0, len(data))
    return data[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00"]) + data[at:]


def _lines(mutate: Any) -> Any:
    def apply(data: bytes, rng: random.Random) -> bytes:
        lines = data.split(b"\n")
        return b"\n".join(mutate(lines, rng) if lines else lines)
    return apply


def _drop_line(lines: list[bytes], rng: random.Random) -> list[bytes]:
    del lines[rng.randrange(len(lines))]
    return lines


def _shuffle(lines: list[bytes], rng: random.Random) -> list[bytes]:
    rng.shuffle(lines)
    return lines


def _double_line(lines: list[bytes], rng: random.Random) -> list[bytes]:
    at = rng.randrange(len(lines))
    return [*lines[:at + 1], lines[at], *lines[at + 1:]]


def _garbage_line(lines: list[bytes], rng: random.Random) -> list[bytes]:
    lines[rng.randrange(len(lines))] = rng.choice(
        [b"{", b"null", b"[]", b"42", b'"text"', b"{}", b'{"type": 7}', b"#### ", b"> ",
         b"# aider chat started at 2026-13-45 99:99:99"])
    return lines


def _mutate_json(data: bytes, rng: random.Random) -> bytes:
    """A value inside the JSON (the whole document, or one line of JSON lines) changed."""
    try:
        value = json.loads(data)
        return json.dumps(_mutate_value(value, rng)).encode()
    except (ValueError, RecursionError):
        pass
    lines = data.split(b"\n")
    readable = [n for n, line in enumerate(lines) if line.strip().startswith(b"{")]
    if not readable:
        return _truncate(data, rng)
    at = rng.choice(readable)
    with contextlib.suppress(ValueError, RecursionError):
        lines[at] = json.dumps(_mutate_value(json.loads(lines[at]), rng)).encode()
    return b"\n".join(lines)


def _mutate_value(value: Any, rng: random.Random) -> Any:
    """One change deep inside a JSON value: a key dropped, a value of the wrong type, a lone
    surrogate in a string, a list where an object was."""
    containers = [value]
    target: Any = value
    for _ in range(rng.randint(0, 6)):
        children = (list(target.values()) if isinstance(target, dict)
                    else target if isinstance(target, list) else [])
        children = [c for c in children if isinstance(c, dict | list)]
        if not children:
            break
        target = rng.choice(children)
        containers.append(target)
    if isinstance(target, dict) and target:
        key = rng.choice(list(target))
        kind = rng.randrange(4)
        if kind == 0:
            del target[key]
        elif kind == 1:
            target[key] = rng.choice(WRONG_VALUES)
        elif kind == 2 and isinstance(target[key], str):
            at = rng.randint(0, len(target[key]))
            target[key] = target[key][:at] + "\ud83d" + target[key][at:]
        else:
            target[key] = [target[key]] if rng.random() < 0.5 else {"value": target[key]}
    elif isinstance(target, list) and target:
        at = rng.randrange(len(target))
        if rng.random() < 0.5:
            del target[at]
        else:
            target[at] = rng.choice(WRONG_VALUES)
    elif not isinstance(value, dict | list):
        return rng.choice(WRONG_VALUES)
    return value


_BYTE_MUTATIONS = [_truncate, _bad_utf8, _lines(_drop_line), _lines(_shuffle),
                   _lines(_double_line), _lines(_garbage_line), _mutate_json, _mutate_json,
                   _mutate_json]


def _mutate_database(path: Path, rng: random.Random) -> None:
    """A few cells of the agent's tables changed: JSON values mutated, others set to the wrong
    type or NULL."""
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        for _ in range(rng.randint(1, 4)):
            table = rng.choice(tables)
            columns = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
            rows = [r[0] for r in db.execute(f'SELECT rowid FROM "{table}"')]
            if not rows or not columns:
                continue
            row, column = rng.choice(rows), rng.choice(columns)
            (cell,) = db.execute(f'SELECT "{column}" FROM "{table}" WHERE rowid = ?', (row,)).fetchone()
            if isinstance(cell, bytes):
                cell = cell.decode("utf-8", "replace")
            new: Any
            try:
                new = json.dumps(_mutate_value(json.loads(cell), rng)) if isinstance(cell, str) \
                    else rng.choice([None, 0, "", "{", "[]"])
            except (ValueError, RecursionError):
                new = rng.choice([None, 0, "", "{", cell[: len(cell) // 2] if cell else ""])
            try:
                db.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (new, row))
            except sqlite3.DatabaseError:  # a key or type the schema enforces: another cell
                continue
