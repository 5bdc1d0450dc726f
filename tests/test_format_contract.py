"""The format contract (indexer/formats/contract.py): every format is one Format record in the
one list of registry.py, the record refuses what breaks the contract, the command line's names
are the list's, each format names the variables that move it, and no two formats claim one
sample, so that detection does not depend on the list's order. And the recipe of
docs/architecture.md ("An input format") is complete: a format added by its steps alone is
recognized by `recall index`, imported by `recall import`, listed by `recall sources` and
reopened by `recall resume`."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from indexer.formats import detect_format, registry
from indexer.formats.common import (
    FORMAT_NAMES,
    ImportOptions,
    NothingToImport,
    Transcript,
    origin,
    read_transcript_lines,
    safe_session_id,
)
from indexer.formats.contract import Format, Resume, Storage
from indexer.formats.database import is_database, open_readonly, table_names
from indexer.formats.ledger import Ledger

from .helpers import DATA, ROOT


def test_the_command_line_names_are_the_list() -> None:
    assert tuple(f.name for f in registry.FORMATS) == FORMAT_NAMES
    assert len({f.name for f in registry.FORMATS}) == len(registry.FORMATS)
    # the command line reads the names without loading a reader
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, api.cli.main; print(sorted(sys.modules))"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "'indexer.formats.common'" in loaded
    assert "'indexer.formats.registry'" not in loaded and "'indexer.formats.contract'" not in loaded


def _lines(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    return []


def _anything(*_: Any) -> bool:
    return True


NEEDED: dict[str, Any] = {"name": "demo", "channel": "demo", "default_paths": lambda h, e: [],
                          "is_candidate": _anything, "resume": Resume(None, "no command")}


@pytest.mark.parametrize(("given", "refused"), [
    ({"stored_as": (Storage.LINES,), "sniff_line": _anything},
     "stored as JSON lines but no read_lines"),
    ({"stored_as": (Storage.LINES,), "read_lines": _lines}, "nothing recognizes it"),
    ({"stored_as": (Storage.LINES,), "sniff_line": _anything, "read_lines": _lines,
      "read_text": _lines}, "read_text given but TEXT is not in stored_as"),
    ({"stored_as": (Storage.LINES,), "sniff_line": _anything, "read_lines": _lines,
      "sniff_tables": _anything}, "a sniff_ function for a SQLite database"),
    ({"stored_as": ()}, "stored_as names each storage kind once"),
    ({"stored_as": (Storage.TEXT,), "sniff_text": _anything, "read_text": _lines,
      "name": "Demo Format"}, "the name is lowercase"),
    ({"stored_as": (Storage.TEXT,), "sniff_text": _anything, "read_text": _lines,
      "resume": Resume("demo --open {session}", "x")}, "the resume command's only field is {id}"),
    ({"stored_as": (Storage.TEXT,), "sniff_text": _anything, "read_text": _lines,
      "resume": Resume(None, "")}, "says why in its note"),
    ({"stored_as": (Storage.TEXT,), "sniff_text": _anything, "read_text": _lines,
      "environment": ("demo-home",)}, "is not an environment variable's name"),
    ({"stored_as": (Storage.TEXT,), "sniff_text": _anything, "read_text": _lines,
      "lines_named": _anything}, "lines_named given but it is not stored as JSON lines"),
])
def test_a_format_that_breaks_the_contract_is_refused(given: dict[str, Any], refused: str) -> None:
    with pytest.raises(TypeError, match="format .*" + refused.replace("{", r"\{").replace(
            "}", r"\}").replace("(", r"\(")):
        Format(**{**NEEDED, **given})


class _Reads(dict[str, str]):
    """An environment that remembers the variables asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return super().__contains__(key)


@pytest.mark.parametrize("fmt", registry.FORMATS, ids=lambda f: f.name)
def test_each_format_names_the_variables_that_move_it(fmt: Format, tmp_path: Path) -> None:
    env = _Reads()
    assert fmt.default_paths(tmp_path, env)
    assert env.asked == set(fmt.environment)


def _samples() -> list[Path]:
    return sorted(p for p in DATA.rglob("*") if p.is_file())


def test_no_two_formats_claim_one_sample() -> None:
    """Each line, document, database and Markdown text of the test data is recognized by one
    format at most: so the list's order, which detection follows, decides nothing."""
    formats = registry.FORMATS
    claims: list[tuple[str, list[str]]] = []
    counted = dict.fromkeys(("lines", "documents", "databases", "texts"), 0)
    for path in _samples():
        if is_database(path):
            try:
                with open_readonly(path) as connection:
                    tables = table_names(connection)
                    claims.append((str(path), [f.name for f in formats if f.sniff_tables
                                               and f.sniff_tables(tables)]))
                    claims.append((str(path), [f.name for f in formats if f.sniff_connection
                                               and f.sniff_connection(connection, tables)]))
            except sqlite3.DatabaseError:
                continue  # a damaged database of the tests
            counted["databases"] += 1
            continue
        try:
            text = path.read_text("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if path.suffix == ".md":
            counted["texts"] += 1
            claims.append((str(path), [f.name for f in formats if f.sniff_text
                                       and f.sniff_text(text)]))
        value = _json(text)
        if value is not None:
            counted["documents"] += 1
            claims.append((str(path), [f.name for f in formats if f.sniff_document
                                       and f.sniff_document(value, path)]
                           + [m.name for f in formats for m in f.metadata if m.looks_like(value)]))
        first = True
        for number, line in enumerate(text.split("\n"), start=1):
            item = _json(line)
            if item is None:
                first = first and not line.strip()
                continue
            counted["lines"] += 1
            headers = [f.name for f in formats if first and f.sniff_header and f.sniff_header(item)]
            claims.append((f"{path}:{number}", headers + [
                f.name for f in formats if f.sniff_line and f.sniff_line(item)]))
            first = False
    assert counted["lines"] > 1000 and counted["documents"] > 50
    assert counted["databases"] >= 3 and counted["texts"] >= 3
    assert [(where, names) for where, names in claims if len(names) > 1] == []


def _json(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else None
    except (json.JSONDecodeError, RecursionError):
        return None


# A format of the recipe's test: an agent that writes one JSON object a line,
# {"demo": 1, "who": "user"|"assistant", "said": "...", "at": "..."}. Its file's name is its id.

def _demo_line(item: Any) -> bool:
    return isinstance(item, dict) and item.get("demo") == 1 and isinstance(item.get("said"), str)


def _read_demo(path: Path, text: str, options: ImportOptions, ledger: Ledger) -> list[Transcript]:
    messages = []
    for number, item in read_transcript_lines(text, ledger):
        where = f"line {number}"
        if not _demo_line(item) or not item["said"].strip():
            ledger.left_out(where, "nothing said")
            continue
        ledger.imported(where)
        messages.append({"id": f"l{number}", "role": item.get("who", "user"),
                         "content": item["said"], "time": item.get("at")})
    if not messages:
        raise NothingToImport(ledger.describe())
    record = {"sessionId": safe_session_id("demo", path.stem), "channel": "demo",
              "title": messages[0]["content"], "messages": messages,
              "origin": origin("demo", path.stem, str(path.parent), path)}
    return [Transcript.build(record, ledger)]


def _demo_paths(home: Path, env: dict[str, str]) -> list[Path]:
    return [Path(env["DEMO_HOME"]) if env.get("DEMO_HOME") else home / ".demo"]


DEMO = Format(name="demo", channel="demo", stored_as=(Storage.LINES,),
              default_paths=_demo_paths, is_candidate=lambda path: path.suffix == ".jsonl",
              environment=("DEMO_HOME",), resume=Resume("demo --open {id}", "run it in cwd"),
              sniff_line=_demo_line, read_lines=_read_demo)

# The registration steps of the recipe, run in a new process before the command line is loaded
# (as editing registry.py and common.py would be), then `recall` commands in that process.
DRIVER = """
import contextlib, io, json, sys
if sys.argv[1] == "registered":
    from indexer.formats import common, registry
    from tests.test_format_contract import DEMO
    registry.FORMATS.append(DEMO)  # step 2: its FORMAT in registry.FORMATS
    common.FORMAT_NAMES = (*common.FORMAT_NAMES, DEMO.name)  # step 3: its name in FORMAT_NAMES
from api.cli.main import main
ran = []
for args in json.loads(sys.argv[2]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--embedder", "hash", *args])
    ran.append({"code": code, "out": out.getvalue(), "err": err.getvalue()})
print(json.dumps(ran))
"""


def _demo_chat(path: Path, said: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"demo": 1, "who": ("user", "assistant")[n % 2], "said": words,
              "at": f"2026-03-0{n + 1}T10:00:00Z"} for n, words in enumerate(said)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


def _recall_with_demo(tmp_path: Path, registered: bool,
                      *commands: list[str]) -> list[dict[str, Any]]:
    variables = {name for f in registry.FORMATS for name in f.environment}
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("RECALL_") and k not in variables}
    env.update(RECALL_HOME=str(tmp_path / "recall"), HOME=str(tmp_path / "user"),
               DEMO_HOME=str(tmp_path / "demo"), PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, "registered" if registered else "as is",
         json.dumps(commands)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
        check=False)
    assert proc.returncode == 0, proc.stderr
    ran: list[dict[str, Any]] = json.loads(proc.stdout)
    return ran


def test_a_format_added_by_the_recipe_alone_is_read_everywhere(tmp_path: Path) -> None:
    inbox = _demo_chat(tmp_path / "inbox" / "tea.jsonl", [
        "Where is the tea house in Uji?", "Two streets south of the bridge.", "",
        "Is it open on Mondays?", "Only in spring."])
    kept = _demo_chat(tmp_path / "demo" / "kyoto.jsonl", ["Which train goes to Uji?",
                                                          "The JR Nara line."])
    named = _demo_chat(tmp_path / "elsewhere" / "nara.jsonl", ["Deer park hours?", "Always open."])
    assert detect_format(inbox, inbox.read_text()) == "jsonl"  # unknown here: not registered

    not_yet = _recall_with_demo(tmp_path / "before", False, ["import", "demo", str(named)])
    assert not_yet[0]["code"] == 2 and "'demo' is not one of" in not_yet[0]["err"]

    index, imported, planned, sources, resume, stats = _recall_with_demo(
        tmp_path, True,
        ["index", str(inbox.parent), "--json"],  # recognized by content
        ["import", "demo", str(named), "--json"],  # by name, from a path
        ["import", "demo", "--dry-run", "--json"],  # by name, from its default location
        ["sources", "--json"],
        ["resume", "demo-tea", "--json"],
        ["stats", "--json"])
    assert [r["code"] for r in (index, imported, planned, sources, resume, stats)] == [0] * 6, \
        [r["err"] for r in (index, imported, planned, sources, resume, stats)]

    report = json.loads(index["out"])
    assert (report["indexed"], report["rejected"]) == (1, [])
    (read,) = report["files_read"]
    assert (read["sessions"], read["messages"]) == (1, 4)
    assert (read["records"], read["imported"], read["left_out"]) == (5, 4, {"nothing said": 1})
    assert read["records"] == read["imported"] + read["merged"] + sum(read["left_out"].values())

    assert json.loads(imported["out"])["indexed"] == 1
    dry_run = json.loads(planned["out"])
    assert [s["session_id"] for s in dry_run["sessions"]] == ["demo-kyoto"]
    found = {s["format"]: s for s in json.loads(sources["out"])}
    assert list(found)[-1] == "demo"
    assert found["demo"]["found"] == [str(kept.parent)] and found["demo"]["files"] == 1
    assert found["demo"]["environment"] == ["DEMO_HOME"]
    hint = json.loads(resume["out"])
    assert (hint["command"], hint["cwd"]) == ("demo --open tea", str(inbox.parent))
    assert json.loads(stats["out"])["channels"] == {"demo": 2}


def test_the_list_is_read_when_a_file_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         recall: Callable[..., Any]) -> None:
    chat = _demo_chat(tmp_path / "inbox" / "tea.jsonl", ["Where is the tea house?", "South."])
    with monkeypatch.context() as patched:
        patched.setattr(registry, "FORMATS", [*registry.FORMATS, DEMO])
        assert detect_format(chat, chat.read_text()) == "demo"
        indexed = json.loads(recall("index", str(chat), "--json").stdout)
        assert indexed["indexed"] == 1 and indexed["files_read"][0]["records"] == 2
    assert detect_format(chat, chat.read_text()) == "jsonl"
    chat.write_text(chat.read_text() + "\n")  # read again, without the format
    rejected = json.loads(recall("index", str(chat), "--json", ok=False).stdout)["rejected"]
    assert "no conversation messages found" in rejected[0]["reason"]
