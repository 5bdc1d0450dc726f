"""Write a corpus of hostile input files into a folder (tests build it in a tmp dir; it is not
kept in the repository).

    python -m tests.hostile.generate OUT_DIR

Each file comes with what recall must do with it: "reject" (a clear per-file error), "ingest"
(archived and indexed whole) or "either" (both are correct; never a crash or half a session).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["BIG", "generate"]

GOOD_MESSAGES = [{"role": "user", "content": "hello there"},
                 {"role": "assistant", "content": "hi, how can I help?"}]
# the two files that are expensive to ingest: the HTTP and MCP runs may leave them out
BIG = {"huge-message.json", "many-messages.json"}


def _session(session_id: object = None, **fields: object) -> dict[str, object]:
    record: dict[str, object] = {"date": "2026-02-03", "messages": GOOD_MESSAGES}
    if session_id is not None:
        record["sessionId"] = session_id
    record.update(fields)
    return record


def _wrong_types() -> dict[str, tuple[bytes, str]]:
    bad_values: list[object] = [None, 7, 1.5, True, "text", [], {}, [1, "a"], {"a": {"b": []}}]
    fields = ["sessionId", "date", "messages", "channel", "participants", "topics", "decisions",
              "summary", "title", "feedback", "archivedAt"]
    out = {}
    for field in fields:
        for n, value in enumerate(bad_values):
            record = _session(f"wt-{field}-{n}")
            record[field] = value
            out[f"wrong-{field}-{n}.json"] = (json.dumps(record).encode(), "either")
    for field in ("role", "content", "time", "id", "speaker", "toolCalls"):
        for n, value in enumerate(bad_values):
            message = {"role": "user", "content": "fine"} | {field: value}
            record = _session(f"wm-{field}-{n}", messages=[message, GOOD_MESSAGES[1]])
            out[f"wrong-message-{field}-{n}.json"] = (json.dumps(record).encode(), "either")
    return out


def generate(folder: Path, outside: Path) -> dict[str, str]:
    """Write the corpus into `folder` (symlinks point into `outside`); returns name -> expectation."""
    folder.mkdir(parents=True, exist_ok=True)
    outside.mkdir(parents=True, exist_ok=True)
    files: dict[str, tuple[bytes, str]] = {}

    def add(name: str, value: object | bytes, expect: str) -> None:
        data = value if isinstance(value, bytes) else json.dumps(value, ensure_ascii=False).encode()
        files[name] = (data, expect)

    add("truncated.json", json.dumps(_session("trunc")).encode()[:-20], "reject")
    add("truncated.jsonl", b'{"role": "user", "content": "a"}\n{"role": "assi', "either")
    add("empty.json", b"", "reject")
    add("only-null.json", b"null", "reject")
    add("a-number.json", b"42", "reject")
    add("a-list-of-numbers.json", b"[1, 2, 3]", "reject")
    files.update(_wrong_types())
    add("huge-message.json", _session("huge-message", messages=[
        {"role": "user", "content": ("word " * 4_000_000)[:20_000_000]}]), "ingest")
    add("many-messages.json", _session("many-messages", messages=[
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"message number {i}"}
        for i in range(50_000)]), "ingest")
    add("bad-utf8.json", b'{"sessionId": "u8", "date": "2026-01-01", "messages": '
                         b'[{"role": "user", "content": "caf\xc3\x28 \xff"}]}', "ingest")
    add("nul-byte.json", json.dumps(_session("nul")).encode() + b"\x00", "reject")
    add("nul-escaped.json", _session("nul-escaped", messages=[
        {"role": "user", "content": "before\u0000after"}]), "either")
    add("bom.json", b"\xef\xbb\xbf" + json.dumps(_session("bom")).encode(), "ingest")
    add("deep.json", b"[" * 200_000 + b"]" * 200_000, "reject")
    add("deep-in-content.json", b'{"sessionId": "deep-c", "date": "2026-01-01", "messages": '
                                b'[{"role": "user", "content": ' + b"[" * 50_000 + b"]" * 50_000
                                + b"}]}", "reject")
    add("deep-object.json", _nest(500), "either")
    add("huge-int.json", b'{"sessionId": "bigint", "date": "2026-01-01", "messages": '
                         b'[{"role": "user", "content": "x", "time": ' + b"9" * 5000 + b"}]}",
        "either")
    add("huge-float.json", b'{"sessionId": "bigfloat", "date": "2026-01-01", "messages": '
                           b'[{"role": "user", "content": "x", "time": 1e400}]}', "either")
    add("huge-number-id.json", b'{"sessionId": 1' + b"0" * 400 + b', "date": "2026-01-01", '
                               b'"messages": [{"role": "user", "content": "x"}]}', "reject")
    add("huge-date.json", _session("hugedate", date="9" * 40), "either")
    add("negative-date.json", _session("negdate", date="-0001-01-01"), "either")
    add("duplicate-ids.json", _session("dup-ids", messages=[
        {"id": "m1", "role": "user", "content": "first"},
        {"id": "m1", "role": "assistant", "content": "second"},
        {"id": "m1", "role": "user", "content": "third"}]), "ingest")
    add("duplicate-keys.json", b'{"sessionId": "dk", "sessionId": "dk2", "date": "2026-01-01", '
                               b'"messages": [{"role": "user", "content": "x"}]}', "ingest")
    # two files, one session id, different content: the first read wins, the second is rejected
    add("twin-a.json", _session("twin", messages=[{"role": "user", "content": "version a"}]),
        "either")
    add("twin-b.json", _session("twin", messages=[{"role": "user", "content": "version b"}]),
        "either")
    for n, sid in enumerate(["../x", "../../etc/passwd", "..", ".", "a/b", "a\\b", "con", "CON.txt",
                             "nul", "lpt1", " ", "\u0000", "x\ny", ".hidden", "s" * 10_000]):
        add(f"bad-id-{n}.json", _session(sid), "reject")
    # an empty id counts as none: the file name is used instead
    add("empty-id.json", _session(""), "ingest")
    add("con.json", {"date": "2026-01-01", "messages": GOOD_MESSAGES}, "reject")  # id from name
    add("ok.json", _session("ok"), "ingest")
    add("snapshot-traversal.json", {"sessionId": "../../snap", "intents": [], "facts": [],
                                    "tasks": []}, "reject")
    for name, (data, _expect) in files.items():
        (folder / name).write_bytes(data)
    # symlinks out of the input folder are not followed: a file and a folder outside
    (outside / "secret.json").write_text(json.dumps(_session("outside-file")))
    (outside / "dir").mkdir(exist_ok=True)
    (outside / "dir" / "inner.json").write_text(json.dumps(_session("outside-dir")))
    (folder / "link-to-file.json").symlink_to(outside / "secret.json")
    (folder / "link-to-dir").symlink_to(outside / "dir", target_is_directory=True)
    (folder / "link-to-etc-passwd.json").symlink_to("/etc/passwd")
    return {name: expect for name, (_data, expect) in files.items()}


def _nest(depth: int) -> bytes:
    inner = b'"x"'
    for _ in range(depth):
        inner = b'{"a": ' + inner + b"}"
    return b'{"sessionId": "deep-o", "date": "2026-01-01", "messages": [{"role": "user", ' \
           b'"content": ' + inner + b"}]}"


if __name__ == "__main__":
    out = Path(sys.argv[1])
    expected = generate(out / "in", out / "outside")
    print(f"wrote {len(expected)} files and 3 symlinks to {out}")
