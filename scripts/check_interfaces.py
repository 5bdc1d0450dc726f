"""Record recall's CLI outputs, OpenAPI document and MCP tools, or compare them with a recording."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # import the code of this checkout, whatever the current folder

GLOBAL = ["--embedder", "hash"]  # before every command's own arguments
STEPS = ROOT / "tests/data/interfaces/steps.txt"  # what to run, in order (see its header)
RANDOM_IDS = {"todo": r"td-[0-9a-f]{16}",
              "uuid": r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"}
LOG_LINE = re.compile(r"(?m)^(DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+:")
# durations and file sizes; the archive's size also depends on where the checkout is (imported
# sessions keep the path of their transcript)
VOLATILE_NUMBERS = {"seconds": "<seconds>", "disk_bytes": "<bytes>", "archive_bytes": "<bytes>"}
BATCH = [{"qid": "q1", "query": "数据库"}, {"qid": "q2", "query": "Kyoto", "mode": "vector", "limit": 3},
         {"qid": "q3", "query": "deploy", "since": "2026-04-01", "scope": "all"}, "not json",
         {"query": "Dockerfile", "mode": "keyword", "session": "dcc15d13-09ad-4c7d-8611-ca4da66022f3"},
         {"qid": "bad-date", "query": "x", "date": "2026-13-01"}]


def make_inputs(tmp: Path) -> None:
    """The files the steps read: a batch of queries, an append batch, a folder to watch."""
    lines = [q if isinstance(q, str) else json.dumps(q, ensure_ascii=False) for q in BATCH]
    (tmp / "batch.jsonl").write_text("\n".join(lines) + "\n")
    append = [{"role": "user", "content": "Which day is the tea ceremony?", "id": "live-1-q"},
              {"role": "assistant", "content": "Saturday at 10:00", "time": "2026-02-10T09:00:00+09:00"}]
    (tmp / "append.jsonl").write_text("\n".join(json.dumps(m) for m in append) + "\n")
    (tmp / "watched").mkdir()
    shutil.copy(ROOT / "tests/data/sessions/2025-12/t-kyoto.json", tmp / "watched")


def read_steps() -> tuple[dict[str, str], list[tuple[str, bool, str | None]]]:
    """STEPS as its names, and its commands as (command, record stderr, kind of ids it makes)."""
    names, commands = {}, []
    for line in STEPS.read_text("utf-8").replace("\\\n", " ").splitlines():
        line, _, note = line.partition("  #")
        name, is_name, value = line.partition(" = ")
        if is_name and name.isidentifier():
            names[name] = value.strip()
        elif line.strip() and not line.startswith("#"):
            makes = note.strip().removeprefix("makes ") if note.strip().startswith("makes ") else None
            commands.append((line.removeprefix("! ").strip(), line.startswith("! "), makes))
    return names, commands


class Normalizer:
    """Replaces what differs between two runs (paths, now, durations, random ids) with placeholders."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = str(tmp)
        self.ids: dict[str, str] = {}  # random id -> its placeholder, numbered as they appear
        self.days: set[str] = set()
        self.now()

    def now(self) -> None:
        """Today's date (local and UTC) counts as "now"; call again at the end of a run."""
        self.days |= {datetime.now().date().isoformat(), datetime.now(UTC).date().isoformat()}

    def register(self, kind: str, text: str) -> None:
        for value in re.findall(RANDOM_IDS[kind], text):
            count = sum(1 for p in self.ids.values() if p.startswith(f"<{kind}-"))
            self.ids.setdefault(value, f"<{kind}-{count + 1}>")

    def text(self, s: str) -> str:
        for value, placeholder in self.ids.items():
            s = s.replace(value, placeholder)
        s = s.replace(self.tmp, "<tmp>").replace(str(ROOT), "<repo>")
        day = f"(?:{'|'.join(sorted(self.days))})"
        s = re.sub(rf"-snap-{day}T\d{{6}}p\d{{4}}", "-snap-<now>", s)  # ids made of the time
        s = re.sub(rf"{day}[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?", "<now>", s)
        s = re.sub(rf"\b{day}\b", "<today>", s)
        s = re.sub(r"\bgen-\d{8}-\d{6}-\d{6}\b", "<generation>", s)
        s = re.sub(r"snapshot is \d+ (min|h|days) old", "snapshot is <age> old", s)  # age now
        s = re.sub(r"\bin \d+\.\ds\b", "in <seconds>s", s)
        s = re.sub(r"\b\d+\.\d MB\b", "<size> MB", s)
        return re.sub(r"(?m)^\d\d:\d\d:\d\d ", "<hh:mm:ss> ", s)

    def value(self, v: Any, key: str = "") -> Any:
        if isinstance(v, dict):
            return {self.text(k): self.value(x, k) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x, key) for x in v]
        if isinstance(v, str):
            return self.text(v)
        if key in VOLATILE_NUMBERS and isinstance(v, int | float):
            return VOLATILE_NUMBERS[key]
        return v


def parse_output(text: str) -> Any:
    """One JSON value, JSON lines as a list, or the text as it is."""
    with contextlib.suppress(json.JSONDecodeError):
        return json.loads(text)
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        return [json.loads(line) for line in lines] if lines else text
    except json.JSONDecodeError:
        return text


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    from api.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse errors
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def record_cli(tmp: Path, norm: Normalizer) -> list[dict[str, Any]]:
    names, commands = read_steps()
    entries, names = [], names | {"tmp": str(tmp)}
    for command, keep_stderr, makes in commands:
        argv = GLOBAL + shlex.split(command.format(**names))
        code, out, err = run_cli(argv)
        if makes:
            norm.register(makes, out)
            names |= {p.strip("<>").replace("-", ""): v for v, p in norm.ids.items()}  # {todo1}
        entry = {"argv": argv, "exit": code, "stdout": parse_output(out)}
        entries.append(entry | {"stderr": err} if keep_stderr else entry)
    return entries


def record_openapi(settings: Any, service: Any) -> dict[str, Any]:
    from litestar.serialization import encode_json

    from api.http import create_app

    def schema(s: Any) -> Any:  # encoded as the app serves it (examples hold msgspec Structs)
        return blank_examples(json.loads(encode_json(create_app(s, service).openapi_schema.to_schema())))

    return {"no token": schema(settings), "with token": schema(replace(settings, api_token="t" * 48))}


def blank_examples(v: Any) -> Any:
    """Litestar fills `examples` with random values (polyfactory): keep where, not what."""
    if isinstance(v, dict):
        return {k: "<generated>" if k == "examples" else blank_examples(x) for k, x in v.items()}
    return [blank_examples(x) for x in v] if isinstance(v, list) else v


def record_mcp(service: Any) -> list[dict[str, Any]]:
    from api.mcp import build_mcp

    keys = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
    tools = asyncio.run(build_mcp(service).list_tools())
    dumped = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    return [{k: d[k] for k in keys if k in d} for d in dumped]


def record() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="recall-interfaces-") as name:
        tmp = Path(name)
        os.chdir(ROOT)  # the steps name inputs relative to the checkout
        for var in [v for v in os.environ if v.startswith("RECALL_")]:
            del os.environ[var]
        os.environ["RECALL_HOME"] = str(tmp / "home")
        os.environ["RECALL_RELEVANCE_DECAY_RATE"] = "0"  # relevance would decay with every second
        make_inputs(tmp)
        norm = Normalizer(tmp)
        cli = record_cli(tmp, norm)
        from api.service import RecallService
        from api.settings import Settings

        settings = Settings.from_env(embedder="hash")
        service = RecallService(settings)
        raw = {"cli": cli, "openapi": record_openapi(settings, service), "mcp_tools": record_mcp(service)}
        norm.now()
        return norm.value(raw)


def differences(a: Any, b: Any, path: str = "$", notes: list[str] | None = None) -> list[str]:
    """Where b (now) differs from a (recorded): values, types and keys. JSON objects are
    unordered, so keys in another order are only noted (in `notes`, when given)."""
    if type(a) is not type(b):
        return [f"{path}: was {_short(a)}, now {_short(b)}"]
    if isinstance(a, dict):
        missing, extra = [k for k in a if k not in b], [k for k in b if k not in a]
        found = [f"{path}: keys gone {missing}, new {extra}"] if missing or extra else []
        if not found and list(a) != list(b) and notes is not None:
            notes.append(f"{path}: keys in another order")
        return found + [d for k in a if k in b for d in differences(a[k], b[k], f"{path}.{k}", notes)]
    if isinstance(a, list):
        found = [d for i, (x, y) in enumerate(zip(a, b, strict=False))
                 for d in differences(x, y, f"{path}[{i}]", notes)]
        if len(a) != len(b):
            found.append(f"{path}: was {len(a)} items, now {len(b)}")
        return found
    if isinstance(a, str) and a != b and "\n" in a + b:  # text: the first line that differs
        pairs = zip([*a.splitlines(), ""], [*b.splitlines(), ""], strict=False)
        n, (x, y) = next((n, p) for n, p in enumerate(pairs, start=1) if p[0] != p[1])
        return [f"{path} line {n}: was {_short(x, y)}, now {_short(y, x)}"]
    return [] if a == b else [f"{path}: was {_short(a, b)}, now {_short(b, a)}"]


def _short(v: Any, other: Any = None) -> str:
    """v as JSON, cut around where it starts to differ from other."""
    text, them = json.dumps(v, ensure_ascii=False), json.dumps(other, ensure_ascii=False)
    start = max(0, next((i for i, (x, y) in enumerate(zip(text, them, strict=False)) if x != y), 0) - 80)
    cut = text[start:start + 240]
    return ("…" if start else "") + cut + ("…" if start + 240 < len(text) else "")


def without_loggers(v: Any) -> Any:
    """A log line names the module that wrote it, which moving code renames: compare the rest."""
    if isinstance(v, dict):
        return {k: without_loggers(x) for k, x in v.items()}
    if isinstance(v, list):
        return [without_loggers(x) for x in v]
    return LOG_LINE.sub(r"\1 <logger>:", v) if isinstance(v, str) else v


def compare(baseline: dict[str, Any], current: dict[str, Any], show: int = 15,
            notes: list[str] | None = None) -> list[str]:
    """The differences, each prefixed by the CLI command it belongs to."""
    found = differences(without_loggers(baseline), without_loggers(current), notes=notes)
    return [_label(baseline, d) for d in found[:show]] + (
        [f"... and {len(found) - show} more differences"] if len(found) > show else [])


def _label(baseline: dict[str, Any], d: str) -> str:
    m = re.match(r"\$\.cli\[(\d+)\]", d)
    if m and int(m.group(1)) < len(baseline.get("cli", [])):
        d = f"`recall {shlex.join(baseline['cli'][int(m.group(1))]['argv'][len(GLOBAL):])}`\n    {d}"
    return d


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("file", type=Path, help="where to record, or the recording to compare with")
    args = parser.parse_args(argv)
    path = args.file.resolve()  # before record() moves to the checkout
    baseline = json.loads(path.read_text("utf-8")) if args.action == "compare" else None
    started = time.monotonic()
    current = record()
    seconds = time.monotonic() - started
    code = Path(str(sys.modules["api"].__file__)).parent.parent  # the checkout whose code ran
    if args.action == "record":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(current, ensure_ascii=False, indent=1) + "\n", "utf-8")
        print(f"recorded {len(current['cli'])} CLI runs, {len(current['mcp_tools'])} MCP tools "
              f"and the OpenAPI document of {code} to {args.file} in {seconds:.1f}s")
        return 0
    notes: list[str] = []
    found = compare(baseline or {}, current, notes=notes)
    if found:
        print(f"interfaces of {code} differ from {args.file}:", *found, sep="\n", file=sys.stderr)
        return 1
    for note in notes:  # not a difference in JSON, but worth knowing
        print(f"note: {_label(baseline or {}, note)}")
    print(f"interfaces of {code} match {args.file} ({len(current['cli'])} CLI runs, {seconds:.1f}s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
